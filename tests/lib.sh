# Shared helpers of the QEMU scenarios.  Sourced by tests/scenarios/*.sh,
# which run with the repository root as the working directory and these set:
#   KERNEL (bzImage), VMLINUX, INITRD, WORK (a fresh scratch directory).
set -euo pipefail

: "${QEMU_TIMEOUT:=300}"
: "${MEM:=256M}"
: "${SMP:=1}"
# The kernel is built with KASLR; scenarios boot with nokaslr for fixed
# addresses unless they set KASLR=kaslr (the kaslr scenario).
: "${KASLR:=nokaslr}"

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
		-append "console=ttyS0 panic=1 oops=panic loglevel=6 $KASLR $append" \
		-drive "file=$WORK/out.img,if=virtio,format=raw" \
		"$@" || rc=$?
	QEMU_SECONDS=$((SECONDS - start))
	[ $rc -eq 0 ] || { tail -40 "$log" >&2; fail "qemu exit $rc after ${QEMU_SECONDS}s (124 = timeout)"; }
}

# scsi_disk FILE: qemu arguments for FILE as a disk behind an lsi53c895a.
scsi_disk() {
	echo "-device lsi53c895a,id=scsi0 -drive file=$1,if=none,format=raw,id=dd0 -device scsi-hd,drive=dd0,bus=scsi0.0"
}

# disk_on KIND FILE: qemu arguments for FILE as the dump disk behind a
# controller of KIND: lsi (lsi53c895a, sym53c8xx_2), piix (the PC's IDE,
# ata_piix), ahci (ich9-ahci, ahci) or nvme.
disk_on() {
	case $1 in
	lsi) scsi_disk "$2" ;;
	piix) echo "-drive file=$2,if=ide,index=0,media=disk,format=raw" ;;
	ahci) echo "-device ahci,id=ahci0 -drive file=$2,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ahci0.0" ;;
	nvme) echo "-drive file=$2,if=none,format=raw,id=dd0 -device nvme,serial=diskdump0,drive=dd0" ;;
	*) fail "disk_on: no controller kind $1" ;;
	esac
}

# two_qemus APPEND BOOT1_ARGS BOOT2_ARGS: boot 1 in a QEMU that exits when
# the guest reboots, boot 2 in a fresh one (QEMU 7.2's nvme model needs a
# real reset after NVMe I/O; see the README).  serial.log gets both
# boots' logs, and the output disk is extracted.
two_qemus() {
	local t1
	run_qemu "$WORK/serial1.log" "$1" $2 -no-reboot
	t1=$QEMU_SECONDS
	run_qemu "$WORK/serial2.log" "$1" $3
	note "qemu ran ${t1}s (boot 1) + ${QEMU_SECONDS}s (boot 2)"
	cat "$WORK/serial1.log" "$WORK/serial2.log" >"$WORK/serial.log"
	extract_out
}

# scsi_hba N: qemu arguments for a further lsi53c895a, bus scsiN.
scsi_hba() {
	echo "-device lsi53c895a,id=scsi$1"
}

# scsi_hd FILE BUS ID [DRIVE_OPTS]: FILE as the disk with SCSI id ID on
# bus BUS (scsi0, scsi1...).  DRIVE_OPTS replaces "file=FILE" (blkdebug).
scsi_hd() {
	local opts=${4:-file=$1}
	echo "-drive $opts,if=none,format=raw,id=hd$2$3 -device scsi-hd,drive=hd$2$3,bus=$2.0,scsi-id=$3"
}

