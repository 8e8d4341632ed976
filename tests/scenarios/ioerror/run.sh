# I/O errors part way through the dump, from QEMU's blkdebug on sda1: the
# write of block 1500 fails once, every write of block 3000 fails.  The
# first write of block 1500's batch (the HBA reading the pages where they
# are) fails, and is done again from copies: the dump goes on.  At block
# 3000 the second try fails too: diskdump must stop there, leave sda1 with
# a final header saying incomplete / io-error, and dump to sdb1 on another
# disk.  savecore saves both and says which is which.
blkdebug_pair_disks
read -r start _ < <(part_geom "$WORK/a.img" 1)
bad=$((start + 3000 * 8))
{
	blkdebug_write_error "$((start + 1500 * 8))" once
	blkdebug_write_error "$bad"
} >"$WORK/blkdebug.conf"
blkdebug_pair_run
log=$WORK/serial.log
expect_log "$log" "trying partition 8:1 " "sda1 was not tried first"
# two writes failed and were done again from copies: block 1500's batch
# (which then went through) and block 3000's (which failed again)
grep -Eo 'scsi_dump: write of blocks [0-9]+-[0-9]+ failed \(-5\): writing them again from a copy' "$log" |
	grep -Eo '[0-9]+-[0-9]+' >"$WORK/rewrites.txt" || true
[ "$(wc -l <"$WORK/rewrites.txt")" = 2 ] || { cat "$WORK/rewrites.txt"; fail "wanted two writes done again from copies"; }
n=0
for want in 1500 3000; do
	n=$((n + 1))
	IFS=- read -r lo hi < <(sed -n "${n}p" "$WORK/rewrites.txt")
	[ "$lo" -le "$want" ] && [ "$want" -le "$hi" ] || fail "rewrite $n was of blocks $lo-$hi, not of block $want's batch"
done
expect_log "$log" "diskdump: dump failed \(-5\) after [0-9]+ pages" "the write error did not stop the dump on sda1"
expect_log "$log" "trying partition 8:17 " "sdb1 was not tried after the error"
ia=$(info_of /dev/sda1)
info_is "$ia" status incomplete
info_is "$ia" flags io-error
info_is "$ia" partial yes
ib=$(info_of /dev/sdb1)
info_is "$ib" status complete
info_is "$ib" flags none
saved=$(grep '^saved_pages:' "$ia" | cut -d' ' -f2)
# pages from block 3000 on were never written: the error is in the batch
# that holds it, at most a batch under 3000 - data_block pages in
# (batches are of up to 256 blocks)
[ "$saved" -gt $((3000 - 256 - 16)) ] && [ "$saved" -lt 3000 ] || fail "sda1: $saved pages saved, expected just under 3000"
note "sda1: block 1500's batch written again from copies, then incomplete, io-error, $saved pages saved (error at block 3000)"
python3 tests/check-vmcore.py "$(dirname "$ib")/vmcore" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	>"$WORK/check.txt" || { cat "$WORK/check.txt"; fail "the vmcore from sdb1"; }
note "sdb1: $(grep '^pattern:' "$WORK/check.txt")"
