# Dump levels (makedumpfile's -d bits, set with "level N" in /proc/diskdump).
# Level 30 leaves out page-cache, user and free pages: the guest's pattern
# (anonymous user memory) must be gone, and the kernel's own data must
# still be there for gdb and makedumpfile.  Level 1 leaves out only zero
# pages: the pattern is kept and no dumped page is all zeroes.
for level in 30 1; do
	dump_scenario ddtest=dumplevel ddlevel=$level ddmib=16 ddtrigger=sysrq
	log=$WORK/serial.log
	info=$(dirname "$(the_vmcore)")/info
	info_is "$info" dump_level $level
	info_is "$info" status complete
	info_is "$info" partial no
	dumped=$(grep '^dump_pages:' "$info" | cut -d' ' -f2)
	ram=$(grep '^ram_pages:' "$info" | cut -d' ' -f2)
	[ "$dumped" -lt "$ram" ] || fail "level $level left nothing out"
	if [ $level = 30 ]; then
		python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
			--expect-absent >"$WORK/check-$level.txt" ||
			{ cat "$WORK/check-$level.txt"; fail "level 30 vmcore"; }
		timeout 120 gdb -nx -batch -ex 'p init_uts_ns.name.release' "$VMLINUX" "$(the_vmcore)" \
			>"$WORK/gdb.txt" 2>&1 || true
		grep -q '"6\.12\.' "$WORK/gdb.txt" || { cat "$WORK/gdb.txt"; fail "gdb cannot read kernel data at level 30"; }
		check_dmesg "sysrq triggered crash"
	else
		python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
			--no-zero-pages >"$WORK/check-$level.txt" ||
			{ cat "$WORK/check-$level.txt"; fail "level 1 vmcore"; }
	fi
	note "level $level: $dumped of $ram pages dumped ($((ram - dumped)) RAM pages left out, from the header); $(grep -E '^(pattern|zero pages):' "$WORK/check-$level.txt" | tr '\n' ';')"
	mv "$WORK/out" "$WORK/out-level$level"
	mv "$WORK/serial.log" "$WORK/serial-level$level.log"
done
