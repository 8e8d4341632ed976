# lsi53c895a (sym53c8xx_2) with commands in flight at the panic: two CPUs,
# the other one reading sda2 with O_DIRECT in a loop, the disk throttled so
# that the reader's commands wait in QEMU.  quiesce must see the busy CCBs
# and reset the bus (an idle chip is left alone: dump-sysrq), diskdump
# must run the driver's timer that ends the settle time, the dump must be
# complete, and sda2 (random bytes) must come out unchanged.
busy_scenario -device lsi53c895a,id=scsi0 -device scsi-hd,drive=dd0,bus=scsi0.0
log=$WORK/serial.log
expect_log "$log" "sym0: commands in flight: resetting the bus" "quiesce did not reset the bus with commands in flight"
check_saved_dump "sysrq triggered crash" 2
grep -Eq "^timers_run: [1-9]" "$(dirname "$(the_vmcore)")/info" ||
	fail "the sym53c8xx timer that ends the settle time never ran during the dump"
[ "$(part_sum "$WORK/dump.img" 2)" = "$SUM2" ] || fail "sda2 changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1); $(grep timers_run: "$(dirname "$(the_vmcore)")/info")"
