#!/bin/bash
# make demo: boot the patched kernel in QEMU, arm a dump partition, panic,
# let diskdump write the dump, reboot, save it with savecore, open it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export KERNEL=$top/build/obj/arch/x86/boot/bzImage VMLINUX=$top/build/obj/vmlinux
export INITRD=$top/build/initramfs.cpio.gz WORK=$top/build/demo
rm -rf "$WORK"
mkdir -p "$WORK"
# shellcheck source=../tests/lib.sh
source tests/lib.sh
echo "== booting (TCG), arming /dev/sda1, filling 16 MiB with a pattern, sysrq-c"
dump_scenario ddtest=demo ddmib=16 ddtrigger=sysrq
echo "== the console, first boot (panic and dump) and second boot (savecore)"
grep -E "GUEST|Kernel panic|diskdump|savecore" "$WORK/serial.log" | grep -v "pages written"
vmcore=$(the_vmcore)
echo "== $vmcore"
ls -l "$vmcore"
cat "$(dirname "$vmcore")/info"
echo "== the pattern pages, checked in the vmcore"
python3 tests/check-vmcore.py "$vmcore" --pattern "$WORK/out/pattern.txt" --cpus 1
echo "== gdb: threads and backtrace from the NT_PRSTATUS notes"
timeout 120 gdb -nx -batch -ex 'info threads' -ex 'bt' -ex 'p init_uts_ns.name.release' \
	"$VMLINUX" "$vmcore" 2>&1 | grep -v '^warning'
echo "== makedumpfile --dump-dmesg: the end of the kernel log"
timeout 120 makedumpfile --dump-dmesg "$vmcore" "$WORK/dmesg.txt" >/dev/null 2>&1
grep -A3 "Kernel panic" "$WORK/dmesg.txt" | head -8
echo "== Debian 13's crash 8.0.6 (scripts/trixie-tools.sh): sys, bt, the end of log"
scripts/trixie-tools.sh
printf 'sys\nbt\nlog\nquit\n' >"$WORK/crash.in"
timeout 180 scripts/trixie-tools.sh run "$top" sh -c "crash -s '$VMLINUX' '$vmcore' <'$WORK/crash.in'" \
	>"$WORK/crash.txt" 2>&1 || true
sed -n '1,/^ *RIP: 0000/p' "$WORK/crash.txt"
tail -8 "$WORK/crash.txt"
echo "== drgn 0.0.31: the crashed thread's stack"
timeout 180 scripts/trixie-tools.sh run "$top" drgn -q -c "$vmcore" -s "$VMLINUX" \
	-e 'print(prog.crashed_thread().stack_trace())' 2>&1 | head -30
echo "== demo done: the dump is in $(dirname "$vmcore")"
