# WARN() with panic_on_warn=1.  On the tinyconfig test kernel (no
# CONFIG_BUG) WARN() printed nothing and never panicked, so this could
# not be tested; with Debian's configuration it prints the warning and
# its backtrace, then panics, and the dump must be complete.
SPLATS_OK='WARNING: CPU: 0 PID: [0-9]+ at [./a-z]*drivers/block/diskdump_testhooks.c'
panic_scenario "ddtest=warn panic_on_warn=1" "panic_on_warn=1" \
	"WARNING: CPU: 0 PID: [0-9]+ at [./a-z]*drivers/block/diskdump_testhooks.c:[0-9]+ " \
	"kernel: panic_on_warn set \\.\\.\\."
expect_log "$WORK/serial.log" "diskdump test: a warning" "the warning's message is missing"
