# Four CPUs, three of them busy in kernel code: all four register sets saved.
SMP=4
dump_scenario ddtest=dump-smp4 ddmib=16 ddtrigger=sysrq
check_saved_dump "sysrq triggered crash" 4
check_gdb
check_readers "sysrq triggered crash" ddpattern 4 "__handle_sysrq|sysrq_handle_crash"
[ "$(grep -cE "^[* ] +[0-9]+ +LWP" "$WORK/gdb.txt")" = 4 ] || fail "gdb does not show four threads"
