# KASLR on (no nokaslr): the kernel text and the direct map are at random
# addresses.  The dump must carry the offset (VMCOREINFO KERNELOFFSET) and
# the real direct-map base, so that gdb, given the offset, and
# makedumpfile and crash, which read it themselves, find the symbols.
KASLR=kaslr
# KASLR may choose the link address itself (offset 0: seen once in a
# clean-clone run, one boot in a few hundred), which proves nothing here:
# then the guest boots again, up to three times.
for try in 1 2 3; do
	dump_scenario ddtest=kaslr ddmib=16 ddtrigger=sysrq
	grep -aq "Kernel Offset: 0x0 from" "$WORK/serial.log" || break
	note "boot $try: KASLR chose offset 0, booting again"
done
expect_log "$WORK/serial.log" "Kernel panic - not syncing: sysrq triggered crash" "the guest did not panic"
grep -q "KASLR disabled" "$WORK/serial.log" && fail "KASLR was disabled in the guest"
check_saved_dump "sysrq triggered crash" 1
vmcore=$(the_vmcore)
KERNEL_OFFSET=$(python3 tests/check-vmcore.py "$vmcore" --vmcoreinfo KERNELOFFSET) ||
	fail "no KERNELOFFSET in the dump"
[ $((16#$KERNEL_OFFSET)) -ne 0 ] || fail "KERNELOFFSET is 0: the kernel did not move"
note "KERNELOFFSET=$KERNEL_OFFSET"
KERNEL_OFFSET=0x$KERNEL_OFFSET
check_gdb
# the symbols at their link addresses do not work: the offset is needed
timeout 120 gdb -nx -batch -ex bt -ex 'p panic_cpu.counter' "$VMLINUX" "$vmcore" >"$WORK/gdb-nooff.txt" 2>&1 || true
grep -q start_disk_dump "$WORK/gdb-nooff.txt" && fail "gdb found start_disk_dump without the offset: the kernel did not move"
grep -qx '\$1 = -1' "$WORK/gdb-nooff.txt" || { cat "$WORK/gdb-nooff.txt"; fail "without the offset gdb should read vmlinux's panic_cpu (-1)"; }
note "without the offset gdb has no backtrace and reads panic_cpu = -1 from vmlinux, not the dump"
check_dmesg "sysrq triggered crash"
# crash 8.0.2 needs to be told to read KERNELOFFSET: it probes for KASLR
# by symbols of the module loader, and this kernel has no modules.
CRASH_OPTS="--kaslr auto" check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
