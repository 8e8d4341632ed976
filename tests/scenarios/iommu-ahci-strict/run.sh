# As iommu-ahci, with strict unmapping: each unmap, the dump's own at panic
# too, waits for an IOTLB invalidation through the IOMMU's queue, under the
# queue's lock.  Once memory is filled the other CPU holds that lock 1 ms
# at a time with interrupts off, letting go for 5 us (a test hook), as a
# CPU busy unmapping: an NMI that stops it lands, 99% of the time, while
# it holds the lock, and the dump would spin on it for ever.  The panic
# CPU must park it first.  Native queued spinlocks, as in hostbusy.
IOMMU=strict IOMMU_HOOK=busy_iommu iommu_busy -cpu qemu64,-hypervisor
