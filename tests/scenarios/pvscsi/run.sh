# A disk behind VMware's paravirtual SCSI adapter (QEMU's pvscsi, driver
# vmw_pvscsi).  Two CPUs, the other one reading sda2 with O_DIRECT through
# the block layer (throttled to 200 requests a second), so that its
# commands are on the adapter's rings at the panic: the dump's command goes
# in the request context vmw_pvscsi set aside at probe, its completion is
# told from theirs, and theirs are dropped.  sda2 (random bytes) must come
# out unchanged.  (Not behind the IOMMU: with QEMU 7.2's intel-iommu the
# unpatched vmw_pvscsi oopses at boot on a completion of no command.)
hba_busy pvscsi "vmw_pvscsi 0000:00:18.0: request context [0-9]+ of [0-9]+ set aside for crash dumps" "VMware PVSCSI"
