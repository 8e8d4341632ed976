# Two partitions behind QEMU's Intel IOMMU (strict): sda1 on q35's AHCI,
# whose driver maps the dump's buffer in queuecommand at panic, armed
# first, and nvme0n1p1, whose dump queue and buffers nvme-pci mapped when
# it was armed.  Once memory is filled the other CPU maps and unmaps for
# the AHCI host with interrupts off for good (a test hook): it cannot be
# parked and is stopped where it is, perhaps holding the IOMMU's locks,
# which mapping for sda1 would then spin on for ever.  sda1 must not be
# used (byte-identical) and the dump must go to nvme0n1p1.  Boot 2 is a
# fresh QEMU (two_qemus: QEMU 7.2's nvme needs a real reset).
SMP=2
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/n.img" 300
host_format "$WORK/a.img" 1
host_format "$WORK/n.img" 1
sum_a=$(part_sum "$WORK/a.img" 1)
mk_out_disk "$WORK/out.img" 700
disks="-drive file=$WORK/a.img,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ide.0
	-drive file=$WORK/n.img,if=none,format=raw,id=dn0 -device nvme,serial=diskdump1,drive=dn0"
IOMMU=strict two_qemus "ddtest=iommu-stuck dddevs=/dev/sda1,/dev/nvme0n1p1" "$disks" "$disks"
log=$WORK/serial.log
check_iommu strict "0000:00:1f.2"
expect_log "$log" "scsi_dump_test: CPU [0-9]+ maps and unmaps for host [0-9]+ for good, behind an IOMMU" \
	"the other CPU did not map through the IOMMU"
expect_log "$log" "diskdump: CPUs [0-9]+ not parked in 100 ms: stopped where they are" \
	"the CPU mapping with interrupts off was not reported unparked"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried first"
expect_log "$log" "diskdump: a CPU stopped where it was may hold the IOMMU's or swiotlb's locks, which this disk's driver takes to map the dump: not using it" \
	"sda1 was used although a CPU stopped in the IOMMU's locks could hang its mapping"
expect_log "$log" "trying partition 259:" "nvme0n1p1 was not tried next"
[ "$(part_sum "$WORK/a.img" 1)" = "$sum_a" ] || fail "sda1 changed"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 2
note "sda1 (AHCI, maps at panic) refused and byte-identical; the dump went to nvme0n1p1"
