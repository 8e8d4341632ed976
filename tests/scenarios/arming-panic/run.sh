# A panic while a partition is being armed (the add takes seconds: test
# hook) must still dump to the partition armed before.  diskdump used to
# mark the whole add as a configuration change and refuse to dump at all.
# ddsdswap=1: the guest gives the disks their sd names in reverse order and
# then puts them back in SCSI address order with tests/guest/sd-order, which
# every guest runs (sd's probes are asynchronous, and a swap made the dump
# look lost).
SMP=2
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/b.img" 300
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=arming-panic ddmib=4 ddsdswap=1" \
	$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0) $(scsi_hd "$WORK/b.img" scsi0 1)
extract_out
log=$WORK/serial.log
[ "$(grep -c "sd-order: reversed: sdb sda" "$log")" = 2 ] || fail "the guest did not swap the sd names in both boots"
[ "$(grep -c "sd-order: now sda sdb" "$log")" = 2 ] || fail "sd-order did not put the names back in both boots"
expect_log "$log" "diskdump: test: adding slowly" "the slow add did not start"
expect_log "$log" "GUEST: crashing with sysrq while /dev/sdb1 is being armed" "no crash during the add"
grep -q "GUEST: add /dev/sdb1 returned" "$log" && fail "the add finished before the crash"
grep -q "configuration was being changed" "$log" && fail "diskdump refused: configuration being changed"
expect_log "$log" "diskdump: trying partition 8:1 " "diskdump did not try sda1"
check_saved_dump "sysrq triggered crash" 2
note "panic during a 3 s add of sdb1: dump on sda1; $(grep -o 'dump complete.*' "$log" | head -1)"
