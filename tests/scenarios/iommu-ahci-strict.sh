# As iommu-ahci, with strict unmapping: each unmap waits for an IOTLB
# invalidation through the IOMMU's queue, under its register lock, which
# the busy CPU holds much of the time.
IOMMU=strict iommu_busy
