#!/bin/bash
# What the crashdump-mode branch costs when no dump is running: boot the
# same guest on the kernel with the diskdump series and on the same kernel
# without it (pristine 6.12, the same config less the diskdump options),
# load bench/timerbench in each, and compare add_timer/mod_timer/
# tasklet_schedule costs.  Boots alternate (patched, vanilla, patched...)
# so that drift of the host hits both alike.
#
#   bench/timers.sh [BOOTS_PER_KERNEL]     (default 3)
#
# Prints a table and writes it to build/bench/timers.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
boots=${1:-3}
out=build/bench
mkdir -p "$out"

# The unpatched kernel: pristine source, same config minus diskdump.
vsrc=build/vanilla/src vobj=build/vanilla/obj
if [ ! -f "$vsrc/Makefile" ]; then
	echo "bench: extracting a pristine tree into $vsrc" >&2
	rm -rf "$vsrc" && mkdir -p "$vsrc"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$vsrc" --strip-components=1
fi
grep -Ev '^CONFIG_(DISKDUMP|SCSI_DUMP|DISKDUMP_TEST|DISKDUMP_KUNIT_TEST)=' configs/qemu-guest.config \
	>build/vanilla/vanilla.config
echo "bench: building the unpatched kernel" >&2
scripts/build-kernel.sh "$vsrc" "$vobj" build/vanilla/vanilla.config
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
insmod /timerbench.ko
poweroff -f
INIT
	chmod 0755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/$1.cpio.gz"
	rm -rf "$root"
}
mkinitrd patched
mkinitrd vanilla

rm -f "$out"/timers-*.log
for i in $(seq "$boots"); do
	for k in patched vanilla; do
		case $k in patched) img=build/obj/arch/x86/boot/bzImage ;; vanilla) img=$vobj/arch/x86/boot/bzImage ;; esac
		timeout 300 qemu-system-x86_64 -accel tcg -m 256M -smp 1 -nodefaults -no-user-config \
			-display none -serial "file:$out/timers-$k-$i.log" -monitor none \
			-kernel "$img" -initrd "$out/$k.cpio.gz" -append "console=ttyS0 quiet loglevel=6 panic=-1"
		grep -q 'timerbench: done' "$out/timers-$k-$i.log" ||
			{ tail -20 "$out/timers-$k-$i.log"; echo "bench: $k boot $i did not finish" >&2; exit 1; }
		echo "bench: $k boot $i done" >&2
	done
done
grep -q DISKDUMP build/obj/.config && ! grep -q '^CONFIG_DISKDUMP=y' "$vobj/.config" ||
	{ echo "bench: the two kernels are not patched/unpatched as intended" >&2; exit 1; }

python3 - "$out" "$boots" <<'PY' | tee "$out/timers.md"
import re, statistics, sys
out, boots = sys.argv[1], int(sys.argv[2])
ops = ['mod_timer', 'add_timer+del_timer', 'tasklet_schedule']
vals = {k: {o: [] for o in ops} for k in ('patched', 'vanilla')}
for k in vals:
    for i in range(1, boots + 1):
        for line in open(f'{out}/timers-{k}-{i}.log', errors='replace'):
            m = re.search(r'round (\d+): mod_timer (\d+) ps/call, add_timer\+del_timer (\d+) ps/pair, tasklet_schedule (\d+) ps/call', line)
            if m and m.group(1) != '0':   # round 0 warms the caches
                for o, v in zip(ops, m.groups()[1:]):
                    vals[k][o].append(int(v) / 1000)
print('| operation | unpatched ns | patched ns | patched / unpatched |')
print('|---|---|---|---|')
for o in ops:
    v, p = statistics.median(vals['vanilla'][o]), statistics.median(vals['patched'][o])
    print(f'| {o} | {v:.1f} | {p:.1f} | {p / v:.3f} |')
n = len(vals['patched'][ops[0]])
print(f'\nMedians of {n} rounds per kernel ({boots} boots each, round 0 of each boot dropped), '
      'QEMU TCG, -smp 1, 256 MiB.')
PY
