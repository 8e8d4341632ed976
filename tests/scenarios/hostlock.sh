# Two HBAs, a.img's partition behind host 0, b.img's behind host 1.  Once
# memory is filled a CPU takes host 0's lock and never lets go (a test hook
# in scsi_dump), then the other CPU panics.  sanity_check must refuse host
# 0's partition, which stays byte-identical, and the dump must go to the
# one on the other HBA.
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
# the guest names the partitions behind host 0 and host 1, in each boot
# (sd's probes are asynchronous: sda is not always behind host 0)
maps=$(grep -aoE 'GUEST: host 0: /dev/sd[a-z]1 [0-9]+:[0-9]+; host 1: /dev/sd[a-z]1 [0-9]+:[0-9]+' "$log")
[ "$(echo "$maps" | wc -l)" = 2 ] || fail "the guest did not say which partition is behind which host in both boots"
read -r _ _ _ h0 h0dev _ _ h1 h1dev <<<"$(echo "$maps" | head -1 | tr ';' ' ')"
read -r _ _ _ _ _ _ _ h1b _ <<<"$(echo "$maps" | tail -1 | tr ';' ' ')"
expect_log "$log" "test: CPU [0-9]+ holds the lock of host 0 for good" "the lock was not taken"
expect_log "$log" "diskdump: CPUs [0-9]+ not parked in 100 ms: stopped where they are" \
	"the CPU that holds the lock with interrupts off was not reported unparked"
expect_log "$log" "trying partition $h0dev " "$h0 (host 0) was not tried first"
expect_log "$log" "scsi_dump: host 0: host lock is held" "sanity_check did not see the held lock"
expect_log "$log" "diskdump: sanity check failed \(-16\)" "$h0 was not refused"
expect_log "$log" "trying partition $h1dev " "$h1 (host 1) was not tried next"
[ "$(part_sum "$WORK/a.img" 1)" = "$sum_a" ] || fail "the partition behind host 0 changed"
note "boot 1: host 0 $h0 ($h0dev) refused, byte-identical; host 1 $h1 ($h1dev)"
DUMPDEV=$h1b check_saved_dump "sysrq triggered crash" 2
grep -qx "device: $h1b" "$(dirname "$(the_vmcore)")/info" || fail "the dump is not from $h1b, behind host 1"
