# Shared helpers of the QEMU scenarios.  Sourced by tests/scenarios/*.sh,
# which run with the repository root as the working directory and these set:
#   KERNEL (bzImage), VMLINUX, INITRD, WORK (a fresh scratch directory).
set -euo pipefail

: "${QEMU_TIMEOUT:=300}"
: "${MEM:=256M}"
: "${SMP:=1}"

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  - $*"; }

# mk_dump_disk FILE SIZE_MB [PART_MB...]: a disk with an MBR and partitions
# of the given sizes (the last one takes the rest if no sizes are given).
mk_dump_disk() {
	local file=$1 size=$2 spec="" start=2048
	shift 2
	rm -f "$file"
	truncate -s "${size}M" "$file"
	if [ $# -eq 0 ]; then
		spec="start=$start, type=83"
	else
		for p in "$@"; do
			spec+="start=$start, size=$((p * 2048)), type=83"$'\n'
			start=$((start + p * 2048))
		done
	fi
	printf '%s\n' "$spec" | sfdisk -q "$file" >/dev/null
}

# mk_out_disk FILE SIZE_MB: the ext4 disk savecore writes to.
mk_out_disk() {
	rm -f "$1"
	truncate -s "${2}M" "$1"
	mkfs.ext4 -q -F "$1"
}

# part_offset FILE N: byte offset of partition N.
part_offset() {
	sfdisk -J "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["partitiontable"]["partitions"][int(sys.argv[1])-1]["start"]*512)' "$2"
}

# run_qemu LOG APPEND [extra qemu args]: boot until the guest powers off.
# The dump disk must already be given in the extra args.
run_qemu() {
	local log=$1 append=$2
	shift 2
	local start=$SECONDS rc=0
	timeout --foreground -k 5 "$QEMU_TIMEOUT" qemu-system-x86_64 \
		-accel tcg -m "$MEM" -smp "$SMP" -nodefaults -no-user-config \
		-display none -serial "file:$log" -monitor none \
		-kernel "$KERNEL" -initrd "$INITRD" \
		-append "console=ttyS0 panic=1 oops=panic loglevel=6 $append" \
		-drive "file=$WORK/out.img,if=virtio,format=raw" \
		"$@" || rc=$?
	QEMU_SECONDS=$((SECONDS - start))
	[ $rc -eq 0 ] || { tail -40 "$log" >&2; fail "qemu exit $rc after ${QEMU_SECONDS}s (124 = timeout)"; }
}

# scsi_disk FILE: qemu arguments for FILE as a disk behind an lsi53c895a.
scsi_disk() {
	echo "-device lsi53c895a,id=scsi0 -drive file=$1,if=none,format=raw,id=dd0 -device scsi-hd,drive=dd0,bus=scsi0.0"
}

# extract_out: copy the output disk's files to $WORK/out/.
extract_out() {
	rm -rf "$WORK/out"
	mkdir -p "$WORK/out"
	debugfs -R "rdump / $WORK/out" "$WORK/out.img" >/dev/null 2>&1 || fail "debugfs could not read the output disk"
}

# the_vmcore: path of the one saved vmcore.
the_vmcore() {
	local v
	v=$(find "$WORK/out/crash" -name vmcore -type f 2>/dev/null | head -n1)
	[ -n "$v" ] || fail "no vmcore was saved"
	echo "$v"
}

# expect_log LOG REGEX WHAT
expect_log() {
	grep -Eq "$2" "$1" || { tail -30 "$1" >&2; fail "$3: /$2/ not in $(basename "$1")"; }
}
