# The same guest (kernel, initramfs, memory, crashkernel= reservation,
# workload: a dump partition formatted and armed, memory filled, sysrq c)
# crashed twice: once with kdump loaded too (kexec -p of the same kernel;
# kdump runs first, makedumpfile -c -d 1 of /proc/vmcore in the capture
# kernel), once without, so that diskdump writes the dump.  Debian 13's
# crash and drgn must find the same panic task, the same backtrace from
# vpanic down to the syscall entry, and the same tasks in both dumps (less
# the workqueues' pool workers, kworker/u4:3 and the like, which the
# kernel starts and stops with the load).
kdump_guest
# the output disk, alike in both runs (written again before each)
kdump_out_disk
run_qemu "$WORK/serial-kdump.log" "$APPEND ddkdump=1" $(scsi_disk "$WORK/dump.img")
expect_log "$WORK/serial-kdump.log" "GUEST: kdump capture kernel loaded" "kexec -p failed"
expect_log "$WORK/serial-kdump.log" "KDUMP: saved rc=0" "makedumpfile in the capture kernel failed"
grep -q "diskdump: trying partition" "$WORK/serial-kdump.log" && fail "diskdump ran although kdump was loaded"
extract_out
mkdir -p "$WORK/kdump"
mv "$WORK/out/vmcore-kdump" "$WORK/kdump/vmcore"
note "kdump: capture kernel saved $(($(stat -c %s "$WORK/kdump/vmcore") >> 20)) MiB (makedumpfile -c -d 1)"

# diskdump: the same guest path without kexec -p
kdump_out_disk
run_qemu "$WORK/serial.log" "$APPEND" $(scsi_disk "$WORK/dump.img")
extract_out
check_saved_dump "sysrq triggered crash" 1

# summary VMCORE NAME: the panic task, the backtrace from vpanic on, and the
# task count, as crash and as drgn see them, in $WORK/NAME.sum
summary() {
	local vmcore=$1 name=$2 top c d
	top=$(pwd)
	printf 'bt\necho ==== ps\nps\nquit\n' >"$WORK/$name.in"
	timeout 300 scripts/trixie-tools.sh run "$top" sh -c \
		"crash -s '$VMLINUX' '$vmcore' <'$WORK/$name.in'" >"$WORK/$name.crash" 2>&1 || true
	timeout 300 scripts/trixie-tools.sh run "$top" drgn -q -c "$vmcore" -s "$VMLINUX" \
		"$top/tests/readers.py" >"$WORK/$name.drgn" 2>&1 || { cat "$WORK/$name.drgn"; fail "drgn on the $name dump"; }
	c=$WORK/$name.crash d=$WORK/$name.drgn
	{
		echo "crash task: $(grep -Eo '^PID: .* COMMAND: "[^"]*"' "$c" | head -n1 | grep -Eo 'COMMAND: .*')"
		echo "crash bt: $(sed -n '/^PID: /,/^==== ps/p' "$c" | grep -Eo '^ ?#[0-9]+ \[[0-9a-f]+\] [A-Za-z0-9_.]+' |
			awk '{print $3}' | sed -n '/^vpanic$/,$p' | tr '\n' ' ')"
		echo "crash tasks less pool workers: $(sed -n '/^==== ps/,$p' "$c" |
			grep -E '^[ >] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' | grep -Evc '\[kworker/u?[0-9]+:[0-9]+H?\]$')"
		echo "drgn bt: $(sed -n 's/^drgn crashed: [0-9]* //p' "$d" | tr ' ' '\n' | sed -n '/^vpanic$/,$p' |
			grep -v '^0x' | tr '\n' ' ')"
		echo "drgn $(grep '^drgn tasks less pool workers:' "$d" | cut -d' ' -f2-)"
	} >"$WORK/$name.sum"
}
summary "$WORK/kdump/vmcore" kdump
summary "$(the_vmcore)" diskdump
for f in kdump diskdump; do
	grep -Eq '^crash bt: vpanic .*entry_SYSCALL_64' "$WORK/$f.sum" || { cat "$WORK/$f.crash"; fail "crash: no backtrace from vpanic to the syscall entry in the $f dump"; }
	grep -Eq '^drgn bt: vpanic .*entry_SYSCALL_64' "$WORK/$f.sum" || { cat "$WORK/$f.drgn"; fail "drgn: no backtrace from vpanic to the syscall entry in the $f dump"; }
	grep -Eq '^crash task: COMMAND: "ddpattern"' "$WORK/$f.sum" || fail "crash: the $f dump's panic task is not ddpattern"
done
diff "$WORK/kdump.sum" "$WORK/diskdump.sum" >"$WORK/sum.diff" ||
	{ cat "$WORK/sum.diff"; fail "crash or drgn see the kdump and the diskdump of the same guest differently"; }
note "kdump and diskdump alike: $(grep '^crash task' "$WORK/kdump.sum"), $(grep -c . <<<"$(grep '^crash bt' "$WORK/kdump.sum" | tr ' ' '\n')") frames from vpanic, $(grep '^crash tasks' "$WORK/kdump.sum"), $(grep '^drgn tasks' "$WORK/kdump.sum"); all tasks: kdump $(sed -n 's/^drgn tasks: //p' "$WORK/kdump.drgn"), diskdump $(sed -n 's/^drgn tasks: //p' "$WORK/diskdump.drgn")"
