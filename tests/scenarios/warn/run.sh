# WARN() with panic_on_warn=1.  On the tinyconfig test kernel (no
# CONFIG_BUG) WARN() printed nothing and never panicked, so this could
# not be tested; with Debian's configuration it prints the warning and
# its backtrace, then panics, and the dump must be complete.
SPLATS_OK='WARNING: CPU: 0 PID: [0-9]+ at [./a-z]*drivers/block/diskdump_testhooks.c'
dump_scenario "ddtest=warn panic_on_warn=1"
log=$WORK/serial.log
expect_log "$log" "GUEST: panic_on_warn=1" "panic_on_warn is not set"
expect_log "$log" "WARNING: CPU: 0 PID: [0-9]+ at [./a-z]*drivers/block/diskdump_testhooks.c:[0-9]+ " "no WARNING with its place"
expect_log "$log" "diskdump test: a warning" "the warning's message is missing"
expect_log "$log" "Kernel panic - not syncing: kernel: panic_on_warn set" "panic_on_warn did not panic"
check_saved_dump "kernel: panic_on_warn set \.\.\." 1
