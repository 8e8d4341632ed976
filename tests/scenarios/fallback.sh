# Three partitions, armed in order: sda1 never formatted, sda2 formatted and
# then overwritten by mkfs.ext4, sda3 formatted.  diskdump must refuse the
# first two, leaving them byte-identical (and sda2 fsck-clean), and dump to
# sda3.
mk_dump_disk "$WORK/dump.img" 400 8 64 300
head -c 8M /dev/urandom | dd of="$WORK/p1" status=none
part_in "$WORK/dump.img" 1 "$WORK/p1"
host_format "$WORK/dump.img" 2
host_mkfs "$WORK/dump.img" 2
host_format "$WORK/dump.img" 3
sum1=$(part_sum "$WORK/dump.img" 1)
sum2=$(part_sum "$WORK/dump.img" 2)
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=armonly ddmib=8 dddevs=/dev/sda1,/dev/sda2,/dev/sda3" \
	$(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/serial.log
expect_log "$log" "trying partition 8:1" "sda1 was not tried first"
expect_log "$log" "block 0 is not a formatted dump block" "a foreign partition was not refused"
[ "$(grep -c 'block 0 is not a formatted dump block' "$log")" = 2 ] || fail "sda1 and sda2 were not both refused"
expect_log "$log" "trying partition 8:3" "sda3 was not tried"
expect_log "$log" "dump complete" "no dump on sda3"
[ "$(part_sum "$WORK/dump.img" 1)" = "$sum1" ] || fail "sda1 changed"
[ "$(part_sum "$WORK/dump.img" 2)" = "$sum2" ] || fail "the ext4 file system on sda2 changed"
host_fsck "$WORK/dump.img" 2 || { cat "$WORK/fsck.txt"; fail "sda2 is not fsck-clean"; }
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 >"$WORK/check.txt" ||
	{ cat "$WORK/check.txt"; fail "the vmcore from sda3"; }
note "sda1 (random bytes) and sda2 (ext4) refused and byte-identical, sda2 fsck-clean; dump on sda3 checked"
