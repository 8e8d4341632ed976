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
SMP=2
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/n.img" 300
host_format "$WORK/a.img" 1
host_format "$WORK/n.img" 1
sum_a=$(part_sum "$WORK/a.img" 1)
mk_out_disk "$WORK/out.img" 700
disks="-drive file=$WORK/a.img,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ide.0
	-drive file=$WORK/n.img,if=none,format=raw,id=dn0 -device nvme,serial=diskdump1,drive=dn0"
IOMMU=strict IOMMU_OPTS=caching-mode=on two_qemus "ddtest=iommu-nomap dddevs=/dev/sda1,/dev/nvme0n1p1" "$disks" "$disks"
log=$WORK/serial.log
check_iommu strict "0000:00:1f.2"
grep -q "GUEST: test hook nopremap failed" "$log" && fail "the nopremap test hook failed"
grep -q "GUEST: add /dev/sda1 failed" "$log" && fail "sda1 was not armed"
expect_log "$log" "test: the next SCSI disk armed will not have its dump buffer mapped then" "the nopremap hook did not run"
expect_log "$log" "sd [0-9:]+: dump buffer not mapped when armed: the host maps it at panic" \
	"arming sda1 did not say its buffer is mapped at panic"
expect_log "$log" "scsi_dump_test: CPU [0-9]+ holds the invalidation queue lock of host [0-9]+'s IOMMU for good" \
	"the other CPU did not take the IOMMU's invalidation queue lock"
expect_log "$log" "diskdump: CPUs [0-9]+ not parked in 100 ms: stopped where they are" \
	"the CPU holding the lock with interrupts off was not reported unparked"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried first"
expect_log "$log" "may hold the IOMMU's or swiotlb's locks, which this disk's driver takes to map the dump: not using it" \
	"sda1 was not skipped"
expect_log "$log" "trying partition 259:" "the dump did not go on to nvme0n1p1"
first=$(grep -n "trying partition 8:1 " "$log" | head -1 | cut -d: -f1)
skip=$(grep -n "not using it" "$log" | head -1 | cut -d: -f1)
next=$(grep -n "trying partition 259:" "$log" | head -1 | cut -d: -f1)
[ "$first" -lt "$skip" ] && [ "$skip" -lt "$next" ] || fail "sda1 was not the partition skipped"
[ "$(part_sum "$WORK/a.img" 1)" = "$sum_a" ] || fail "sda1 changed"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 2
note "sda1's buffer not mapped when armed, the IOMMU's lock held by a stopped CPU: sda1 skipped, the dump on nvme0n1p1, sda1 byte-identical"
