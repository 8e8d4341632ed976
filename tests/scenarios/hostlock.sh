# Two HBAs: sda1 behind host 0, sdb1 behind host 1.  Once memory is filled a
# CPU takes host 0's lock and never lets go (a test hook in scsi_dump), then
# the other CPU panics.  sanity_check must refuse sda1, which stays
# byte-identical, and the dump must go to sdb1 on the other HBA.
SMP=2
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/b.img" 300
host_format "$WORK/a.img" 1
host_format "$WORK/b.img" 1
sum_a=$(part_sum "$WORK/a.img" 1)
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=hostlock dddevs=/dev/sda1,/dev/sdb1" \
	$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0) \
	$(scsi_hba 1) $(scsi_hd "$WORK/b.img" scsi1 0)
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$log" "test: CPU [0-9]+ holds the lock of host 0 for good" "the lock was not taken"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried first"
expect_log "$log" "scsi_dump: host 0: host lock is held" "sanity_check did not see the held lock"
expect_log "$log" "diskdump: sanity check failed \(-16\)" "sda1 was not refused"
expect_log "$log" "trying partition 8:17 " "sdb1 was not tried next"
[ "$(part_sum "$WORK/a.img" 1)" = "$sum_a" ] || fail "sda1 changed"
note "sda1 refused, byte-identical"
check_saved_dump "sysrq triggered crash" 2
grep -qx "device: /dev/sdb1" "$(dirname "$(the_vmcore)")/info" || fail "the dump is not from sdb1"
