# lsi53c895a (sym53c8xx_2) with commands in flight at the panic: two CPUs,
# the other one reading sdb1, a second disk on the same host, with O_DIRECT
# in two loops, that disk throttled so that each command waits in QEMU for
# 100-200 ms (with the reads on the dump disk itself, throttled to 200
# requests a second, the other CPU's interrupt handler could complete them
# all before it was parked).  quiesce must see the busy CCBs and reset the
# bus (an idle chip is left alone: dump-sysrq), diskdump must run the
# driver's timer that ends the settle time, the dump must be complete, and
# sdb1 (random bytes) must come out unchanged.
BUSY_SEPARATE=1 busy_scenario -device lsi53c895a,id=scsi0 -device scsi-hd,drive=dd0,bus=scsi0.0,scsi-id=0 \
	-device scsi-hd,drive=dd1,bus=scsi0.0,scsi-id=1
log=$WORK/serial.log
expect_log "$log" "sym0: commands in flight: resetting the bus" "quiesce did not reset the bus with commands in flight"
check_saved_dump "sysrq triggered crash" 2
grep -Eq "^timers_run: [1-9]" "$(dirname "$(the_vmcore)")/info" ||
	fail "the sym53c8xx timer that ends the settle time never ran during the dump"
[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sdb1 unchanged"
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1); $(grep timers_run: "$(dirname "$(the_vmcore)")/info")"
