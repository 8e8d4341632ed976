#!/bin/bash
# diskdump and kdump side by side (issue 18): the same guest, disks and
# workload, for each memory size (BENCH_SIZES, MiB; default "512 2048
# 4096") and dump disk (BENCH_DISKS; default "lsi nvme"), BENCH_RUNS runs a
# cell (default 3):
#   rate-DISK-MEM-N   diskdump at level 0, QEMU ending at the reboot: its
#                     write rate at panic against the raw O_DIRECT rate of
#                     the same disk (rawrate, 128 KiB and 1 MiB writes), on
#                     the BENCH_RATE_DISKS (default "lsi ahci nvme")
#   dd31-DISK-MEM-N   diskdump at level 31, then the reboot and savecore
#                     -F kdump: panic to the dump on disk, and to the
#                     production kernel up with the dump saved as a file
#   kdump-DISK-MEM-N  kdump (crashkernel=BENCH_CRASHKERNEL, default 192M)
#                     on the same machine, the dump disk attached: kexec
#                     -p, makedumpfile -c -d 31 in the capture kernel
#                     (to the output disk), then the reboot into the
#                     production kernel (ddback=1), as a kdump machine goes
#                     back into service
# Times are the host's clock on timestamped serial lines, from the panic
# message.  Writes build/bench/side.md (copied into bench/RESULTS.md by
# hand).  The partition-size sweep is "make bench-parts".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sizes=${BENCH_SIZES:-512 2048 4096}
disks=${BENCH_DISKS:-lsi nvme}
rate_disks=${BENCH_RATE_DISKS:-lsi ahci nvme}
runs=${BENCH_RUNS:-3}
crashkernel=${BENCH_CRASHKERNEL:-192M}
out=$top/build/bench/side
mkdir -p "$out"
# BENCH_NO_BUILD=1: the kernel and initramfs as they are in build/
[ -n "${BENCH_REPORT_ONLY:-}${BENCH_NO_BUILD:-}" ] || make -s kernel initramfs tools
[ -n "${BENCH_REPORT_ONLY:-}" ] || bench/mk-initramfs.sh build/initramfs.cpio.gz "$out/initrd.gz"
KERNEL=build/obj/arch/x86/boot/bzImage
QEMU_TIMEOUT=${QEMU_TIMEOUT:-900}
. bench/run.sh

for mem in $sizes; do
	for i in $(seq "$runs"); do
		for disk in $rate_disks; do
			BENCH_DISK=$disk NOREBOOT=1 run "rate-$disk-$mem-$i" "$mem" "ddtest=bench-dd ddlevel=0"
		done
		for disk in $disks; do
			BENCH_DISK=$disk run "dd31-$disk-$mem-$i" "$mem" "ddtest=bench-dd ddlevel=31 ddsave=kdump"
			BENCH_DISK=$disk run "kdump-$disk-$mem-$i" "$mem" "ddtest=bench-kdump crashkernel=$crashkernel ddback=1"
		done
	done
done
[ -z "${BENCH_ONLY:-}" ] || exit 0
python3 bench/side-report.py "$out" "$sizes" "$disks" "$runs" "$rate_disks" | tee "$top/build/bench/side.md"
# the plot: the first disk's columns 2-5, the second's 6-9
if command -v gnuplot >/dev/null; then
	plots="" c=2
	for disk in $disks; do
		plots+="${plots:+, }'$out/plot.dat' using 1:$c with linespoints title 'diskdump safe on disk ($disk)'"
		plots+=", '' using 1:$((c + 1)) with linespoints title 'kdump saved ($disk machine)'"
		plots+=", '' using 1:$((c + 2)) with linespoints title 'diskdump back in service ($disk)'"
		plots+=", '' using 1:$((c + 3)) with linespoints title 'kdump back in service ($disk machine)'"
		c=$((c + 4))
	done
	gnuplot -e "set terminal png size 900,560; set output '$top/build/bench/side.png'" \
		-e "set title 'panic to the dump safe on disk and to back in service, level 31, QEMU TCG'" \
		-e "set xlabel 'guest memory (MiB)'; set ylabel 'seconds (median)'; set key left top; set grid" \
		-e "plot $plots"
	echo "bench: plot in build/bench/side.png" >&2
fi
