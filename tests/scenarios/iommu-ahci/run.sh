# The dump disk on q35's AHCI behind QEMU's Intel IOMMU with lazy unmapping
# (the IOTLB flushed from a timer, the flush queue's).  The dump's buffer
# was mapped through the IOMMU when sda1 was armed: at panic libata neither
# maps nor unmaps it, nor unmaps the readers' commands that complete then,
# so no flush queue timer is armed.  Two CPUs: the other one reads sda2 in
# two loops, and once memory is filled it also maps and unmaps a page for
# the AHCI host 1 ms at a time with interrupts off (a test hook), holding
# the IOVA and flush-queue locks most of the time; it is parked.  The dump
# must complete with no DMA fault, and sda2 come out unchanged.
IOMMU=lazy iommu_busy
