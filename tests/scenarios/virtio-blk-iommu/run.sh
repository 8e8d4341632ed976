# virtio-blk behind q35's Intel IOMMU in strict mode (iommu_platform=on,
# as the output disk): the ring, the requests' headers and the dump's
# buffer were mapped when the partition was armed; at panic nothing is
# mapped or unmapped, every page is copied to that buffer, and the IOMMU
# reports no fault.  The other CPU keeps reads of vdb2 in flight.
IOMMU=strict virtio_busy
check_iommu strict "0000:00:18.0"
