# Hot-unplug while armed, behind QEMU's Intel IOMMU (strict).  A is sda1 on
# q35's AHCI, B and C partitions on two NVMe controllers.  B and C are
# armed; A is being armed, held for 3 s with its partition claimed (test
# hook slowadd), when the guest takes the AHCI function off its PCI bus;
# then B's controller.  That unbinds their drivers as a hot-unplug does.
# Each removed disk's partition must be disarmed while its driver and
# device are still there: scsi_dump unmaps its buffer through the IOMMU
# before sd stops the disk, nvme-pci deletes its dump queue; A's, armed
# only once the removal had begun, too.  Both are off /proc/diskdump at
# once, and a "remove" of their dev_t afterwards is refused.  The crash
# then dumps to C.  Boot 2 is a fresh QEMU with only C's disk.
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/n1.img" 300
mk_dump_disk "$WORK/n2.img" 300
sfdisk -q --disk-id "$WORK/a.img" 0xdd000001
sfdisk -q --disk-id "$WORK/n1.img" 0xdd000002
sfdisk -q --disk-id "$WORK/n2.img" 0xdd000003
for f in a n1 n2; do host_format "$WORK/$f.img" 1; done
mk_out_disk "$WORK/out.img" 700
nvme2="-drive file=$WORK/n2.img,if=none,format=raw,id=dn2 -device nvme,serial=diskdump2,drive=dn2"
disks1="-drive file=$WORK/a.img,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ide.0
	-drive file=$WORK/n1.img,if=none,format=raw,id=dn1 -device nvme,serial=diskdump1,drive=dn1
	$nvme2"
IOMMU=strict two_qemus "ddtest=unplug dddevs=/dev/nvme0n1p1" "$disks1" "$nvme2"
log=$WORK/serial.log
l1=$WORK/serial1.log
pci=$(grep -o "nvme nvme0: pci function [0-9a-f:.]*" "$WORK/out/dmesg-boot2.txt" | head -1 | awk '{print $NF}' || true)
[ -n "$pci" ] || fail "no nvme PCI function in the kernel log"
check_iommu strict "$pci"
grep -q "intel_iommu=on iommu.strict=1" "$l1" || fail "boot 1 did not run with the strict IOMMU"
kept=$(sed -n 's/.*unplug: kept \([a-z0-9]*\).*/\1/p' "$l1" | head -1)
[ -n "$kept" ] || fail "the guest did not name the partition it kept"
grep -q "unplug: removing .* failed\|unplug: .* is still there\|test hook slowadd failed" "$l1" &&
	fail "a PCI function was not removed, or the slowadd hook failed"
[ "$(wc -l <"$WORK/out/unplugged.txt" 2>/dev/null)" = 2 ] || fail "not two partitions removed"
# partition, dev_t, disk, the disk's device (SCSI device or NVMe controller)
read -r pa _ disk_a dev_a < <(sed -n 1p "$WORK/out/unplugged.txt")
read -r pb _ _ dev_b < <(sed -n 2p "$WORK/out/unplugged.txt")
[ -n "$dev_a" ] && [ -n "$dev_b" ] || fail "the guest did not note the removed disks' devices"
# at PATTERN [FILE]: the number of the first line of FILE (boot 1's
# console; boot 1's kernel log with its info messages if "dmesg") that
# matches PATTERN, or nothing
at() {
	local f=$l1
	[ "${2:-}" = dmesg ] && f=$WORK/out/dmesg-boot1.txt
	grep -En "$1" "$f" | head -1 | cut -d: -f1 || true
}
[ -s "$WORK/out/dmesg-boot1.txt" ] || fail "boot 1 saved no kernel log"
# A: the removal began while "add" held the partition claimed
slow=$(at "diskdump: test: adding slowly")
rm_a=$(at "GUEST: unplug: removing $pa ")
[ -n "$slow" ] && [ -n "$rm_a" ] && [ "$slow" -lt "$rm_a" ] ||
	fail "the removal of $pa did not begin while it was being added"
expect_log "$l1" "unplug: add $pa ended: armed" "the add of $pa, held while its disk was removed, was refused: the race was not run"
# del_gendisk() had begun (the disk unhashed) while the add held dd_mutex:
# its mark_dead waited for the add to end
expect_log "$l1" "diskdump: test: slow add done, its disk deleted meanwhile" \
	"$pa's disk was not being deleted while it was being added: the race was not run"
# each removed disk: disarmed as it went, its driver's state released
# before the driver tore the device down
gone_a=$(at "diskdump: $pa: its disk is going away: no longer a dump partition" dmesg)
added_a=$(at "diskdump: PARTUUID=dd000001-01: dump partition added" dmesg)
unmapped=$(at "sd $dev_a: dump buffer unmapped" dmesg)
stopped=$(at "sd $dev_a: \[$disk_a\] Synchronizing SCSI cache" dmesg)
[ -n "$gone_a" ] || fail "$pa was not disarmed when its disk went away"
[ -n "$added_a" ] && [ "$added_a" -lt "$gone_a" ] || fail "$pa was not disarmed after its add ended"
[ -n "$unmapped" ] && [ "$unmapped" -gt "$gone_a" ] || fail "scsi_dump did not unmap $pa's buffer as it was disarmed"
[ -n "$stopped" ] && [ "$unmapped" -lt "$stopped" ] || fail "$pa's buffer was not unmapped before sd stopped the disk"
gone_b=$(at "diskdump: $pb: its disk is going away: no longer a dump partition" dmesg)
deleted=$(at "nvme $dev_b: dump queue [0-9]+ deleted" dmesg)
[ -n "$gone_b" ] || fail "$pb was not disarmed when its disk went away"
[ -n "$deleted" ] && [ "$deleted" -gt "$gone_b" ] || fail "nvme-pci did not delete $pb's dump queue as it was disarmed"
grep -q "dump queue [0-9]* not deleted" "$l1" && fail "a dump queue could not be deleted"
while read -r p t _; do
	grep -Eq "^$p [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump.txt" && fail "$p is still armed after its disk went away"
	expect_log "$l1" "unplug: remove $t \\($p\\) refused" "removing $p ($t) after its disk went away was not refused"
	expect_log "$l1" "diskdump: $t: not a configured dump partition" "no reason given for refusing to remove $t"
done <"$WORK/out/unplugged.txt"
grep -Eq "^$pb [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump-armed.txt" || fail "$pb was not armed before its removal"
grep -Eq "^$pa [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump-armed.txt" && fail "$pa is still armed once its disk is gone"
expect_log "$WORK/out/dmesg-boot1.txt" "0000:00:1f.2: Adding to iommu group" "the AHCI function was not behind the IOMMU in boot 1"
grep -Eq "^$kept [0-9]+ [0-9]+$" "$WORK/out/proc-diskdump.txt" || fail "$kept was disarmed too"
grep -Eq "Oops|BUG:|WARNING:|general protection|INFO: task" "$l1" && fail "the kernel oopsed, warned or hung a task in boot 1"
[ "$(grep -c "diskdump: trying partition" "$log")" = 1 ] || fail "the dump tried more than the one partition left"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 1
note "$pa (armed while its AHCI function was being removed) and $pb disarmed as their disks went away: buffer unmapped before sd stopped the disk, dump queue deleted; removes of their dev_t refused; the dump on $kept"
