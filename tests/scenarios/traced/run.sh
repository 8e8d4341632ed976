# A machine being traced: the function tracer on every function and a
# kprobe set, then sysrq c.  ftrace rewrites function entries, so the self
# check refused to dump on any traced machine; the panic path now lives in
# .diskdump.text, never traced (its files are built without the ftrace
# flags) and refused to kprobes, and the self check covers that section
# whole.  The HBA drivers' dump hooks (sym53c8xx's, libata's) are
# panic-path code too.  The NVMe driver is a module: its .diskdump.text
# must be on the kprobes blacklist too (register_kprobe() consults it;
# kprobe_events refuses every notrace function before that).  (selfcheck
# and selfcheck-module still show one changed byte refused.)
dump_scenario "ddtest=traced ddmib=4"
log=$WORK/serial.log
expect_log "$log" "GUEST: traceable panic-path functions: 0" "panic-path functions can be traced"
expect_log "$log" "GUEST: start_disk_dump in kallsyms: 1" "no start_disk_dump symbol: the kprobe test proves nothing"
expect_log "$log" "GUEST: kprobe on start_disk_dump: refused" "a kprobe could be set in the panic path"
expect_log "$log" "GUEST: kprobe on vfs_read: set" "no kprobe elsewhere: the test proves nothing"
expect_log "$log" "GUEST: nvme module loaded: 1" "the NVMe driver is not a loaded module"
expect_log "$log" "GUEST: kprobe on nvme_dump_rw_block: refused" "a kprobe could be set in a module's panic path"
expect_log "$log" "GUEST: kprobe on nvme_probe: set" "no kprobe elsewhere in the nvme module: the test proves nothing"
expect_log "$log" "GUEST: blacklisted: start_disk_dump 1, sym53c8xx_dump_poll 1, ata_scsi_dump_poll 1, nvme_dump_rw_block 1, nvme_dump_write_pages 1, nvme_probe 0" \
	"the panic path (core, HBA hooks, libata's, the nvme module's) is not all on the kprobes blacklist (or nvme_probe is)"
expect_log "$log" "GUEST: tracer: function, [0-9]{4,} functions traced" "the function tracer is not on"
grep -q "checksum of diskdump code and data changed" "$log" && fail "the self check refused a traced machine"
check_saved_dump "sysrq triggered crash" 1
note "$(grep -o 'tracer: function, [0-9]* functions traced' "$log" | head -1); $(grep -o 'dump complete.*' "$log" | head -1)"
