# A second panic part way through the dump (test hook: after 80% of the
# pages).  diskdump must not re-enter; panic() goes on and reboots.  The
# header still says "writing": savecore finds where the writes stopped,
# saves those pages and says the dump is partial.  With panic=0 (Debian's
# default) panic() alone would never reboot: the partition holds part of
# a dump, so "reboot auto" reboots at once (a halt fails on the QEMU
# timeout).
QEMU_TIMEOUT=300
dump_scenario "ddtest=panic2 panic=0"
log=$WORK/serial.log
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no first panic"
expect_log "$log" "Kernel panic - not syncing: diskdump test: a second panic during the dump" "no second panic"
expect_log "$log" "diskdump: rebooting at once: the dump holds the panic message" "no reboot at once after the cut dump"
check_cut_dump
