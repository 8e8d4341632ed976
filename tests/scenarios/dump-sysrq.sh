# sysrq-c panic on one CPU: the whole cycle, checked byte by byte.
dump_scenario ddtest=sysrq ddmib=16 ddtrigger=sysrq
check_saved_dump "sysrq triggered crash" 1
grep -Eq "^timers_run: [1-9]" "$(dirname "$(the_vmcore)")/info" ||
	fail "the sym53c8xx timer never ran during the dump"
note "$(grep timers_run: "$(dirname "$(the_vmcore)")/info")"
check_gdb
check_dmesg "sysrq triggered crash"
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
