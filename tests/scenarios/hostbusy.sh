# Two HBAs, a.img's partition behind host 0 (armed first), b.img's behind
# host 1.  Once memory is filled, a CPU holds host 0's lock 1 ms at a time
# and lets go for 5 us in between (a test hook in scsi_dump), as a host
# busy with I/O; then the other CPU panics.  An NMI that stops that CPU
# lands, 99% of the time, while it holds the lock: the panic CPU must park
# it first with an IPI, which it takes only with interrupts on, outside the
# lock, so that host 0 can still be used, and the dump must go to host 0's
# partition.  Without the hypervisor CPUID bit the guest uses the native
# queued spinlock, as on hardware (not the test-and-set lock of guests).
SMP=2
mk_dump_disk "$WORK/a.img" 300
mk_dump_disk "$WORK/b.img" 300
host_format "$WORK/a.img" 1
host_format "$WORK/b.img" 1
sum_b=$(part_sum "$WORK/b.img" 1)
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=hostbusy dddevs=/dev/sda1,/dev/sdb1" \
	$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0) \
	$(scsi_hba 1) $(scsi_hd "$WORK/b.img" scsi1 0) -cpu qemu64,-hypervisor
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
maps=$(grep -aoE 'GUEST: host 0: /dev/sd[a-z]1 [0-9]+:[0-9]+; host 1: /dev/sd[a-z]1 [0-9]+:[0-9]+' "$log")
[ "$(echo "$maps" | wc -l)" = 2 ] || fail "the guest did not say which partition is behind which host in both boots"
read -r _ _ _ h0 h0dev _ _ h1 _ <<<"$(echo "$maps" | head -1 | tr ';' ' ')"
read -r _ _ _ h0b _ <<<"$(echo "$maps" | tail -1 | tr ';' ' ')"
expect_log "$log" "test: CPU [0-9]+ holds the lock of host 0 1 ms at a time" "the lock was not taken"
expect_log "$log" "trying partition $h0dev " "$h0 (host 0) was not tried first"
grep -q "scsi_dump: host 0: host lock is held" "$log" && fail "a CPU was stopped holding host 0's lock: $h0 refused"
grep -q "not parked in" "$log" && fail "the busy CPU was not parked"
[ "$(part_sum "$WORK/b.img" 1)" = "$sum_b" ] || fail "the partition behind host 1 was written"
DUMPDEV=$h0b check_saved_dump "sysrq triggered crash" 2
grep -qx "device: $h0b" "$(dirname "$(the_vmcore)")/info" || fail "the dump is not from $h0b, behind host 0"
note "host 0's lock busy on the other CPU: the dump went to $h0 ($h0dev), $h1 untouched"
