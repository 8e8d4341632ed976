# savecore saves the dump, marks the header saved, then its re-format of
# the partition fails part way (blkdebug fails every write to block 2000 of
# sda1 in boot 2).  Blocks are formatted block 0 last, so block 0 must
# still hold the (saved) dump header: the partition is neither armed nor
# mistaken for an empty one, and the next boot (no error) finishes the
# format without saving the dump twice, and arms it.
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 900
read -r start _ < <(part_geom "$WORK/dump.img" 1)
blkdebug_write_error "$((start + 2000 * 8))" >"$WORK/blkdebug.conf"
# (every write there fails: the guest's SCSI layer retries a failed write)
faulty="file.driver=blkdebug,file.config=$WORK/blkdebug.conf,file.image.filename=$WORK/dump.img"
run_qemu "$WORK/serial1.log" "ddmib=8" $(scsi_disk "$WORK/dump.img") -no-reboot
run_qemu "$WORK/serial2.log" "ddmib=8" -device lsi53c895a,id=scsi0 \
	$(scsi_hd "$WORK/dump.img" scsi0 0 "$faulty") -no-reboot
log=$WORK/serial2.log
expect_log "$WORK/serial1.log" "diskdump: dump complete" "boot 1 wrote no dump"
expect_log "$log" "savecore: saved a complete dump" "boot 2 did not save the dump"
expect_log "$log" "could not be formatted again" "savecore did not report the failed re-format"
expect_log "$log" "diskdump: savecore failed on /dev/sda1 \(see above\)" "diskdumpctl did not say so"
expect_log "$log" "diskdump: /dev/sda1: not arming it" "diskdumpctl armed a partition that still holds a dump"
grep -q "diskdump: /dev/sda1 armed" "$log" && fail "sda1 was armed after the failed re-format"
part_out "$WORK/dump.img" 1 "$WORK/p1"
[ "$(head -c 8 "$WORK/p1")" = DDUMPHDR ] || fail "block 0 no longer holds the dump header after the failed re-format"
part_state "$WORK/p1" 6 saved "after the failed re-format"
extract_out
[ "$(find "$WORK/out/crash" -name vmcore | wc -l)" = 1 ] || fail "boot 2 did not save exactly one vmcore"
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 >"$WORK/check.txt" ||
	{ cat "$WORK/check.txt"; fail "the vmcore saved in boot 2"; }
note "boot 2: dump saved ($(grep '^pattern:' "$WORK/check.txt")), re-format failed at block 2000, block 0 the header marked saved, not armed"

run_qemu "$WORK/serial3.log" "ddmib=8" $(scsi_disk "$WORK/dump.img") -no-reboot
log=$WORK/serial3.log
expect_log "$log" "the dump was saved before; formatting the partition again" "boot 3 did not finish the format"
grep -q "savecore: saved a" "$log" && fail "boot 3 saved the dump a second time"
expect_log "$log" "formatted for the next dump" "boot 3 did not format the partition"
expect_log "$log" "diskdump: /dev/sda1 armed" "boot 3 did not arm sda1"
part_out "$WORK/dump.img" 1 "$WORK/p1"
part_state "$WORK/p1" 3 empty "after boot 3, the partition is not wholly formatted"
extract_out
[ "$(find "$WORK/out/crash" -name vmcore | wc -l)" = 1 ] || fail "more than one vmcore after boot 3"
note "boot 3: format finished (no second save), every block formatted (savecore -c: state empty), armed"
