# Review 5 (#33 item 4): an oops in the driver of the first partition
# tried (a1, behind host 0), once it is quiesced and before anything is
# written to it (test hook: a bad pointer), with Debian's panic_on_oops=0.
# The nested panic must go on: pass over a2 (same disk) and c1 (another
# disk on the same HBA), whose driver state is unknown, shelve the timers
# that host 0's quiesce armed, and dump whole to b1 on the other HBA, with
# the first panic's message.  a1, a2 and c1 stay byte-identical.  Before,
# the nested panic gave up: no dump at all, though b1 was armed.
SPLATS_OK='BUG: kernel NULL pointer dereference|Oops: '
SMP=2
mk_dump_disk "$WORK/a.img" 100 40 40
mk_dump_disk "$WORK/c.img" 64
mk_dump_disk "$WORK/b.img" 300
host_format "$WORK/a.img" 1
host_format "$WORK/a.img" 2
host_format "$WORK/c.img" 1
host_format "$WORK/b.img" 1
SUM_A=$(sha256sum <"$WORK/a.img")
SUM_C=$(sha256sum <"$WORK/c.img")
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=oops-next dddevs=/dev/sda1,/dev/sdb1,/dev/sdc1" \
	$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0) $(scsi_hd "$WORK/c.img" scsi0 1) \
	$(scsi_hba 1) $(scsi_hd "$WORK/b.img" scsi1 0)
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
host_maps
log=$WORK/serial.log
read -r A2 A2DEV C1 C1DEV <<<"$(grep -aoE 'GUEST: host 0 too: .*' "$log" | head -n1 | tr -d '\r' | cut -d' ' -f5-)"
[ -n "$C1DEV" ] || fail "the guest did not say where a2 and c1 are"
expect_log "$log" "trying partition $H0DEV " "a1 (host 0) was not tried first"
expect_log "$log" "diskdump: test: dereferencing a bad pointer before writing" "the hook did not oops"
expect_log "$log" "BUG: kernel NULL pointer dereference" "no oops"
expect_log "$log" "Kernel panic - not syncing: Fatal exception" "the oops did not panic again"
expect_log "$log" "diskdump: partition $H0DEV's driver failed before writing: going on to the next partition \([0-9]+ bytes of stack left\)" \
	"the nested panic did not go on to the next partition"
expect_log "$log" "diskdump: [1-9][0-9]* timers and [0-9]+ tasklets of the failed driver shelved" \
	"host 0's timers were not shelved"
for d in "$A2DEV" "$C1DEV"; do
	grep -q "trying partition $d " "$log" && fail "partition $d, behind the HBA whose driver oopsed, was tried"
done
expect_log "$log" "trying partition $H1DEV " "b1 (host 1) was not tried after the oops"
grep -q "diskdump: panic during the dump: giving up" "$log" && fail "the nested panic gave the dump up"
[ "$(sha256sum <"$WORK/a.img")" = "$SUM_A" ] || fail "a.img (a1, a2), behind the HBA whose driver oopsed, changed"
[ "$(sha256sum <"$WORK/c.img")" = "$SUM_C" ] || fail "c.img (c1), behind the HBA whose driver oopsed, changed"
left=$(grep -aoE 'going on to the next partition \([0-9]+ bytes' "$log" | grep -oE '[0-9]+' | head -n1)
note "a1 ($H0DEV) oopsed before writing; a2 ($A2DEV), c1 ($C1DEV) passed over; a.img, c.img byte-identical; $(grep -aoE '[0-9]+ timers and [0-9]+ tasklets of the failed driver shelved' "$log" | head -n1); $left bytes of stack left"
# the panic message is the first panic's, not the oops's "Fatal exception"
DUMPDEV=$H1B check_saved_dump "sysrq triggered crash" 2
grep -qx "device: $H1B" "$(dirname "$(the_vmcore)")/info" || fail "the dump is not from $H1B, behind host 1"
