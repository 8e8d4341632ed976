# As iommu-ahci, with strict unmapping: each unmap waits for an IOTLB
# invalidation through the IOMMU's queue, under the queue's lock.  Once
# memory is filled the other CPU holds that lock 1 ms at a time with
# interrupts off, letting go for 5 us (a test hook), as a CPU busy
# unmapping.  The dump's buffer was mapped when sda1 was armed, and at
# panic nothing is unmapped (the readers' commands that complete then
# included): the dump must not need the lock.  The panic CPU parks that
# CPU too.  Native queued spinlocks, as in hostbusy.
IOMMU=strict IOMMU_HOOK=busy_iommu iommu_busy -cpu qemu64,-hypervisor
