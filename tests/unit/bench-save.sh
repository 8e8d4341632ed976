#!/bin/bash
# savecore's rate against dd's over the same partition image, both writing a
# file with fsync on the same file system:
#   bench-save.sh BINDIR [MIB] [RUNS] [WORKDIR]
# BINDIR holds bench_savecore (makes the image) and savecore (-O2);
# IMAGE=FILE takes a partition image that holds a dump instead (read only).  Every
# run starts with the image out of the page cache (as a partition is after
# the reboot), the previous output removed and synced; the tools take turns
# in each round.  WARM=1 reads the image into the cache first instead (as
# make check's kdump-format scenario does; savecore reads with O_DIRECT
# either way).  dd-direct: dd reading with O_DIRECT, as savecore does, for
# reference; the ratios are to plain dd's.  Prints min and median seconds, MiB/s and the ratio to dd.
set -eu
BIN=$1
MIB=${2:-1024}
RUNS=${3:-3}
WORK=${4:-${TMPDIR:-/tmp}/bench-save.$$}
WARM=${WARM:-0}
IMG=${IMAGE:-$WORK/part.img}
TOOLS=${TOOLS:-"dd dd-direct elf kdump-zlib kdump-lzo kdump-zstd kdump-none"}

mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
[ -n "${IMAGE:-}" ] || "$BIN/bench_savecore" --bench-image "$IMG" "$MIB"
bytes=$(stat -c %s "$IMG")

prepare() {
	rm -rf "$WORK/out" "$WORK/dd.out"
	mkdir -p "$WORK/out"
	sync
	if [ "$WARM" = 1 ]; then
		cat "$IMG" >/dev/null
	else
		dd if="$IMG" iflag=nocache count=0 status=none
	fi
}

run_tool() {
	case $1 in
	dd) dd if="$IMG" of="$WORK/dd.out" bs=1M conv=fsync status=none ;;
	dd-direct) dd if="$IMG" of="$WORK/dd.out" bs=1M iflag=direct conv=fsync status=none ;;
	elf) "$BIN/savecore" -q -k "$IMG" "$WORK/out" ;;
	kdump-*) "$BIN/savecore" -q -k -F kdump -Z "${1#kdump-}" "$IMG" "$WORK/out" ;;
	esac
}

declare -A times sizes
for ((r = 1; r <= RUNS; r++)); do
	for t in $TOOLS; do
		prepare
		t0=$(date +%s.%N)
		run_tool "$t"
		t1=$(date +%s.%N)
		times[$t]="${times[$t]:-} $(echo "$t1 - $t0" | bc -l)"
		if [ "${t%-direct}" = dd ]; then
			sizes[$t]=$(stat -c %s "$WORK/dd.out")
		else
			sizes[$t]=$(stat -c %s "$WORK"/out/*/vmcore)
		fi
	done
done
rm -rf "$WORK/out" "$WORK/dd.out"

stats() {	# min median
	printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { printf "%s %s\n", v[1], v[int((NR + 1) / 2)] }'
}
read -r dmin dmed < <(stats "${times[dd]}")
echo "bench-save: $((bytes >> 20)) MiB partition image, $RUNS runs, $(nproc) CPUs, image $([ "$WARM" = 1 ] && echo cached || echo uncached)"
for t in $TOOLS; do
	read -r min med < <(stats "${times[$t]}")
	awk -v t="$t" -v min="$min" -v med="$med" -v dmin="$dmin" -v dmed="$dmed" \
	    -v mib="$((bytes >> 20))" -v out="$((${sizes[$t]} >> 20))" 'BEGIN {
		printf "  %-11s min %6.2f s  median %6.2f s  %5.0f MiB/s  %5.2f of dd (min %.2f)  output %d MiB\n",
		       t, min, med, mib / med, dmed / med, dmin / min, out
	}'
done
