# The fallback when a SCSI disk's dump buffer could not be mapped when it
# was armed: its HBA then maps the buffer at panic, through the IOMMU's
# locks.  As in iommu-stuck (strict IOMMU in caching mode, sda1 on AHCI
# armed first, nvme0n1p1 second), the other CPU takes the IOMMU's
# invalidation queue lock with interrupts off for good and cannot be
# parked; a test hook (nopremap) has the mapping at arming fail for sda1.
# Arming must say the buffer is mapped at panic; at panic sda1 must be
# skipped, since its driver would spin on the lock held by the stopped
# CPU, and the dump go to nvme0n1p1, whose buffers were mapped when armed.
# sda1 must stay byte-identical.
iommu_stuck_run iommu-nomap
log=$WORK/serial.log
grep -q "GUEST: test hook nopremap failed" "$log" && fail "the nopremap test hook failed"
grep -q "GUEST: add /dev/sda1 failed" "$log" && fail "sda1 was not armed"
expect_log "$log" "test: the next SCSI disk armed will not have its dump buffer mapped then" "the nopremap hook did not run"
expect_log "$log" "sd [0-9:]+: dump buffer not mapped when armed: the host maps it at panic" \
	"arming sda1 did not say its buffer is mapped at panic"
expect_log "$log" "may hold the IOMMU's or swiotlb's locks, which this disk's driver takes to map the dump: not using it" \
	"sda1 was not skipped"
expect_log "$log" "trying partition 259:" "the dump did not go on to nvme0n1p1"
first=$(grep -n "trying partition 8:1 " "$log" | head -1 | cut -d: -f1)
skip=$(grep -n "not using it" "$log" | head -1 | cut -d: -f1)
next=$(grep -n "trying partition 259:" "$log" | head -1 | cut -d: -f1)
[ "$first" -lt "$skip" ] && [ "$skip" -lt "$next" ] || fail "sda1 was not the partition skipped"
[ "$(part_sum "$WORK/a.img" 1)" = "$SUM_A" ] || fail "sda1 changed"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "$HOLD_PANIC" 2
note "sda1's buffer not mapped when armed, the IOMMU's lock held by a stopped CPU: sda1 skipped, the dump on nvme0n1p1, sda1 byte-identical"
