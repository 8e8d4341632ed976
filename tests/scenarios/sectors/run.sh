# One 512-byte sector written over, after arming, in each of five formatted
# partitions: random bytes in the first sector of a block (sda1), zeros in
# a middle sector (sda2) and in the last sector of a block (sda3), random
# bytes in the partition's last sector (sdb1), zeros in the first sector of
# block 0 (sdb2).  The panic-time check must refuse each, naming the block
# and the byte, and dump to sdb3; after the whole cycle (savecore, re-arm)
# every damaged partition is byte for byte its formatted image plus the one
# sector the guest wrote, and no dump was saved from it; boot 2 refuses to
# arm the two whose first or last block was hit.  Every partition holds
# the whole dump (272 MiB, 256 MiB of RAM at level 0): one too small would
# be passed over for a whole dump elsewhere, and never checked.
mk_dump_disk "$WORK/a.img" 830 272 272 272
mk_dump_disk "$WORK/b.img" 830 272 272 272
for p in 1 2 3; do host_format "$WORK/a.img" $p; host_format "$WORK/b.img" $p; done
for p in 1 2 3; do
	part_out "$WORK/a.img" $p "$WORK/fmt-sda$p"
	part_out "$WORK/b.img" $p "$WORK/fmt-sdb$p"
done
last=$(( $(stat -c %s "$WORK/fmt-sdb1") / 512 - 1 ))
# DEV:SECTOR:KIND, and the message the kernel must give for it
specs="/dev/sda1:8000:random /dev/sda2:16003:zero /dev/sda3:24007:zero /dev/sdb1:$last:random /dev/sdb2:0:zero"
want=("block 1000 is not a formatted dump block (byte 0 differs)"
      "block 2000 is not a formatted dump block (byte 1536 differs)"
      "block 3000 is not a formatted dump block (byte 3584 differs)"
      "block $(( last / 8 )) is not a formatted dump block (byte 3584 differs)"
      "block 0 is not a formatted dump block (byte 0 differs)")
mk_out_disk "$WORK/out.img" 700
DUMPDEV=/dev/sdb3
run_qemu "$WORK/serial.log" \
	"ddtest=sectors ddmib=8 dddevs=/dev/sda1,/dev/sda2,/dev/sda3,/dev/sdb1,/dev/sdb2,/dev/sdb3 ddsect=$(echo $specs | tr ' ' ,)" \
	$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0) $(scsi_hd "$WORK/b.img" scsi0 1)
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
i=0
for spec in $specs; do
	dev=${spec%%:*} sect=$(echo "$spec" | cut -d: -f2)
	name=$(basename "$dev")
	expect_log "$log" "GUEST: wrote [a-z]+ over sector $sect of $dev" "$dev was not damaged as planned"
	grep -qF "diskdump: ${want[$i]}: not writing here" "$log" ||
		{ grep 'diskdump:' "$log" | tail -30 >&2; fail "$dev: no refusal '${want[$i]}'"; }
	# the formatted image with the guest's sector in it, and nothing else
	cp "$WORK/fmt-$name" "$WORK/expect"
	dd if="$WORK/out/damage-$name.bin" of="$WORK/expect" bs=512 seek="$sect" conv=notrunc status=none
	cmp -s "$WORK/fmt-$name" "$WORK/expect" && fail "$dev: the damage is not a change (the format has a sector of zeros?)"
	disk=$WORK/a.img; [ "${name:2:1}" = b ] && disk=$WORK/b.img
	[ "$(part_sum "$disk" "${name:3}")" = "$(sha256sum <"$WORK/expect" | cut -d' ' -f1)" ] ||
		fail "$dev is not its formatted image plus the guest's sector after the cycle"
	grep -qx "device: $dev" "$WORK"/out/crash/*/info 2>/dev/null && fail "a dump was saved from $dev"
	i=$((i + 1))
done
[ "$(grep -c 'is not a formatted dump block' "$log")" = 5 ] || fail "not exactly five refusals"
expect_log "$log" "trying partition 8:19 " "sdb3 was not tried"
check_saved_dump "sysrq triggered crash" 1
# boot 2: savecore reads block 0 only (sdb2's is zeros), the kernel reads
# the first and last blocks when arming (sdb1's last sector); damage in the
# middle is left to the panic-time check
expect_log "$log" "diskdump: /dev/sdb2 \(/dev/sdb2\) is not formatted for diskdump: not touching it" \
	"boot 2 did not refuse sdb2 (block 0 written over)"
expect_log "$log" "diskdump: /dev/sdb2: not arming it" "boot 2 armed sdb2"
expect_log "$log" "diskdump: sdb1 is not formatted for diskdump \(block $(( last / 8 )), byte 3584\): not arming it" \
	"boot 2: the kernel did not refuse to arm sdb1 (its last sector written over)"
note "5 damaged partitions refused at panic (block and byte named), byte-identical after the cycle; dump on sdb3"
