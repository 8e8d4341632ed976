#!/bin/bash
# diskdump against kdump on the same QEMU guest (TCG, lsi53c895a disk, or
# NVMe with BENCH_DISK=nvme).
# For each memory size (BENCH_SIZES, MiB; default "512 2048"):
#   dd-0     diskdump, dump level 0, savecore ELF: the raw O_DIRECT write
#            rate of the same disk (rawrate on sda2) vs diskdump's own;
#   dd-31    diskdump, level 31, savecore -F kdump (zlib);
#   kdump-31 kdump: crashkernel=192M, kexec -p of the same bzImage and
#            initramfs, makedumpfile -c -d 31 in the capture kernel;
# and, for the first size only, diskdump at levels 1 2 4 8 16.  Times are
# taken on the host from timestamped serial lines: panic message to the
# dump saved (savecore done in the next boot / makedumpfile done in the
# capture kernel).  makedumpfile -d N run on the host over the dd-0 ELF
# gives makedumpfile's page counts per level for the same kind of memory.
# Writes build/bench/kdump.md (copied into bench/RESULTS.md by hand) and
# build/bench/kdump.png.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sizes=${BENCH_SIZES:-512 2048}
crashkernel=${BENCH_CRASHKERNEL:-192M}
out=$top/build/bench/kdump${BENCH_DISK:+-$BENCH_DISK}
mkdir -p "$out"
# BENCH_NO_BUILD=1: the kernel and initramfs as they are in build/
[ -n "${BENCH_REPORT_ONLY:-}${BENCH_NO_BUILD:-}" ] || make -s kernel initramfs tools
command -v gnuplot >/dev/null || apt-get install -y -q gnuplot-nox >/dev/null 2>&1 || true
[ -n "${BENCH_REPORT_ONLY:-}" ] || bench/mk-initramfs.sh build/initramfs.cpio.gz "$out/initrd.gz"
KERNEL=build/obj/arch/x86/boot/bzImage
QEMU_TIMEOUT=${QEMU_TIMEOUT:-900}
. bench/run.sh

# BENCH_PARTS_ONLY=1: only the partition-size sweep at level 31 (a 512 MiB
# guest; partitions of BENCH_PARTS MiB, default "600 2048 8192"), with
# the default check (the dump's extent) and with "check all".
parts=${BENCH_PARTS:-600 2048 8192}
sweep_runs=${BENCH_SWEEP_RUNS:-2}
sweep() {
	local p i
	for p in $parts; do
		for i in $(seq "$sweep_runs"); do
			PART_MIB=$p run "sweep-dump-$p-$i" 512 "ddtest=bench-dd ddlevel=31 ddsave=kdump"
		done
		PART_MIB=$p run "sweep-all-$p-1" 512 "ddtest=bench-dd ddlevel=31 ddcheck=all ddsave=kdump"
	done
}
if [ -n "${BENCH_PARTS_ONLY:-}" ]; then
	sweep
	python3 bench/sweep-report.py "$out" "$parts" "$sweep_runs" | tee "$top/build/bench/sweep.md"
	exit 0
fi

for mem in $sizes; do
	run "dd-0-$mem" "$mem" "ddtest=bench-dd ddlevel=0 ddsave=elf"
	run "dd-31-$mem" "$mem" "ddtest=bench-dd ddlevel=31 ddsave=kdump"
	run "kdump-31-$mem" "$mem" "ddtest=bench-kdump crashkernel=$crashkernel"
done
first=${sizes%% *}
for level in 1 2 4 8 16; do
	run "dd-$level-$first" "$first" "ddtest=bench-dd ddlevel=$level ddsave=kdump"
done
sweep
[ -z "${BENCH_ONLY:-}" ] || exit 0
# makedumpfile's selection at each level, over diskdump's full ELF dump
for level in 0 1 2 4 8 16 31; do
	elf=$(find "$out/dd-0-$first/files/crash" -name vmcore | head -n1)
	rm -f "$out/mdf-$level.out"
	makedumpfile -c -d "$level" --message-level 20 "$elf" "$out/mdf-$level.out" \
		>"$out/mdf-$level.txt" 2>&1 || { cat "$out/mdf-$level.txt" >&2; exit 1; }
done
python3 bench/kdump-report.py "$out" "$sizes" "$crashkernel" | tee "$top/build/bench/kdump.md"
python3 bench/sweep-report.py "$out" "$parts" "$sweep_runs" | tee "$top/build/bench/sweep.md"
if command -v gnuplot >/dev/null; then
	gnuplot -e "set terminal png size 800,500; set output '$top/build/bench/kdump.png'" \
		-e "set title 'panic to dump saved, QEMU TCG'; set xlabel 'guest memory (MiB)'; set ylabel 'seconds'; set key left top; set grid" \
		-e "plot '$out/plot.dat' using 1:2 with linespoints title 'diskdump, level 0, ELF', '' using 1:3 with linespoints title 'diskdump, level 31, kdump zlib', '' using 1:4 with linespoints title 'kdump + makedumpfile -c -d 31'"
	echo "bench: plot in build/bench/kdump.png" >&2
else
	echo "bench: no gnuplot, no plot (apt-get install gnuplot-nox)" >&2
fi
