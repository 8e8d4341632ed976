# Two partitions behind QEMU's Intel IOMMU (strict): sda1 on q35's AHCI,
# armed first, and nvme0n1p1.  Once memory is filled the other CPU takes
# the lock of the IOMMU's invalidation queue with interrupts off and keeps
# it (a test hook), as a CPU hung waiting for an invalidation would: it
# cannot be parked and is stopped holding it.  In strict mode every unmap
# through that IOMMU takes the lock, so a dump that mapped and unmapped its
# buffer at panic, as libata did in queuecommand and at completion, would
# spin on it for ever (diskdump used to skip sda1 for that, and dump to
# nvme0n1p1).  The buffer was mapped when sda1 was armed: sda1 must take
# the whole dump with the lock held, nvme0n1p1 stay byte-identical.  The
# IOMMU is in caching mode, where a map flushes the IOTLB too, under that
# lock: a dump that mapped its buffer at panic would hang as well as one
# that unmapped it.  Boot 2 is a fresh QEMU (two_qemus: QEMU 7.2's nvme
# needs a real reset).
iommu_stuck_run iommu-stuck
log=$WORK/serial.log
grep -q "not using it" "$log" && fail "sda1 was skipped: its driver still maps at panic"
grep -q "trying partition 259:" "$log" && fail "the dump went on to nvme0n1p1"
[ "$(part_sum "$WORK/n.img" 1)" = "$SUM_N" ] || fail "nvme0n1p1 changed"
DUMPDEV=/dev/sda1 check_saved_dump "$HOLD_PANIC" 2
note "the IOMMU's invalidation queue lock held by a stopped CPU; the dump on sda1 (AHCI, its buffer mapped when armed), nvme0n1p1 byte-identical"
