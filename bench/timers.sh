#!/bin/bash
# What the crashdump-mode branch costs when no dump is running: boot the
# same guest on the kernel with the diskdump series and on the same kernel
# without it (pristine 6.12, the same config less the diskdump options),
# load bench/timerbench in each, and compare add_timer/mod_timer/
# tasklet_schedule costs.  Boots alternate (patched, vanilla, patched...)
# so that drift of the host hits both alike.
#
#   bench/timers.sh [BOOTS_PER_KERNEL]     (default 5)
#
# Prints a table and writes it to build/bench/timers.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
boots=${1:-5}
out=build/bench
mkdir -p "$out"

# The unpatched kernel: pristine source, same config minus diskdump.
vsrc=build/vanilla/src vobj=build/vanilla/obj
if [ ! -f "$vsrc/Makefile" ]; then
	echo "bench: extracting a pristine tree into $vsrc" >&2
	rm -rf "$vsrc" && mkdir -p "$vsrc"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$vsrc" --strip-components=1
fi
grep -Ev '^CONFIG_(DISKDUMP[A-Z_]*|SCSI_DUMP|ATA_DUMP|NVME_DUMP)=' configs/debian-test.config \
	>build/vanilla/vanilla.config
scripts/debian-config.sh base build/vanilla/base.config
echo "bench: building the unpatched kernel" >&2
scripts/build-kernel.sh --base build/vanilla/base.config "$vsrc" "$vobj" build/vanilla/vanilla.config
echo "bench: building the patched kernel" >&2
make -s kernel

# The module, built against each kernel in a directory of its own.
for k in patched vanilla; do
	case $k in patched) src=build/src obj=build/obj ;; vanilla) src=$vsrc obj=$vobj ;; esac
	mkdir -p "$out/$k"
	cp bench/timerbench/timerbench.c bench/timerbench/Kbuild "$out/$k/"
	make -s -C "$src" O="$top/$obj" M="$top/$out/$k" modules >/dev/null
done

# A guest that loads the module and powers off.
mkinitrd() {
	local root
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,proc,sys,dev}
	cp /bin/busybox "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$out/$1/timerbench.ko" "$root/timerbench.ko"
	cat >"$root/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
if [ -e /proc/diskdump ]; then echo "BENCH: diskdump present"; else echo "BENCH: no diskdump"; fi
insmod /timerbench.ko && dmesg | grep timerbench
poweroff -f
INIT
	chmod 0755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/$1.cpio.gz"
	rm -rf "$root"
}
mkinitrd patched
mkinitrd vanilla

# Two ways of measuring.  "icount": QEMU's -icount shift=0 makes the guest
# clock count instructions (1 ns per instruction), so the numbers are guest
# instructions per call, the same on every run.  "tcg": plain TCG wall
# clock, noisy (the host's load shows), alternating kernels.
rm -f "$out"/timers-*.log
run_boot() {	# run_boot MODE KERNEL N
	local img accel=(-accel tcg)
	case $2 in patched) img=build/obj/arch/x86/boot/bzImage ;; vanilla) img=$vobj/arch/x86/boot/bzImage ;; esac
	[ "$1" = icount ] && accel+=(-icount shift=0,sleep=off)
	timeout 300 qemu-system-x86_64 "${accel[@]}" -m 256M -smp 1 -nodefaults -no-user-config \
		-display none -serial "file:$out/timers-$1-$2-$3.log" -monitor none \
		-kernel "$img" -initrd "$out/$2.cpio.gz" -append "console=ttyS0 quiet loglevel=6 panic=-1"
	grep -q 'timerbench: done' "$out/timers-$1-$2-$3.log" ||
		{ tail -20 "$out/timers-$1-$2-$3.log"; echo "bench: $1 $2 boot $3 did not finish" >&2; exit 1; }
	echo "bench: $1 $2 boot $3 done" >&2
}
for i in 1 2; do
	for k in patched vanilla; do run_boot icount "$k" "$i"; done
done
for i in $(seq "$boots"); do
	for k in patched vanilla; do run_boot tcg "$k" "$i"; done
done
grep -q DISKDUMP build/obj/.config && ! grep -q '^CONFIG_DISKDUMP=y' "$vobj/.config" ||
	{ echo "bench: the two kernels are not patched/unpatched as intended" >&2; exit 1; }

python3 - "$out" "$boots" <<'PY' | tee "$out/timers.md"
import glob, re, statistics, sys
out, boots = sys.argv[1], int(sys.argv[2])
ops = ['mod_timer', 'add_timer+del_timer', 'tasklet_schedule']
pat = re.compile(r'round (\d+): mod_timer (\d+) ps/call, add_timer\+del_timer (\d+) ps/pair, '
                 r'tasklet_schedule (\d+) ps/call')

def load(mode, kernel):
    vals = {o: [] for o in ops}
    for f in sorted(glob.glob(f'{out}/timers-{mode}-{kernel}-*.log')):
        for line in open(f, errors='replace'):
            m = pat.search(line)
            if m and m.group(1) != '0':   # round 0 warms up
                for o, v in zip(ops, m.groups()[1:]):
                    vals[o].append(int(v) / 1000)
    return vals

ic = {k: load('icount', k) for k in ('vanilla', 'patched')}
print('Guest instructions per call (QEMU -icount shift=0: deterministic):\n')
print('| operation | unpatched | patched | added | patched / unpatched |')
print('|---|---|---|---|---|')
for o in ops:
    v, p = statistics.median(ic['vanilla'][o]), statistics.median(ic['patched'][o])
    spread = max(ic['patched'][o] + ic['vanilla'][o]) - min(ic['patched'][o] + ic['vanilla'][o])
    print(f'| {o} | {v:.1f} | {p:.1f} | {p - v:+.1f} | {p / v:.3f} |')
tc = {k: load('tcg', k) for k in ('vanilla', 'patched')}
print('\nWall clock under TCG, ns per call (noisy; min / median):\n')
print('| operation | unpatched | patched | patched / unpatched (min / median) |')
print('|---|---|---|---|')
for o in ops:
    v, p = tc['vanilla'][o], tc['patched'][o]
    print(f'| {o} | {min(v):.1f} / {statistics.median(v):.1f} | {min(p):.1f} / {statistics.median(p):.1f} '
          f'| {min(p) / min(v):.3f} / {statistics.median(p) / statistics.median(v):.3f} |')
n = len(tc['patched'][ops[0]])
print(f'\n{n} rounds of 200000 calls per kernel in {boots} TCG boots each, -smp 1, 256 MiB; '
      'round 0 of each boot dropped.  The loop around each call is included in both kernels.')
PY
