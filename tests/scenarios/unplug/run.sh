# Hot-unplug while armed, behind QEMU's Intel IOMMU (strict).  Three
# partitions are armed: sda1 on q35's AHCI, then one on each of two NVMe
# controllers.  The guest removes the AHCI function and the first NVMe
# controller from its PCI bus, which unbinds their drivers as a hot-unplug
# does.  Each removed disk's partition must be disarmed while its driver
# and device are still there (scsi_dump unmaps its buffer through the
# IOMMU, nvme-pci drops its dump queue), not later against a device that
# is gone, and be off /proc/diskdump at once; a "remove" of its dev_t
# afterwards must be refused.  The crash then dumps to the partition on
# the second NVMe controller, and the two removed partitions stay
# byte-identical.  Boot 2 is a fresh QEMU with only the dump disk.
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/n1.img" 300
mk_dump_disk "$WORK/n2.img" 300
sfdisk -q --disk-id "$WORK/a.img" 0xdd000001
sfdisk -q --disk-id "$WORK/n1.img" 0xdd000002
sfdisk -q --disk-id "$WORK/n2.img" 0xdd000003
for f in a n1 n2; do host_format "$WORK/$f.img" 1; done
sum_a=$(part_sum "$WORK/a.img" 1)
sum_n1=$(part_sum "$WORK/n1.img" 1)
mk_out_disk "$WORK/out.img" 700
nvme2="-drive file=$WORK/n2.img,if=none,format=raw,id=dn2 -device nvme,serial=diskdump2,drive=dn2"
disks1="-drive file=$WORK/a.img,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ide.0
	-drive file=$WORK/n1.img,if=none,format=raw,id=dn1 -device nvme,serial=diskdump1,drive=dn1
	$nvme2"
IOMMU=strict two_qemus "ddtest=unplug dddevs=/dev/nvme0n1p1" "$disks1" "$nvme2"
log=$WORK/serial.log
pci=$(grep -o "nvme nvme0: pci function [0-9a-f:.]*" "$WORK/out/dmesg-boot2.txt" | head -1 | awk '{print $NF}' || true)
[ -n "$pci" ] || fail "no nvme PCI function in the kernel log"
check_iommu strict "$pci"
kept=$(sed -n 's/.*unplug: kept \([a-z0-9]*\).*/\1/p' "$log" | head -1)
[ -n "$kept" ] || fail "the guest did not name the partition it kept"
[ -s "$WORK/out/unplugged.txt" ] || fail "the guest removed nothing"
grep -q "unplug: removing .* failed\|unplug: .* is still there" "$log" && fail "a PCI function was not removed"
[ "$(wc -l <"$WORK/out/unplugged.txt")" = 2 ] || fail "not two partitions removed"
grep -Eq "^$kept [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump-armed.txt" || fail "$kept was not armed"
while read -r p t; do
	grep -Eq "^$p [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump-armed.txt" || fail "$p was not armed"
	expect_log "$log" "diskdump: $p: its disk is going away: no longer a dump partition" \
		"$p was not disarmed when its disk went away"
	grep -Eq "^$p [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump.txt" && fail "$p is still armed after its disk went away"
	expect_log "$log" "unplug: remove $t \\($p\\) refused" "removing $p ($t) after its disk went away was not refused"
	expect_log "$log" "diskdump: $t: not a configured dump partition" "no reason given for refusing to remove $t"
done <"$WORK/out/unplugged.txt"
grep -Eq "^$kept [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump.txt" || fail "$kept was disarmed too"
grep -Eq "Oops|BUG:|WARNING:|general protection" "$WORK/serial1.log" && fail "the kernel oopsed or warned in boot 1"
[ "$(grep -c "diskdump: trying partition" "$log")" = 1 ] || fail "the dump tried more than the one partition left"
[ "$(part_sum "$WORK/a.img" 1)" = "$sum_a" ] || fail "the removed AHCI disk changed"
[ "$(part_sum "$WORK/n1.img" 1)" = "$sum_n1" ] || fail "the removed NVMe disk changed"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 1
note "$(sed -n 's/^\([a-z0-9]*\) .*/\1/p' "$WORK/out/unplugged.txt" | tr '\n' ' ')disarmed as their disks went away, removes of their dev_t refused; the dump on $kept, the removed disks byte-identical"
