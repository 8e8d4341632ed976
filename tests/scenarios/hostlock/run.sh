# Two HBAs, a.img's partition behind host 0, b.img's behind host 1.  Once
# memory is filled a CPU takes host 0's lock and never lets go (a test hook
# in scsi_dump), then the other CPU panics.  sanity_check must refuse host
# 0's partition, which stays byte-identical, and the dump must go to the
# one on the other HBA.
two_hosts_run ddtest=hostlock
log=$WORK/serial.log
expect_log "$log" "scsi_dump_test: CPU [0-9]+ holds the lock of host 0 for good" "the lock was not taken"
expect_log "$log" "diskdump: CPUs [0-9]+ not parked in 100 ms: stopped where they are" \
	"the CPU that holds the lock with interrupts off was not reported unparked"
expect_log "$log" "trying partition $H0DEV " "$H0 (host 0) was not tried first"
expect_log "$log" "scsi_dump: host 0: host lock is held" "sanity_check did not see the held lock"
expect_log "$log" "diskdump: sanity check failed \(-16\)" "$H0 was not refused"
expect_log "$log" "trying partition $H1DEV " "$H1 (host 1) was not tried next"
[ "$(part_sum "$WORK/a.img" 1)" = "$SUM_A" ] || fail "the partition behind host 0 changed"
note "boot 1: host 0 $H0 ($H0DEV) refused, byte-identical; host 1 $H1 ($H1DEV)"
DUMPDEV=$H1B check_saved_dump "$HOLD_PANIC" 2
grep -qx "device: $H1B" "$(dirname "$(the_vmcore)")/info" || fail "the dump is not from $H1B, behind host 1"
