# A second panic part way through the dump (test hook: after 80% of the
# pages).  diskdump must not re-enter; panic() goes on and reboots.  The
# header still says "writing": savecore finds where the writes stopped,
# saves those pages and says the dump is partial.
dump_scenario "ddtest=panic2"
log=$WORK/serial.log
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no first panic"
expect_log "$log" "Kernel panic - not syncing: diskdump test: a second panic during the dump" "no second panic"
expect_log "$log" "diskdump: panic during the dump: giving up" "diskdump re-entered"
expect_log "$log" "savecore: saved a PARTIAL dump" "savecore did not say partial"
info=$(dirname "$(the_vmcore)")/info
info_is "$info" status "incomplete (the kernel stopped while writing)"
info_is "$info" partial yes
saved=$(grep '^saved_pages:' "$info" | cut -d' ' -f2)
total=$(grep '^dump_pages:' "$info" | cut -d' ' -f2)
[ "$saved" -ge $((total * 7 / 10)) ] && [ "$saved" -lt "$total" ] || fail "$saved of $total pages saved"
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	--allow-missing --expect-partial --min-match 100 >"$WORK/check.txt" ||
	{ cat "$WORK/check.txt"; fail "partial vmcore"; }
note "$saved of $total pages saved; $(grep '^pattern:' "$WORK/check.txt")"
