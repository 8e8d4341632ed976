# virtio-scsi behind q35's Intel IOMMU in strict mode (iommu_platform=on):
# the dump queue is premapped, the command's headers in a buffer mapped
# when the queue was set aside, scsi_dump's buffer mapped when sda1 was
# armed; at panic nothing is mapped or unmapped, every page is copied to
# that buffer, and the IOMMU reports no fault.  The other CPU keeps
# O_DIRECT reads of sda2 in flight on the block layer's queue.
IOMMU=strict virtio_scsi_busy
check_iommu strict "0000:00:18.0"
