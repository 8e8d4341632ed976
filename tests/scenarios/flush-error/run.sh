# The cache flush after the pages fails: QEMU's blkdebug on sda1 fails the
# disk's first flush.  The final header must not say complete.  It did:
# it was written before any flush, said COMPLETE, and the failed flush
# came after it, so a header that claims a whole dump could reach the
# medium when the pages did not.  Now the flush after the pages fails,
# sda1's final header says incomplete / io-error, and the dump goes on to
# sdb1 on another disk.
blkdebug_pair_disks
printf '[inject-error]\nevent = "flush_to_disk"\niotype = "flush"\nerrno = "5"\nonce = "on"\n' \
	>"$WORK/blkdebug.conf"
blkdebug_pair_run
log=$WORK/serial.log
expect_log "$log" "trying partition 8:1 " "sda1 was not tried first"
expect_log "$log" "diskdump: cache flush before the final header failed" \
	"the failed flush was not the one before the final header"
expect_log "$log" "trying partition 8:17 " "sdb1 was not tried after the failed flush"
ia=$(info_of /dev/sda1)
info_is "$ia" status incomplete
info_is "$ia" flags io-error
ib=$(info_of /dev/sdb1)
info_is "$ib" status complete
info_is "$ib" flags none
python3 tests/check-vmcore.py "$(dirname "$ib")/vmcore" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	>"$WORK/check.txt" || { cat "$WORK/check.txt"; fail "the vmcore from sdb1"; }
note "sda1: the flush after the pages failed, final header incomplete, io-error; sdb1: $(grep '^pattern:' "$WORK/check.txt")"
