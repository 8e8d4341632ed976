# A machine being traced: the function tracer on every function and a
# kprobe set, then sysrq c.  ftrace rewrites function entries, so the self
# check refused to dump on any traced machine; the panic path now lives in
# .diskdump.text, never traced (its files are built without the ftrace
# flags) and refused to kprobes, and the self check covers that section
# whole.  (selfcheck still shows one changed byte refused.)
dump_scenario "ddtest=traced ddmib=4"
log=$WORK/serial.log
expect_log "$log" "GUEST: traceable panic-path functions: 0" "panic-path functions can be traced"
expect_log "$log" "GUEST: start_disk_dump in kallsyms: 1" "no start_disk_dump symbol: the kprobe test proves nothing"
expect_log "$log" "GUEST: kprobe on start_disk_dump: refused" "a kprobe could be set in the panic path"
expect_log "$log" "GUEST: kprobe on vfs_read: set" "no kprobe elsewhere: the test proves nothing"
expect_log "$log" "GUEST: tracer: function, [0-9]{4,} functions traced" "the function tracer is not on"
grep -q "checksum of diskdump code and data changed" "$log" && fail "the self check refused a traced machine"
check_saved_dump "sysrq triggered crash" 1
note "$(grep -o 'tracer: function, [0-9]* functions traced' "$log" | head -1); $(grep -o 'dump complete.*' "$log" | head -1)"
