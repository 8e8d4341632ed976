# Two HBAs, a.img's partition behind host 0 (armed first), b.img's behind
# host 1.  Once memory is filled, a CPU holds host 0's lock 1 ms at a time
# and lets go for 5 us in between (a test hook in scsi_dump), as a host
# busy with I/O; then the other CPU panics.  An NMI that stops that CPU
# lands, 99% of the time, while it holds the lock: the panic CPU must park
# it first with an IPI, which it takes only with interrupts on, outside the
# lock, so that host 0 can still be used, and the dump must go to host 0's
# partition.  Without the hypervisor CPUID bit the guest uses the native
# queued spinlock, as on hardware (not the test-and-set lock of guests).
two_hosts_run ddtest=hostbusy -cpu qemu64,-hypervisor
log=$WORK/serial.log
expect_log "$log" "scsi_dump_test: CPU [0-9]+ holds the lock of host 0 1 ms at a time" "the lock was not taken"
expect_log "$log" "trying partition $H0DEV " "$H0 (host 0) was not tried first"
grep -q "scsi_dump: host 0: host lock is held" "$log" && fail "a CPU was stopped holding host 0's lock: $H0 refused"
grep -q "not parked in" "$log" && fail "the busy CPU was not parked"
[ "$(part_sum "$WORK/b.img" 1)" = "$SUM_B" ] || fail "the partition behind host 1 was written"
DUMPDEV=$H0B check_saved_dump "sysrq triggered crash" 2
grep -qx "device: $H0B" "$(dirname "$(the_vmcore)")/info" || fail "the dump is not from $H0B, behind host 0"
note "host 0's lock busy on the other CPU: the dump went to $H0 ($H0DEV), $H1 untouched"
