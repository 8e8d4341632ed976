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
SMP=2
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/n.img" 300
host_format "$WORK/a.img" 1
host_format "$WORK/n.img" 1
sum_n=$(part_sum "$WORK/n.img" 1)
mk_out_disk "$WORK/out.img" 700
disks="-drive file=$WORK/a.img,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ide.0
	-drive file=$WORK/n.img,if=none,format=raw,id=dn0 -device nvme,serial=diskdump1,drive=dn0"
IOMMU=strict IOMMU_OPTS=caching-mode=on two_qemus "ddtest=iommu-stuck dddevs=/dev/sda1,/dev/nvme0n1p1" "$disks" "$disks"
log=$WORK/serial.log
check_iommu strict "0000:00:1f.2"
# capability bit 7: caching mode
cap=$(grep -o "dmar0: reg_base_addr [0-9a-f]* ver [0-9:]* cap [0-9a-f]*" "$WORK/out/dmesg-boot2.txt" | awk '{ print $NF }' || true)
[ -n "$cap" ] && [ $(((0x$cap >> 7) & 1)) = 1 ] || fail "the IOMMU is not in caching mode (cap ${cap:-not found})"
expect_log "$log" "scsi_dump_test: CPU [0-9]+ holds the invalidation queue lock of host [0-9]+'s IOMMU for good" \
	"the other CPU did not take the IOMMU's invalidation queue lock"
expect_log "$log" "diskdump: CPUs [0-9]+ not parked in 100 ms: stopped where they are" \
	"the CPU holding the lock with interrupts off was not reported unparked"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried first"
grep -q "not using it" "$log" && fail "sda1 was skipped: its driver still maps at panic"
grep -q "trying partition 259:" "$log" && fail "the dump went on to nvme0n1p1"
[ "$(part_sum "$WORK/n.img" 1)" = "$sum_n" ] || fail "nvme0n1p1 changed"
DUMPDEV=/dev/sda1 check_saved_dump "sysrq triggered crash" 2
note "the IOMMU's invalidation queue lock held by a stopped CPU; the dump on sda1 (AHCI, its buffer mapped when armed), nvme0n1p1 byte-identical"
