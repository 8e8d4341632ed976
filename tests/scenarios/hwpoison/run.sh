# Hardware-poisoned pages: three pattern pages marked poisoned with
# madvise(MADV_HWPOISON) (CONFIG_MEMORY_FAILURE) before the crash.  On a
# real machine reading such a page raises a machine check and loses the
# whole dump; QEMU's pages read fine, so what this checks is that diskdump
# never reads them: they are left out of the dump, counted in the header,
# and the rest of the dump is complete.
dump_scenario "ddtest=hwpoison"
check_saved_dump "sysrq triggered crash" 1
log=$WORK/serial.log
n=$(grep -c "ddpattern: poisoned pfn" "$log" || true)
[ "$n" = 3 ] || fail "the guest poisoned $n pages, not 3"
info=$(dirname "$(the_vmcore)")/info
info_is "$info" hwpoison_pages 3
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt.poisoned" \
	--expect-absent >"$WORK/check-poisoned.txt" ||
	{ cat "$WORK/check-poisoned.txt"; fail "a poisoned page is in the dump"; }
note "poisoned pfns $(tr '\n' ' ' <"$WORK/out/pattern.txt.poisoned")left out; $(grep '^pattern:' "$WORK/check-poisoned.txt")"
