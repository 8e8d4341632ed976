# An oops inside the dump (test hook: a bad pointer after 80% of the
# pages), from a sysrq panic in process context, with panic_on_oops=0 as
# Debian ships it.  Without diskdump forcing panic_on_oops, oops_end()
# kills the panicking task with the other CPUs halted and the guest hangs
# until the QEMU timeout.  It must panic again, reboot, and savecore must
# save what got written.
QEMU_TIMEOUT=${QEMU_TIMEOUT_OOPS:-240}
dump_scenario "ddtest=oops"
log=$WORK/serial.log
expect_log "$log" "GUEST: panic_on_oops=0" "the guest did not turn panic_on_oops off"
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no first panic"
expect_log "$log" "diskdump: test: dereferencing a bad pointer during the dump" "the hook did not oops"
expect_log "$log" "BUG: kernel NULL pointer dereference" "no oops"
expect_log "$log" "Kernel panic - not syncing: Fatal exception" "the oops did not panic again"
expect_log "$log" "diskdump: panic during the dump: giving up" "diskdump re-entered"
expect_log "$log" "savecore: saved a PARTIAL dump" "savecore did not say partial"
info=$(dirname "$(the_vmcore)")/info
info_is "$info" status "incomplete (the kernel stopped while writing)"
saved=$(grep '^saved_pages:' "$info" | cut -d' ' -f2)
total=$(grep '^dump_pages:' "$info" | cut -d' ' -f2)
[ "$saved" -ge $((total * 7 / 10)) ] && [ "$saved" -lt "$total" ] || fail "$saved of $total pages saved"
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	--allow-missing --expect-partial --min-match 100 >"$WORK/check.txt" ||
	{ cat "$WORK/check.txt"; fail "partial vmcore"; }
note "$saved of $total pages saved; $(grep '^pattern:' "$WORK/check.txt")"
