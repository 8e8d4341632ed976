# Two partitions in the list: sda1 (64 MiB) too small for the dump (256 MiB
# of RAM at level 0), sda2 (300 MiB) large enough.  The dump must go whole
# to sda2 rather than truncated to sda1, the first in the list; sda1 is
# left as it was armed, formatted and empty.  (When no partition holds the
# dump whole, the first in the list takes it truncated: scenario
# truncated.)
mk_dump_disk "$WORK/dump.img" 400 64 300
mk_out_disk "$WORK/out.img" 700
DUMPDEV=/dev/sda2
run_qemu "$WORK/serial.log" "ddtest=wholefirst ddmib=16 dddevs=/dev/sda1,/dev/sda2" \
	$(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/serial.log
expect_log "$log" "diskdump: partition 8:1 holds [0-9]+ of the dump's [0-9]+ pages: trying the others for the whole dump first" \
	"the kernel did not pass over the partition too small for the whole dump"
grep -q "truncated: the partition is too small" "$log" && fail "the dump was truncated though sda2 holds it whole"
expect_log "$log" "trying partition 8:2 " "sda2 was not tried"
check_saved_dump "sysrq triggered crash" 1
part_out "$WORK/dump.img" 1 "$WORK/p1"
part_state "$WORK/p1" 3 empty "sda1 after the panic"
note "sda1 passed over ($(grep -Eo 'holds [0-9]+ of the dump.s [0-9]+ pages' "$log" | head -1)); whole dump on sda2; sda1 formatted and empty"
