# An NVMe write of pages that fails: QEMU's blkdebug fails the write of
# block 1500 of nvme0n1p1 once.  The dump queue writes the pages from where
# they are, several commands in flight; the failed write must be done again
# from copies, and the dump complete with every pattern page right.  The
# partition is formatted on the host, so that the guest's formatting does
# not meet the error first.  Boot 2 is a fresh QEMU (see the nvme scenario).
mk_dump_disk "$WORK/dump.img" 300
host_format "$WORK/dump.img" 1
read -r start _ < <(part_geom "$WORK/dump.img" 1)
blkdebug_write_error "$((start + 1500 * 8))" once >"$WORK/blkdebug.conf"
mk_out_disk "$WORK/out.img" 700
nvme="-device nvme,serial=diskdump0,drive=dd0 -drive if=none,format=raw,id=dd0"
two_qemus "ddtest=armonly ddmib=16 ddtrigger=sysrq dddevs=/dev/nvme0n1p1" \
	"$nvme,file.driver=blkdebug,file.config=$WORK/blkdebug.conf,file.image.filename=$WORK/dump.img" \
	"$nvme,file=$WORK/dump.img"
log=$WORK/serial.log
grep -Eo 'nvme_dump: write of blocks [0-9]+-[0-9]+ failed \(status 0x[0-9a-f]+\): writing them again from a copy' "$log" \
	>"$WORK/rewrites.txt" || true
[ "$(wc -l <"$WORK/rewrites.txt")" = 1 ] || { cat "$WORK/rewrites.txt"; fail "wanted one write done again from copies"; }
IFS=- read -r lo hi < <(grep -Eo '[0-9]+-[0-9]+' "$WORK/rewrites.txt")
[ "$lo" -le 1500 ] && [ 1500 -le "$hi" ] || fail "the write done again was of blocks $lo-$hi, not block 1500's"
expect_log "$log" "nvme_dump: [0-9]+ writes of pages, up to [2-9] in flight" "never more than one write in flight"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 1
check_direct direct
note "$(cat "$WORK/rewrites.txt"); $(grep -Eo 'nvme_dump: [0-9]+ writes of pages, up to [0-9]+ in flight' "$log" | head -1)"
