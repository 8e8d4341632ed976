# A second panic part way through the dump (test hook: after 80% of the
# pages).  diskdump must not re-enter; panic() goes on and reboots.  The
# header still says "writing": savecore finds where the writes stopped,
# saves those pages and says the dump is partial.
dump_scenario "ddtest=panic2"
log=$WORK/serial.log
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no first panic"
expect_log "$log" "Kernel panic - not syncing: diskdump test: a second panic during the dump" "no second panic"
check_cut_dump
