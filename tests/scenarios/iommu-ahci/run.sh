# The dump disk on q35's AHCI behind QEMU's Intel IOMMU with lazy unmapping
# (the IOTLB flushed from a timer, the flush queue's): libata maps the
# dump's buffer in queuecommand at panic, through the IOVA allocator.  Two
# CPUs: the other one reads sda2 in two loops, and once memory is filled it
# also maps and unmaps a page for the AHCI host 1 ms at a time with
# interrupts off (a test hook), holding the IOVA and flush-queue locks most
# of the time.  It must be parked outside them, the dump complete through
# the IOMMU with no DMA fault, and sda2 unchanged.
IOMMU=lazy iommu_busy
