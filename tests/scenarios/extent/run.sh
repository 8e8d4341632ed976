# The panic-time check reads the blocks the dump will write and the
# partition's last block, not the whole partition.  sda1 (300 MiB, 76800
# blocks) has a sector of zeros written over at block 50000, after arming,
# far past what a level-23 dump of a 256 MiB guest writes (under 20000
# blocks).  The check must read only the dump's extent and the last block,
# not refuse sda1, dump there, and never write block 50000: after the
# whole cycle (dump, savecore's re-format of what the dump used) sda1 is
# byte for byte its formatted image plus the guest's sector.  Boot only
# reads what the dump used, so sda1 is armed again; "diskdumpctl verify",
# which reads every block (from a timer), names the damage.  Then the same
# under "check all", the 2004 behaviour: every block read at panic, sda1
# refused untouched with the block and the byte named, and the dump on
# sda2.  (sectors: damage inside a dump's extent refused.)
extent_setup() {
	mk_dump_disk "$WORK/a.img" 640 300 300
	host_format "$WORK/a.img" 1
	host_format "$WORK/a.img" 2
	part_out "$WORK/a.img" 1 "$WORK/fmt-sda1"
	part_out "$WORK/a.img" 2 "$WORK/fmt-sda2"
	mk_out_disk "$WORK/out.img" 700
	run_qemu "$WORK/serial.log" \
		"ddtest=sectors ddmib=8 ddlevel=23 ddverify=1 $1 dddevs=/dev/sda1,/dev/sda2 ddsect=/dev/sda1:400003:zero" \
		$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0)
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	extract_out
	expect_log "$WORK/serial.log" "GUEST: wrote zero over sector 400003 of /dev/sda1" "sda1 was not damaged as planned"
}

# extent_intact N: partition N is its formatted image plus the guest's sector.
extent_intact() {
	cp "$WORK/fmt-sda$1" "$WORK/expect"
	dd if="$WORK/out/damage-sda1.bin" of="$WORK/expect" bs=512 seek=400003 conv=notrunc status=none
	cmp -s "$WORK/fmt-sda$1" "$WORK/expect" && fail "the damage is not a change"
	[ "$(part_sum "$WORK/a.img" "$1")" = "$(sha256sum <"$WORK/expect" | cut -d' ' -f1)" ] ||
		fail "sda$1 is not its formatted image plus the guest's sector after the cycle"
	rm -f "$WORK/expect"
}

extent_setup ""
log=$WORK/serial.log
grep -q "is not a formatted dump block" "$log" && fail "the check refused sda1 for damage the dump would not write over"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
grep -q "trying partition 8:2 " "$log" && fail "the dump went on to sda2"
check_saved_dump "sysrq triggered crash" 1
# the blocks the kernel checked, as the header records them
checked=$(sed -n 's/^check_blocks: //p' "$(dirname "$(the_vmcore)")/info")
[ -n "$checked" ] || fail "info has no check_blocks"
[ "$checked" -lt 20000 ] || fail "the check read $checked of 76800 blocks: not the dump's extent"
expect_log "$log" "diskdump: /dev/sda1: damaged: .*block 50000 " "diskdumpctl verify did not find the damage at block 50000"
expect_log "$log" "diskdump: /dev/sda2: every block formatted" "diskdumpctl verify did not pass sda2"
info=$(dirname "$(the_vmcore)")/info
info_is "$info" device /dev/sda1
expect_log "$log" "signature check: $checked of 76800 blocks" "the console and the header disagree on the blocks checked"
extent_intact 1
[ "$(part_sum "$WORK/a.img" 2)" = "$(sha256sum <"$WORK/fmt-sda2" | cut -d' ' -f1)" ] || fail "sda2 was written"
note "$checked of 76800 blocks checked; dump on sda1; block 50000 untouched, then named by diskdumpctl verify"

# "check all": the same damage refuses sda1 at panic.
extent_setup "ddcheck=all"
log=$WORK/serial.log
expect_log "$log" "^# check: all" "check all was not set"
expect_log "$log" "diskdump: block 50000 is not a formatted dump block \(byte 1536 differs\): not writing here" \
	"check all did not refuse sda1 with the block and byte named"
expect_log "$log" "trying partition 8:2 " "sda2 was not tried"
DUMPDEV=/dev/sda2 check_saved_dump "sysrq triggered crash" 1
info_is "$(dirname "$(the_vmcore)")/info" check_blocks 76800
extent_intact 1
note "check all: sda1 refused at block 50000 byte 1536, byte-identical; dump on sda2"