# info_of DEVICE: the info file savecore wrote for the dump from DEVICE.
info_of() {
	local f
	f=$(grep -lx "device: $1" "$WORK"/out/crash/*/info 2>/dev/null | head -n1)
	[ -n "$f" ] || fail "no dump saved from $1"
	echo "$f"
}

# info_is INFO KEY VALUE: the info file says KEY: VALUE.
info_is() {
	grep -qx "$2: $3" "$1" || fail "$(basename "$(dirname "$1")")/info: wanted '$2: $3', got '$(grep "^$2:" "$1")'"
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

# dump_scenario APPEND...: the common path.  A fresh 300 MiB dump disk
# behind the lsi53c895a, boot, crash, reboot, savecore; then the saved dump
# is extracted and checked.
dump_scenario() {
	driver_scenario lsi "$@"
}

# driver_scenario KIND APPEND...: dump_scenario on a disk behind KIND (see
# disk_on); DUMPDEV, if set, names the dump partition in the guest
# (the guest's default is /dev/sda1).
driver_scenario() {
	local kind=$1
	shift
	mk_dump_disk "$WORK/dump.img" 300
	mk_out_disk "$WORK/out.img" 700
	run_qemu "$WORK/serial.log" "${DUMPDEV:+dddevs=$DUMPDEV }$*" $(disk_on "$kind" "$WORK/dump.img")
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	extract_out
}

# check_saved_dump PANIC_REGEX CPUS: what every good dump must show.  With
# KEPT=1 (savecore -k) the partition must be refused when armed again.
check_saved_dump() {
	local log=$WORK/serial.log panic=$1 cpus=$2 vmcore info
	expect_log "$log" "Kernel panic - not syncing: $panic" "the guest did not panic as planned"
	expect_log "$log" "diskdump: writing [0-9]+ pages, interrupts off" "diskdump did not start writing with interrupts off"
	expect_log "$log" "diskdump: dump complete: [0-9]+ pages" "the dump did not complete"
	expect_log "$log" "savecore: saved a complete dump" "savecore did not save a complete dump"
	if [ "${KEPT:-0}" = 1 ]; then
		# savecore -k left the dump there: the kernel must not arm it
		expect_log "$log" "${DUMPDEV:-/dev/sda1} could not be armed: $(basename "${DUMPDEV:-/dev/sda1}") holds a crash dump that savecore has not saved" \
			"a partition still holding the dump (savecore -k) was armed"
	else
		expect_log "$log" "diskdump: ${DUMPDEV:-/dev/sda1} armed" "the init script did not re-arm the partition"
	fi
	vmcore=$(the_vmcore)
	info=$(dirname "$vmcore")/info
	grep -qx "status: complete" "$info" || fail "info: status not complete"
	grep -qx "flags: none" "$info" || fail "info: flags set: $(grep flags: "$info")"
	grep -qx "cpus: $cpus" "$info" || fail "info: wrong CPU count: $(grep cpus: "$info")"
	grep -qx "cpu_notes: $cpus" "$info" || fail "info: not every CPU saved its registers"
	[ "$(stat -c %a "$vmcore")" = 600 ] || fail "vmcore mode is not 0600"
	[ "$(stat -c %a "$(dirname "$vmcore")")" = 700 ] || fail "dump directory mode is not 0700"
	python3 tests/check-vmcore.py "$vmcore" --pattern "$WORK/out/pattern.txt" --cpus "$cpus" \
		>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "vmcore contents"; }
	note "$(grep '^pattern:' "$WORK/check-vmcore.txt")"
	note "dump rate: $(grep -o 'dump complete.*' "$log" | head -1)"
}

# check_gdb: gdb opens the vmcore with the vmlinux, shows the panic CPU's
# thread with a backtrace into diskdump_panic, and reads kernel variables.
check_gdb() {
	local vmcore out=$WORK/gdb.txt release
	vmcore=$(the_vmcore)
	release=$(grep '^release:' "$(dirname "$vmcore")/info" | cut -d' ' -f2)
	# With KASLR the symbols move by KERNELOFFSET (KERNEL_OFFSET, hex).
	timeout 120 gdb -nx -batch -ex "symbol-file -o ${KERNEL_OFFSET:-0} $VMLINUX" \
		-ex "core-file $vmcore" -ex 'info threads' -ex 'thread apply all bt' \
		-ex 'p init_uts_ns.name.release' -ex 'p panic_cpu.counter' >"$out" 2>&1 || true
	grep -q "diskdump_panic" "$out" || { cat "$out"; fail "gdb: no backtrace into diskdump_panic"; }
	grep -q "\"$release\"" "$out" || { cat "$out"; fail "gdb: cannot read init_uts_ns"; }
	# panic_cpu is -1 in vmlinux: only the dumped memory says which CPU
	local cpu
	cpu=$(grep '^panic_cpu:' "$(dirname "$vmcore")/info" | cut -d' ' -f2)
	grep -qx "\$[0-9]* = $cpu" "$out" || { cat "$out"; fail "gdb: panic_cpu is not $cpu in the dump"; }
	note "gdb: $(grep -c '^#' "$out") frames, threads: $(grep -cE '^[* ] +[0-9]+ +(LWP|process) ' "$out")"
}

# check_dmesg PANIC_REGEX: makedumpfile extracts the kernel log through
# VMCOREINFO, and the log holds the panic message.
check_dmesg() {
	local vmcore out=$WORK/dmesg.txt
	vmcore=$(the_vmcore)
	rm -f "$out"
	timeout 120 makedumpfile --dump-dmesg "$vmcore" "$out" >"$WORK/makedumpfile.txt" 2>&1 ||
		{ cat "$WORK/makedumpfile.txt"; fail "makedumpfile --dump-dmesg failed"; }
	grep -Eq "Kernel panic - not syncing: $1" "$out" || fail "the panic message is not in the dumped log"
	note "makedumpfile --dump-dmesg: $(wc -l <"$out") log lines, panic message present"
}

# check_crash TASK: what crash 8.0.2 makes of it.  It cannot analyse much of
# 6.12 (see the README), but it must open the dump and name the panic task
# from the registers and crashing_cpu we saved.
check_crash() {
	local vmcore out=$WORK/crash.txt
	vmcore=$(the_vmcore)
	# CRASH_OPTS: "--kaslr auto" for a KASLR guest (crash looks for the
	# offset on its own only if the kernel has modules)
	printf 'sys\nlog\nps\nbt\nquit\n' | timeout 180 crash -s ${CRASH_OPTS:-} "$VMLINUX" "$vmcore" >"$out" 2>&1 || true
	# crash 8.0.2 sometimes aborts in malloc on 6.12 before printing the
	# panic task; it must at least have read the runqueues from the dump.
	grep -Eq "^PID: +[0-9]+ +TASK: [0-9a-f]+ +CPU: [0-9]+ +COMMAND: \"$1\"|active task ffff[0-9a-f]+ on cpu [0-9]+" "$out" ||
		{ cat "$out"; fail "crash did not find the active task"; }
	note "crash: $(grep -E '^PID:|active task' "$out" | head -1 | tr -s ' ')"
}

# part_geom DISK N: "START_SECTOR NR_SECTORS" of partition N.
part_geom() {
	sfdisk -J "$1" | python3 -c 'import json,sys; p=json.load(sys.stdin)["partitiontable"]["partitions"][int(sys.argv[1])-1]; print(p["start"], p["size"])' "$2"
}

# part_out DISK N FILE / part_in DISK N FILE: copy partition N out and back.
part_out() {
	local g
	g=($(part_geom "$1" "$2"))
	dd if="$1" of="$3" bs=512 skip="${g[0]}" count="${g[1]}" status=none
}
part_in() {
	local g
	g=($(part_geom "$1" "$2"))
	dd if="$3" of="$1" bs=512 seek="${g[0]}" conv=notrunc status=none
}

# part_sum DISK N: sha256 of partition N.
part_sum() {
	local g
	g=($(part_geom "$1" "$2"))
	dd if="$1" bs=512 skip="${g[0]}" count="${g[1]}" status=none | sha256sum | cut -d' ' -f1
}

# host_format DISK N: diskdumpfmt partition N from the host.
host_format() {
	part_out "$1" "$2" "$WORK/part.tmp"
	tools/diskdump/diskdumpfmt -q "$WORK/part.tmp"
	part_in "$1" "$2" "$WORK/part.tmp"
	rm -f "$WORK/part.tmp"
}

# host_mkfs DISK N: an ext4 file system with a file in it on partition N.
host_mkfs() {
	part_out "$1" "$2" "$WORK/part.tmp"
	mkfs.ext4 -q -F "$WORK/part.tmp"
	head -c 1M /dev/urandom >"$WORK/payload"
	debugfs -w -R "write $WORK/payload payload" "$WORK/part.tmp" >/dev/null 2>&1
	part_in "$1" "$2" "$WORK/part.tmp"
	rm -f "$WORK/part.tmp"
}

# host_fsck DISK N: e2fsck -fn of partition N, quiet; returns its status.
host_fsck() {
	part_out "$1" "$2" "$WORK/part.tmp"
	e2fsck -fn "$WORK/part.tmp" >"$WORK/fsck.txt" 2>&1
	local rc=$?
	rm -f "$WORK/part.tmp"
	return $rc
}

# host_format_v1 DISK N: partition N in diskdump's format version 1 (each
# block: the format struct with version 0, then zeros), which must be
# refused and formatted again.
host_format_v1() {
	part_out "$1" "$2" "$WORK/part.tmp"
	python3 - "$WORK/part.tmp" <<'PY'
import os, struct, sys
path = sys.argv[1]
n = os.path.getsize(path) // 4096
with open(path, 'r+b') as f:
    for b in range(n):
        f.write(struct.pack('<8sIIQQ', b'DDFORMAT', 0x01020304, 4096, b, n).ljust(4096, b'\0'))
PY
	part_in "$1" "$2" "$WORK/part.tmp"
	rm -f "$WORK/part.tmp"
}
