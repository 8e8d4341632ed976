# A partition of a fifth of memory (52 MiB, 256 MiB RAM, dump level 0):
# the dump cannot hold every page, nor every kernel page (about 16000).
# The kernel must choose first what a reader needs to open the dump (the
# kernel's page tables, wherever memblock put them, the panicking task,
# reserved memory, the slabs), then the pages of vmalloc space (the other
# tasks' stacks) and module space and the other kernel pages, then the level's
# other pages, and flag the dump truncated;
# savecore saves it and says it is partial, and crash, drgn and
# makedumpfile still read it (the panic backtrace, the tasks, the log).
# With kernel pages taken in PFN order, the page tables memblock put at
# the top of memory were left out and crash could not open the dump.
mk_dump_disk "$WORK/dump.img" 52
mk_out_disk "$WORK/out.img" 400
run_qemu "$WORK/serial.log" "ddtest=truncated ddmib=16" $(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/serial.log
expect_log "$log" "diskdump: [0-9]+ pages do not fit in [0-9]+ blocks: kernel pages first" \
	"the kernel did not choose the kernel's pages first"
expect_log "$log" "diskdump: [0-9]+ pages of page tables, the panicking task, reserved memory and slabs; [0-9]+ with vmalloc's and the modules'" \
	"the kernel did not say what it chose first"
expect_log "$log" "dump complete: [0-9]+ pages in [0-9]+ ms \(truncated: the partition is too small\)" "the console does not say truncated"
expect_log "$log" "savecore: saved a PARTIAL dump" "savecore did not say partial"
info=$(dirname "$(the_vmcore)")/info
info_is "$info" partial yes
info_is "$info" status incomplete
info_is "$info" flags truncated
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	--allow-missing --expect-partial --min-match 0 >"$WORK/check.txt" || { cat "$WORK/check.txt"; fail "partial vmcore"; }
chose=$(grep -aEo "[0-9]+ pages of page tables.*" "$log" | tr -d '\r' | head -1)
note "$(grep -o "[0-9]* pages do not fit in [0-9]* blocks" "$log" | head -1); $chose; $(grep '^pattern:' "$WORK/check.txt")"
timeout 120 gdb -nx -batch -ex 'p init_uts_ns.name.release' "$VMLINUX" "$(the_vmcore)" >"$WORK/gdb.txt" 2>&1 || true
grep -q '"6\.12\.' "$WORK/gdb.txt" || { cat "$WORK/gdb.txt"; fail "gdb cannot read kernel data from the partial dump"; }
READERS_PARTIAL=1 check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
note "crash, drgn and makedumpfile read the partial dump"
