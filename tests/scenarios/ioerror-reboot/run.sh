# One partition, and every write of its block 3000 fails (QEMU's blkdebug),
# with panic=0, Debian's default, under which panic() alone never reboots.
# The dump stops at the error with a final header saying incomplete /
# io-error; the partition holds part of a dump, so "reboot auto" must
# reboot at once (before the fix it did only for a complete dump: QEMU
# timeout), and boot 2 saves what was written.
mk_dump_disk "$WORK/a.img" 300
host_format "$WORK/a.img" 1
read -r start _ < <(part_geom "$WORK/a.img" 1)
blkdebug_write_error "$((start + 3000 * 8))" >"$WORK/blkdebug.conf"
mk_out_disk "$WORK/out.img" 700
QEMU_TIMEOUT=240
run_qemu "$WORK/serial.log" "ddtest=armonly dddevs=/dev/sda1 panic=0" \
	$(scsi_hba 0) \
	$(scsi_hd "$WORK/a.img" scsi0 0 "file.driver=blkdebug,file.config=$WORK/blkdebug.conf,file.image.filename=$WORK/a.img")
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$log" "diskdump: dump failed \(-5\) after [0-9]+ pages" "the write error did not stop the dump"
expect_log "$log" "diskdump: no partition took the dump whole" "diskdump did not say the dump is not whole"
expect_log "$log" "diskdump: rebooting at once" "no reboot at once after a partial dump (panic=0)"
expect_log "$log" "GUEST: boot 2" "the guest did not boot again"
ia=$(info_of /dev/sda1)
info_is "$ia" status incomplete
info_is "$ia" flags io-error
info_is "$ia" partial yes
saved=$(grep '^saved_pages:' "$ia" | cut -d' ' -f2)
[ "$saved" -gt $((3000 - 256 - 16)) ] && [ "$saved" -lt 3000 ] || fail "$saved pages saved, expected just under 3000"
python3 tests/check-vmcore.py "$(dirname "$ia")/vmcore" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	--allow-missing --expect-partial --min-match 0 >"$WORK/check.txt" || { cat "$WORK/check.txt"; fail "the partial vmcore"; }
note "sda1: incomplete, io-error, rebooted at once, $saved pages saved; $(grep '^pattern:' "$WORK/check.txt")"
