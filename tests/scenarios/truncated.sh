# A partition smaller than memory: the dump is cut short and flagged, savecore
# saves what is there and says it is partial.
mk_dump_disk "$WORK/dump.img" 140
mk_out_disk "$WORK/out.img" 400
run_qemu "$WORK/serial.log" "ddtest=truncated ddmib=16" $(scsi_disk "$WORK/dump.img")
extract_out
expect_log "$WORK/serial.log" "dump complete: [0-9]+ pages in [0-9]+ ms \(truncated: the partition is too small\)" "no truncation reported"
expect_log "$WORK/serial.log" "savecore: saved a PARTIAL dump" "savecore did not say partial"
info=$(dirname "$(the_vmcore)")/info
grep -qx "partial: yes" "$info" || fail "info does not say partial"
grep -qx "status: incomplete" "$info" || fail "info status not incomplete"
grep -qx "flags: truncated" "$info" || fail "info flags not truncated"
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	--allow-missing --expect-partial >"$WORK/check.txt" || { cat "$WORK/check.txt"; fail "partial vmcore"; }
note "$(grep '^pattern:' "$WORK/check.txt") (pages past the end of the partition are missing)"
timeout 120 gdb -nx -batch -ex 'p init_uts_ns.name.release' "$VMLINUX" "$(the_vmcore)" >"$WORK/gdb.txt" 2>&1 || true
grep -q '"6\.12\.' "$WORK/gdb.txt" || { cat "$WORK/gdb.txt"; fail "gdb cannot read kernel data from the partial dump"; }
note "gdb reads init_uts_ns from the partial dump"
