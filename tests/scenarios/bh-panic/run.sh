# A panic while this CPU holds a _bh lock that a tasklet of other code,
# queued just before, takes (test hook bhpanic), with panic=0.  That
# tasklet must never run while dumping: it would spin on the lock for
# ever, with interrupts off, and neither dump nor reboot would come (as
# before the tasklet filter: QEMU timeout).  The dump completes, the
# console counts the tasklet left queued and names it, "reboot auto"
# reboots at once, and boot 2 saves the dump.
QEMU_TIMEOUT=300
dump_scenario "ddtest=bh-panic panic=0"
log=$WORK/serial.log
expect_log "$log" "Kernel panic - not syncing: diskdump test: panic holding a _bh lock that a queued tasklet takes" "no panic from the hook"
grep -q "diskdump: test: a tasklet of other code ran" "$log" && fail "the tasklet of other code ran while dumping"
# (the first named is the hook's, unless another was queued on this CPU)
expect_log "$log" "diskdump: tasklets of other code: [1-9][0-9]* left queued, never run; the first " \
	"the console does not count the tasklet left queued"
expect_log "$log" "diskdump: rebooting at once" "no reboot at once after the dump (panic=0)"
check_saved_dump "diskdump test: panic holding a _bh lock that a queued tasklet takes" 1
note "$(grep -o 'tasklets of other code: .*' "$log" | head -1 | tr -d '\r')"
