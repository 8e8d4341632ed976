# sysrq-c panic on one CPU: the whole cycle, checked byte by byte.  No
# command is in flight, so quiesce must not reset the bus (whose settle
# time cost 3 s): lsi-busy has the reset.
dump_scenario ddtest=sysrq ddmib=16 ddtrigger=sysrq
check_saved_dump "sysrq triggered crash" 1
check_direct direct
log=$WORK/serial.log
expect_log "$log" "sym0: no command in flight: no bus reset" "quiesce reset an idle bus"
ms=$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1 | grep -o '[0-9]* ms' | cut -d' ' -f1)
[ -n "$ms" ] && [ "$ms" -lt 500 ] || fail "quiesce took ${ms:-?} ms on an idle bus"
# quiesce re-arms the sym timer (which ends a settle under way) even then
grep -Eq "^timers_run: [1-9]" "$(dirname "$(the_vmcore)")/info" ||
	fail "the sym53c8xx timer never ran during the dump"
note "quiesced in $ms ms, no bus reset; $(grep timers_run: "$(dirname "$(the_vmcore)")/info")"
check_gdb
check_dmesg "sysrq triggered crash"
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
