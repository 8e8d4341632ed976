# Shared helpers of the QEMU scenarios.  Sourced by tests/scenarios/*/run.sh,
# which run with the repository root as the working directory and these set:
#   KERNEL (bzImage), VMLINUX, INITRD, WORK (a fresh scratch directory).
set -euo pipefail

: "${QEMU_TIMEOUT:=300}"
: "${MEM:=256M}"
: "${SMP:=1}"
# The kernel is built with KASLR; scenarios boot with nokaslr for fixed
# addresses unless they set KASLR=kaslr (the kaslr scenario).
: "${KASLR:=nokaslr}"
# The panic of scsi_dump_test's hold_ hooks, which panic the machine
# themselves (hostlock, iommu-stuck, iommu-nomap).
HOLD_PANIC='scsi_dump_test: CPU [0-9]+ holds on for good'

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

# console_tail LOG: the console's last 40 lines on stderr, and its last 3
# as notes too, which a CI summary that keeps only the result lines shows.
console_tail() {
	tail -40 "$1" >&2
	tail -3 "$1" | tr -d '\r' | sed 's/^/  - console: /'
}

# What the kernel prints when something is wrong that a scenario did not
# ask for: a WARNING or BUG, an oops, a lockdep report (each opens on
# "WARNING: "), sleeping in atomic context, a debug-objects report, a hung
# task or an RCU stall, UBSAN or KFENCE.  SPLATS_OK, a
# regular expression, names the lines a scenario provokes on purpose.
SPLATS='WARNING: |BUG: |kernel BUG at|Oops: |general protection fault|INFO: possible|ODEBUG: |DEBUG_LOCKS_WARN_ON|inconsistent lock state|sleeping function called from invalid context|INFO: task .* blocked for more than|rcu: INFO: .* detected stalls|UBSAN: |BUG: KFENCE|list_(add|del) corruption|Kernel stack is corrupted'

# QEMU's TCG races with the kernel's live text patching: a CPU can run a
# stale translation of a static branch site with text_poke_bp()'s int3 in
# it after the patch is done (seen when "crng init done" flips a static key
# with two CPUs up, with the tinyconfig kernel too).  That oops is the
# emulator's, not the kernel's, and is not counted.
SPLATS_TCG='Oops: int3: 0000 \[#1\]'

# check_splats LOG: no kernel report in LOG but those SPLATS_OK names.
check_splats() {
	local found
	found=$(grep -aE "$SPLATS" "$1" | tr -d '\r' | grep -avE "$SPLATS_TCG" |
		grep -avE "${SPLATS_OK:-^\$}" | head -3) || true
	[ -z "$found" ] || { echo "$found" | sed 's/^/  - unexpected: /'; fail "the kernel reported what the scenario did not ask for (SPLATS_OK)"; }
}

# boot_qemu LOG APPEND [qemu args]: boot $KERNEL under TCG with the serial
# console in LOG until the guest powers off; QEMU_SECONDS says how long.
# APPEND follows the console and panic options every scenario uses.
boot_qemu() {
	local log=$1 append=$2
	shift 2
	local start=$SECONDS rc=0
	timeout --foreground -k 5 "$QEMU_TIMEOUT" qemu-system-x86_64 \
		-accel tcg -m "$MEM" -smp "$SMP" -nodefaults -no-user-config \
		-display none -serial "file:$log" -monitor none \
		-kernel "$KERNEL" \
		-append "console=ttyS0 panic=1 oops=panic loglevel=6 $KASLR $append" \
		"$@" || rc=$?
	QEMU_SECONDS=$((SECONDS - start))
	[ $rc -eq 0 ] || { console_tail "$log"; fail "qemu exit $rc after ${QEMU_SECONDS}s (124 = timeout)"; }
	check_splats "$log"
	# the dump drivers are modules: a guest that did not load one tests less
	if grep -q "load-modules: " "$log"; then
		grep "load-modules: " "$log" >&2
		fail "a module of the initramfs did not load"
	fi
}

# run_qemu LOG APPEND [extra qemu args]: boot the test initramfs until the
# guest powers off.  The dump disk must already be given in the extra args.
# IOMMU=lazy or IOMMU=strict: a q35 machine with QEMU's Intel IOMMU, on in
# the guest with lazy or strict unmapping, every PCI device behind it (the
# output disk a modern virtio device that uses it: a legacy one would
# bypass it).
run_qemu() {
	local log=$1 append=$2 out
	shift 2
	out=(-drive "file=$WORK/out.img,if=virtio,format=raw")
	case ${IOMMU:-} in
	"") ;;
	lazy|strict)
		out=(-machine q35 -device "intel-iommu${IOMMU_OPTS:+,$IOMMU_OPTS}"
			-drive "file=$WORK/out.img,if=none,format=raw,id=out"
			-device virtio-blk-pci,drive=out,iommu_platform=on,disable-legacy=on)
		append="$append intel_iommu=on iommu.strict=$([ "$IOMMU" = strict ] && echo 1 || echo 0)" ;;
	*) fail "IOMMU=$IOMMU: lazy or strict" ;;
	esac
	boot_qemu "$log" "$append" -initrd "$INITRD" "${out[@]}" "$@"
}

# check_iommu MODE DEVICE_REGEX: the guest ran with the Intel IOMMU in MODE
# (lazy or strict) and the PCI device matching DEVICE_REGEX (in the
# "Adding to iommu group" line) behind it, in boot 2's kernel log.
check_iommu() {
	local dm=$WORK/out/dmesg-boot2.txt
	expect_log "$dm" "DMAR: IOMMU enabled" "the Intel IOMMU is not on"
	expect_log "$dm" "iommu: DMA domain TLB invalidation policy: $1 mode" "the IOMMU is not in $1 mode"
	expect_log "$dm" "$2: Adding to iommu group" "the dump disk's controller is not behind the IOMMU"
	grep -q "DMAR: DRHD: handling fault" "$WORK/serial.log" && fail "the IOMMU reported a DMA fault"
	note "$(grep -o 'iommu: DMA domain TLB invalidation policy: [a-z]* mode' "$dm"); $(grep -c 'Adding to iommu group' "$dm") devices behind the IOMMU"
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
# iommu_stuck_run TEST: the machine of iommu-stuck and iommu-nomap, two
# boots: a strict IOMMU in caching mode (a map flushes the IOTLB under the
# invalidation queue lock, as an unmap does), sda1 on q35's AHCI
# ($WORK/a.img) armed first, nvme0n1p1 ($WORK/n.img) second, both
# formatted by the host; the guest's TEST.boot1 has the other CPU take that
# lock for good.  SUM_A and SUM_N: the two partitions' sha256 before
# boot 1.  Checks that the CPU took the lock, that it was stopped where it
# was, and that sda1 was tried first; the scenario checks the rest.
iommu_stuck_run() {
	local cap disks="-drive file=$WORK/a.img,if=none,format=raw,id=dd0 -device ide-hd,drive=dd0,bus=ide.0
	-drive file=$WORK/n.img,if=none,format=raw,id=dn0 -device nvme,serial=diskdump1,drive=dn0"
	SMP=2
	mk_dump_disk "$WORK/a.img" 300
	mk_dump_disk "$WORK/n.img" 300
	host_format "$WORK/a.img" 1
	host_format "$WORK/n.img" 1
	SUM_A=$(part_sum "$WORK/a.img" 1)
	SUM_N=$(part_sum "$WORK/n.img" 1)
	mk_out_disk "$WORK/out.img" 700
	IOMMU=strict IOMMU_OPTS=caching-mode=on two_qemus "ddtest=$1 dddevs=/dev/sda1,/dev/nvme0n1p1" "$disks" "$disks"
	check_iommu strict "0000:00:1f.2"
	# capability bit 7: caching mode
	cap=$(grep -o "dmar0: reg_base_addr [0-9a-f]* ver [0-9:]* cap [0-9a-f]*" "$WORK/out/dmesg-boot2.txt" | awk '{ print $NF }' || true)
	[ -n "$cap" ] && [ $(((0x$cap >> 7) & 1)) = 1 ] || fail "the IOMMU is not in caching mode (cap ${cap:-not found})"
	expect_log "$WORK/serial.log" "scsi_dump_test: CPU [0-9]+ holds the invalidation queue lock of host [0-9]+'s IOMMU for good" \
		"the other CPU did not take the IOMMU's invalidation queue lock"
	expect_log "$WORK/serial.log" "diskdump: CPUs [0-9]+ not parked in 100 ms: stopped where they are" \
		"the CPU holding the lock with interrupts off was not reported unparked"
	expect_log "$WORK/serial.log" "trying partition 8:1 " "sda1 was not tried first"
}
# check_armed_elsewhere DUMPDEV IMG:PART:NAME...: each partition NAME
# (partition PART of IMG) was refused when armed: /proc/diskdump does not
# list it, only one partition (DUMPDEV's) was tried at panic, the dump
# there is good, and NAME is formatted and empty after the panic.
check_armed_elsewhere() {
	local dev=$1 spec img part name
	shift
	for spec in "$@"; do
		name=${spec##*:}
		grep -q "^$name " "$WORK/out/proc-diskdump.txt" && fail "/proc/diskdump lists the refused $name"
	done
	[ "$(grep -c 'diskdump: trying partition' "$WORK/serial.log")" = 1 ] ||
		fail "a partition other than $(basename "$dev") was tried at panic"
	DUMPDEV=$dev check_saved_dump "sysrq triggered crash" 1
	for spec in "$@"; do
		IFS=: read -r img part name <<<"$spec"
		part_out "$img" "$part" "$WORK/$name.part"
		part_state "$WORK/$name.part" 3 empty "$name after the panic"
	done
}

# check_refused LOG SUM WHY WHAT: the panic in LOG wrote nothing: the
# self check or lockdown refused with the console line WHY (a regular
# expression), no partition was tried, and the dump disk $WORK/dump.img
# still has sha256 SUM.  WHAT names the case in failures.
check_refused() {
	expect_log "$1" "Kernel panic - not syncing: sysrq triggered crash" "$4: no panic"
	expect_log "$1" "$3" "$4: the dump was not refused"
	grep -q "trying partition" "$1" && fail "$4: diskdump went on to a partition"
	[ "$(sha256sum <"$WORK/dump.img")" = "$2" ] || fail "$4: the dump disk changed"
}
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

# the_vmcore: path of the one saved vmcore ($VMCORE if set).
the_vmcore() {
	local v
	[ -z "${VMCORE:-}" ] || { echo "$VMCORE"; return; }
	v=$(find "$WORK/out/crash" -name vmcore -type f 2>/dev/null | head -n1)
	[ -n "$v" ] || fail "no vmcore was saved"
	echo "$v"
}

# expect_log LOG REGEX WHAT
expect_log() {
	grep -Eq "$2" "$1" || { tail -30 "$1" >&2; fail "$3: /$2/ not in $(basename "$1")"; }
}

# expect_line FILE LINE WHAT: FILE has LINE, whole.
expect_line() {
	grep -qxF "$2" "$1" 2>/dev/null || { cat "$1" >&2; fail "$3: '$2' not in $(basename "$1")"; }
}

# dump_scenario APPEND...: the common path.  A fresh 300 MiB dump disk
# behind the lsi53c895a, boot, crash, reboot, savecore; then the saved dump
# is extracted and checked.
dump_scenario() {
	driver_scenario lsi "$@"
}

# panic_scenario APPEND SETUP REPORT PANIC: dump_scenario with APPEND for a
# panic that the kernel itself raises (a detector, panic_on_warn), then:
# the guest's SETUP line, the kernel's REPORT and "Kernel panic - not
# syncing: PANIC" are on the console, and the saved dump is complete, its
# header naming PANIC.  All four are regular expressions.
panic_scenario() {
	local log=$WORK/serial.log
	dump_scenario "$1"
	expect_log "$log" "GUEST: $2" "the guest did not set the panic up"
	expect_log "$log" "$3" "the kernel did not report it"
	expect_log "$log" "Kernel panic - not syncing: $4" "the kernel did not panic"
	check_saved_dump "$4" 1
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

# hotadd_run APPEND: the guest (256 MiB, room for a 256 MiB DIMM) runs hook
# hotadd with APPEND, dumping to sda1; once it says it armed, QMP plugs a
# 256 MiB DIMM (ACPI memory hotplug).  The output disk is extracted.
hotadd_run() {
	local plug qmp_pid
	mk_dump_disk "$WORK/dump.img" 700
	mk_out_disk "$WORK/out.img" 900
	plug='[{"execute": "object-add", "arguments": {"qom-type": "memory-backend-ram", "id": "hot1", "size": 268435456}},
 {"execute": "device_add", "arguments": {"driver": "pc-dimm", "id": "dimm1", "memdev": "hot1"}}]'
	python3 tests/qmp-when.py "$WORK/serial.log" "GUEST: armed; plug the memory" \
		"$WORK/qmp.sock" "$plug" >"$WORK/qmp.txt" 2>&1 &
	qmp_pid=$!
	# memhp_default_state=offline: the hook onlines the DIMM itself, as
	# movable, so that the pattern lands in it (Debian's kernel would
	# online it at once, in a zone of the kernel's choosing)
	MEM="256M,slots=2,maxmem=1G" run_qemu "$WORK/serial.log" "memhp_default_state=offline $1" \
		$(scsi_disk "$WORK/dump.img") -qmp "unix:$WORK/qmp.sock,server=on,wait=off"
	wait $qmp_pid || { cat "$WORK/qmp.txt"; fail "the DIMM was not plugged"; }
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	extract_out
}

# two_hosts_run APPEND [qemu args]: two CPUs, two lsi53c895a HBAs, a.img
# behind host 0 and b.img behind host 1, each with one formatted 300 MiB
# partition; the guest dumps to both (host 0's first).  SUM_A and SUM_B
# are the formatted partitions' sha256.  Then host_maps.
two_hosts_run() {
	local append=$1
	shift
	SMP=2
	mk_dump_disk "$WORK/a.img" 300
	mk_dump_disk "$WORK/b.img" 300
	host_format "$WORK/a.img" 1
	host_format "$WORK/b.img" 1
	SUM_A=$(part_sum "$WORK/a.img" 1)
	SUM_B=$(part_sum "$WORK/b.img" 1)
	mk_out_disk "$WORK/out.img" 700
	run_qemu "$WORK/serial.log" "$append dddevs=/dev/sda1,/dev/sdb1" \
		$(scsi_hba 0) $(scsi_hd "$WORK/a.img" scsi0 0) \
		$(scsi_hba 1) $(scsi_hd "$WORK/b.img" scsi1 0) "$@"
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	extract_out
	host_maps
}

# host_maps: which partition the guest found behind host 0 and host 1 (sd's
# probes are asynchronous), from the host_parts lines of both boots: H0,
# H0DEV, H1, H1DEV in boot 1 (/dev/sdX1 and MAJ:MIN), H0B, H1B in boot 2.
host_maps() {
	local maps
	maps=$(grep -aoE 'GUEST: host 0: /dev/sd[a-z]1 [0-9]+:[0-9]+; host 1: /dev/sd[a-z]1 [0-9]+:[0-9]+' "$WORK/serial.log")
	[ "$(echo "$maps" | wc -l)" = 2 ] || fail "the guest did not say which partition is behind which host in both boots"
	read -r _ _ _ H0 H0DEV _ _ H1 H1DEV <<<"$(echo "$maps" | head -1 | tr ';' ' ')"
	read -r _ _ _ H0B _ _ _ H1B _ <<<"$(echo "$maps" | tail -1 | tr ';' ' ')"
}

# busy_scenario DEVICE_ARGS...: a dump disk with sda1 (300 MiB) and sda2 (64
# MiB of random bytes), two CPUs, the guest reading sda2 with O_DIRECT in
# two loops while it crashes with sysrq c (hook busyread).  DEVICE_ARGS
# attach the disk, drive dd0, which QEMU throttles to 200 requests a
# second, so that the reader's commands wait in QEMU long enough to be in
# flight at the panic (the dump is throttled too).  BUSY_IMG and BUSY_PART
# name the partition read, SUM2 is its sha256 before.
# BUSY_SEPARATE=1: the reader reads sdb1 (64 MiB of random bytes), drive
# dd1, which DEVICE_ARGS attach to the same host, throttled to 10 requests
# a second: each of its commands waits in QEMU for 100-200 ms, far longer
# than the other CPU takes to be parked and the dump's quiesce to come,
# and the dump disk is not throttled.
# BUSY_APPEND: more kernel parameters.  BUSY_TEST: the guest hook, busyread
# or one that sources it.
busy_scenario() {
	local drives busy count=64
	if [ "${BUSY_SEPARATE:-0}" = 1 ]; then
		mk_dump_disk "$WORK/dump.img" 400 300
		mk_dump_disk "$WORK/busy.img" 80 64
		BUSY_IMG=$WORK/busy.img BUSY_PART=1 busy=/dev/sdb1 count=4
		drives="-drive file=$WORK/dump.img,if=none,format=raw,id=dd0
			-drive file=$WORK/busy.img,if=none,format=raw,id=dd1,throttling.iops-total=10"
	else
		mk_dump_disk "$WORK/dump.img" 400 300 64
		BUSY_IMG=$WORK/dump.img BUSY_PART=2 busy=/dev/sda2
		drives="-drive file=$WORK/dump.img,if=none,format=raw,id=dd0,throttling.iops-total=${BUSY_IOPS:-200}"
	fi
	head -c 64M /dev/urandom >"$WORK/p2"
	part_in "$BUSY_IMG" "$BUSY_PART" "$WORK/p2"
	SUM2=$(part_sum "$BUSY_IMG" "$BUSY_PART")
	mk_out_disk "$WORK/out.img" 700
	# shellcheck disable=SC2086
	SMP=2 run_qemu "$WORK/serial.log" "ddtest=${BUSY_TEST:-busyread} ddbusy=$busy ddbusycount=$count ddmib=16 ddtrigger=sysrq dddevs=/dev/sda1${BUSY_APPEND:+ $BUSY_APPEND}" \
		"$@" $drives
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	extract_out
	expect_log "$WORK/serial.log" "GUEST: reader passes before the crash: [1-9]" "the background reader did not run"
}

# iommu_busy [QEMU_ARGS]: busy_scenario with the dump disk on q35's own
# AHCI (00:1f.2, port 0) behind the Intel IOMMU (IOMMU=lazy or strict),
# and once memory is filled the other CPU also busy with the AHCI host
# through a test hook (mapbusy): IOMMU_HOOK=busy_map (the default) maps and
# unmaps a page with interrupts off, busy_iommu holds the IOMMU's
# invalidation queue lock, each 1 ms at a time.  Then every check of a
# good dump.
iommu_busy() {
	local log=$WORK/serial.log hook=${IOMMU_HOOK:-busy_map}
	# 2000 IOPS: the guest gives AHCI disks behind an IOMMU 28 KiB commands
	# (tests/guest/init says why), and formats and saves 300 MiB through them
	BUSY_IOPS=2000 BUSY_TEST=mapbusy BUSY_APPEND="ddhook=$hook" busy_scenario -device ide-hd,drive=dd0,bus=ide.0 "$@"
	expect_log "$log" "GUEST: sda: 28 KiB commands" "the AHCI disk behind the IOMMU kept its long commands"
	expect_log "$WORK/out/dmesg-boot2.txt" "ahci 0000:00:1f.2: AHCI" "q35's AHCI is not at 00:1f.2"
	check_iommu "$IOMMU" "0000:00:1f.2"
	case $hook in
	busy_map) expect_log "$log" "scsi_dump_test: CPU [0-9]+ maps and unmaps for host [0-9]+ 1 ms at a time, behind an IOMMU" \
		"the other CPU did not map through the IOMMU" ;;
	busy_iommu) expect_log "$log" "scsi_dump_test: CPU [0-9]+ holds the invalidation queue lock of host [0-9]+'s IOMMU 1 ms at a time" \
		"the other CPU did not take the IOMMU's lock" ;;
	esac
	grep -q "not parked in" "$log" && fail "the busy CPU was not parked"
	check_saved_dump "sysrq triggered crash" 2
	check_direct copy
	[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
	note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
	note "$(grep -o 'diskdump: timers of other code armed [0-9]* times, never run; the first [a-z_]*' "$log" || echo 'no timer of other code armed while dumping')"
	check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
}

# queue_disks: for a dump through a queue of its own with reads of the same
# disk in flight: dump.img with p1 (300 MiB, the dump's) and p2 (64 MiB of
# random bytes, SUM2 its sha256), and a 700 MiB output disk.
queue_disks() {
	mk_dump_disk "$WORK/dump.img" 400 300 64
	head -c 64M /dev/urandom >"$WORK/p2"
	part_in "$WORK/dump.img" 2 "$WORK/p2"
	SUM2=$(part_sum "$WORK/dump.img" 2)
	mk_out_disk "$WORK/out.img" 700
}

# check_queue_pages DEVICE_REGEX DRIVER: how a driver with a dump queue of
# its own (its log lines start with DEVICE_REGEX in the kernel log, DRIVER
# on the console) wrote the pages: behind an IOMMU (IOMMU set) every page
# copied to the buffer mapped at arming; otherwise written where they are,
# with more than one write in flight.
check_queue_pages() {
	local log=$WORK/serial.log dm=$WORK/out/dmesg-boot2.txt
	if [ -n "${IOMMU:-}" ]; then
		expect_log "$dm" "$1: dump queue .*, pages copied to a mapped buffer" "the dump queue would hand the IOMMU unmapped pages"
		check_direct copy
	else
		expect_log "$dm" "$1: dump queue .*, pages written where they are" "the dump queue copies every page"
		check_direct direct
		expect_log "$log" "$2: [0-9]+ writes of pages, up to [2-9] in flight" "never more than one write in flight"
		note "$(grep -Eo "$2: [0-9]+ writes of pages, up to [0-9]+ in flight" "$log" | head -1)"
	fi
}

# virtio_busy [DEVICE_OPTS]: a virtio-blk disk with two request queues (vdb;
# vda is the output disk), vdb1 the dump partition, and the other CPU
# reading vdb2 (random bytes) with O_DIRECT through the block layer's
# queue, throttled in boot 1 so that its requests are in flight at the
# panic; the dump goes through the virtqueue virtio_blk set aside.  Boot 2
# is a fresh QEMU without the throttle (two_qemus).  DEVICE_OPTS: more
# virtio-blk-pci options.  With IOMMU set, the disk is behind it too.
# Then every check.
virtio_busy() {
	local log=$WORK/serial.log dm=$WORK/out/dmesg-boot2.txt args dev vdev
	queue_disks
	args="ddtest=busyread ddbusy=/dev/vdb2 ddmib=16 ddtrigger=sysrq dddevs=/dev/vdb1"
	# a slot after the output disk's, so that the output disk stays vda
	dev="-device virtio-blk-pci,drive=dd0,addr=0x18,num-queues=2${1:+,$1}"
	[ -n "${IOMMU:-}" ] && dev="$dev,iommu_platform=on,disable-legacy=on"
	dev="$dev -drive file=$WORK/dump.img,if=none,format=raw,id=dd0"
	SMP=2 two_qemus "$args" "$dev,throttling.iops-total=200 -D $WORK/nvme-trace.log
		-trace enable=pci_nvme_write -trace enable=pci_nvme_flush_ns" "$dev"
	expect_log "$dm" "virtio_blk virtio[0-9]+: dump queue dump, [0-9]+ entries" "no virtqueue was set aside for dumps"
	vdev=$(grep -Eo 'virtio_blk virtio[0-9]+: dump queue dump' "$dm" | head -1 | cut -d' ' -f2)
	expect_log "$dm" "virtio_blk $vdev 1/0/0 default/read/poll queues" "the block layer was given both queues of ${vdev%:}"
	expect_log "$log" "GUEST: reader passes before the crash: [1-9]" "the background reader did not run"
	DUMPDEV=/dev/vdb1 check_saved_dump "sysrq triggered crash" 2
	check_queue_pages "virtio_blk virtio[0-9]+" virtio_blk_dump
	[ "$(part_sum "$WORK/dump.img" 2)" = "$SUM2" ] || fail "vdb2 changed"
	note "$(grep -o 'dump queue dump, [0-9]* entries, [0-9]* KiB per request' "$dm" | head -1); vdb2 unchanged"
	note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log")"
	check_gdb
	check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
}

# virtio_scsi_busy: busy_scenario on a disk behind virtio-scsi with two
# request queues (sda; with IOMMU set, behind the IOMMU too): the block
# layer gets one, the dump the other.  Then every check.
virtio_scsi_busy() {
	local log=$WORK/serial.log dm=$WORK/out/dmesg-boot2.txt dev vdev
	dev=virtio-scsi-pci,id=vs0,addr=0x18,num_queues=2
	[ -n "${IOMMU:-}" ] && dev="$dev,iommu_platform=on,disable-legacy=on"
	busy_scenario -device "$dev" -device scsi-hd,drive=dd0,bus=vs0.0
	expect_log "$dm" "virtio_scsi virtio[0-9]+: dump queue set aside, [0-9]+ entries" "no request queue was set aside for dumps"
	vdev=$(grep -Eo 'virtio_scsi virtio[0-9]+: dump queue set aside' "$dm" | head -1 | cut -d' ' -f2)
	expect_log "$dm" "virtio_scsi $vdev 1/0/0 default/read/poll queues" "the block layer was given both request queues of ${vdev%:}"
	expect_log "$dm" "scsi host[0-9]+: Virtio SCSI HBA" "the disk is not behind virtio-scsi"
	grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
	expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
	check_saved_dump "sysrq triggered crash" 2
	if [ -n "${IOMMU:-}" ]; then
		expect_log "$dm" "virtio_scsi $vdev dump queue set aside, [0-9]+ entries, behind the platform's DMA" \
			"the dump queue does not know that its ring is behind the IOMMU"
		check_direct copy
	else
		grep -q "virtio_scsi $vdev dump queue set aside, .*platform" "$dm" &&
			fail "without iommu_platform, the dump queue thinks it is behind the IOMMU"
		check_direct direct
	fi
	[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
	note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
	check_gdb
	check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
}

# hba_busy QEMU_HBA SET_ASIDE HOST: busy_scenario on a disk behind the
# SCSI adapter QEMU_HBA (at 00:18.0, sda), whose driver set a command
# aside for dumps at probe (SET_ASIDE: a regex of its kernel log line) and
# names its host HOST (a regex); the dump's command goes in that slot
# while the other CPU's reads of sda2 are in flight on the same adapter.
# HD_OPTS: more scsi-hd options; PAGES=copy for a driver that takes
# only scsi_dump's buffer (dump_copy_pages).  Then every check.
hba_busy() {
	local log=$WORK/serial.log dm=$WORK/out/dmesg-boot2.txt
	busy_scenario -device "$1,id=hba0,addr=0x18" -device "scsi-hd,drive=dd0,bus=hba0.0${HD_OPTS:+,$HD_OPTS}"
	expect_log "$dm" "$2" "the driver set nothing aside for dumps"
	expect_log "$dm" "scsi host[0-9]+: $3" "the disk is not behind $1"
	grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
	expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
	check_saved_dump "sysrq triggered crash" 2
	check_direct "${PAGES:-direct}"
	[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
	note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
	note "$(grep -Eo "$2" "$dm" | head -1)"
	check_gdb
	check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
}

# nvme_busy: an NVMe namespace, nvme0n1p1 the dump partition, and the other
# CPU reading nvme0n1p2 (random bytes) with O_DIRECT on the normal queues,
# throttled in boot 1 so that its commands are in flight at the panic; the
# dump goes through the queue pair nvme-pci set aside.  Boot 1 ends in QEMU
# and boot 2 is a fresh QEMU (two_qemus).  Then every check.
nvme_busy() {
	local log=$WORK/serial.log dm=$WORK/out/dmesg-boot2.txt args dev
	queue_disks
	args="ddtest=busyread ddbusy=/dev/nvme0n1p2 ddmib=16 ddtrigger=sysrq dddevs=/dev/nvme0n1p1"
	dev="-device nvme,serial=diskdump0,drive=dd0 -drive file=$WORK/dump.img,if=none,format=raw,id=dd0"
	SMP=2 two_qemus "$args" "$dev,throttling.iops-total=200 -D $WORK/nvme-trace.log
		-trace enable=pci_nvme_write -trace enable=pci_nvme_flush_ns" "$dev"
	expect_log "$dm" "nvme nvme0: dump queue [0-9]+, [0-9]+ entries" "no dump queue was created"
	expect_log "$log" "GUEST: reader passes before the crash: [1-9]" "the background reader did not run"
	expect_log "$log" "trying partition 259:" "the NVMe partition was not tried"
	DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 2
	check_queue_pages "nvme nvme0" nvme_dump
	# Only boot 1's QEMU is traced.  When QEMU's TCG int3 race (see
	# SPLATS_TCG) stopped boot 1 before the dump, boot 2's QEMU did boot
	# 1's work and the dump: the order is not seen then, and it says so.
	if ! grep -q "diskdump: dump complete" "$WORK/serial1.log" &&
		grep -Eq "$SPLATS_TCG" "$WORK/serial1.log"; then
		note "boot 1 hit QEMU's TCG int3 race before the dump: flush order not traced in this run"
	else
		# p1 starts at sector 2048, in 512-byte LBAs
		check_flush_order "$WORK/nvme-trace.log" 2048 >"$WORK/flush.txt"
		note "$(cat "$WORK/flush.txt")"
	fi
	[ "$(part_sum "$WORK/dump.img" 2)" = "$SUM2" ] || fail "nvme0n1p2 changed"
	note "$(grep -o 'dump queue [0-9]*, [0-9]* entries, [0-9]* KiB per command' "$dm" | head -1); p2 unchanged"
	note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log")"
	check_gdb
	check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
}

# check_flush_order TRACE LBA: QEMU's NVMe trace of the dump's boot
# (pci_nvme_write and pci_nvme_flush_ns, in the order the controller took
# them): the last write is the final header, at LBA (the partition's first
# block); a flush comes between the last page written and it, and another
# after it.  A drive's cache may write its blocks in any order: a header
# saying COMPLETE flushed with the pages could reach the medium first.
check_flush_order() {
	local out
	out=$(python3 - "$1" "$2" <<'PY'

import re, sys
ev = []
for line in open(sys.argv[1], errors='replace'):
    m = re.search(r'pci_nvme_write .*lba 0x([0-9a-f]+)', line)
    if m:
        ev.append(int(m.group(1), 16))
    elif 'pci_nvme_flush_ns' in line:
        ev.append('flush')
def end(msg, ok=False):
    print(msg)
    sys.exit(0 if ok else 1)
hdr = int(sys.argv[2])
writes = [i for i, e in enumerate(ev) if e != 'flush']
if not writes:
    end('no write traced')
last = writes[-1]
if ev[last] != hdr:
    end('the last write is at LBA %#x, not the header at %#x' % (ev[last], hdr))
pages = [i for i in writes if ev[i] != hdr]
if not pages:
    end('no page written')
between = ev[pages[-1] + 1:last].count('flush')
after = ev[last + 1:].count('flush')
end('%d writes; flushes between the last page and the final header: %d, after it: %d'
    % (len(writes), between, after), between and after)
PY
) || fail "the final header is not fenced by cache flushes: $out"
	echo "$out"
}

# info_matches INFO KEY REGEX: the info file's KEY is, whole, what the
# extended REGEX matches.
info_matches() {
	grep -Eqx "$2: ($3)" "$1" || fail "$(basename "$(dirname "$1")")/info: wanted '$2: $3', got '$(grep "^$2:" "$1")'"
}

# armed_in PROCFILE DEV: the copy of /proc/diskdump lists DEV (/dev/NAME).
armed_in() {
	grep -q "^$(basename "$2") " "$1" || { cat "$1" >&2; fail "$2 is not armed in $(basename "$1")"; }
}

# pattern_stayed LIST: ddpattern, just before the crash, found every page
# of LIST (pattern.txt) still at the PFN it was listed with, as it wrote in
# LIST.moved (else a wrong page in the dump could be the guest's
# migration, not diskdump).
pattern_stayed() {
	local moved
	[ -f "$1.moved" ] || fail "ddpattern did not say whether pattern pages moved ($(basename "$1").moved)"
	moved=$(cat "$1.moved")
	[ "$moved" = 0 ] || fail "$moved pattern pages moved after they were listed: the pattern check cannot be trusted"
}

# check_saved_dump PANIC_REGEX CPUS: what every good dump must show, from
# the saved dump's info (the header: the panic, the status and flags, the
# CPUs' notes) and from /proc/diskdump.  With KEPT=1 (savecore -k) the
# partition must be refused when armed again.
check_saved_dump() {
	local log=$WORK/serial.log panic=$1 cpus=$2 dev=${DUMPDEV:-/dev/sda1} vmcore info
	vmcore=$(the_vmcore)
	info=$(dirname "$vmcore")/info
	info_matches "$info" panic "$panic"
	info_is "$info" device "$dev"
	# complete, and never with interrupts on (that would be flag irqs-on)
	info_is "$info" status complete
	info_is "$info" flags none
	info_is "$info" partial no
	info_is "$info" cpus "$cpus"
	info_is "$info" cpu_notes "$cpus"
	# Only the console records two facts: that the flush after the final
	# header (the driver's shutdown) worked, and that interrupts were off
	# when the writing began (the header's irqs-on flag is raised only in
	# diskdump_udelay()).
	expect_log "$log" "diskdump: writing [0-9]+ pages, interrupts off" "diskdump did not start writing with interrupts off"
	expect_log "$log" "diskdump: dump complete: [0-9]+ pages" "the dump did not complete (a failed shutdown?)"
	if [ "${KEPT:-0}" = 1 ]; then
		# savecore -k left the dump there: the kernel must not arm it
		expect_log "$log" "$dev could not be armed: $(basename "$dev") holds a crash dump that savecore has not saved" \
			"a partition still holding the dump (savecore -k) was armed"
		[ -f "$WORK/out/proc-diskdump-boot2.txt" ] || fail "boot 2 saved no copy of /proc/diskdump"
		grep -q "^$(basename "$dev") " "$WORK/out/proc-diskdump-boot2.txt" &&
			fail "$dev, still holding the dump, is armed in boot 2"
	else
		armed_in "$WORK/out/proc-diskdump-boot2.txt" "$dev"
	fi
	[ "$(stat -c %a "$vmcore")" = 600 ] || fail "vmcore mode is not 0600"
	[ "$(stat -c %a "$(dirname "$vmcore")")" = 700 ] || fail "dump directory mode is not 0700"
	pattern_stayed "$WORK/out/pattern.txt"
	python3 tests/check-vmcore.py "$vmcore" --pattern "$WORK/out/pattern.txt" --cpus "$cpus" \
		>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "vmcore contents"; }
	note "$(grep '^pattern:' "$WORK/check-vmcore.txt")"
	note "dump rate: $(grep -o 'dump complete.*' "$log" | head -1)"
}

# check_direct MODE: the console's count of the dump's pages that the
# device read from where they were (write_pages) and of those copied.
# MODE direct: all but at most 1% read by the device; copy: none (behind
# an IOMMU, with swiotlb=force, or for an encrypted dump).
check_direct() {
	local line d c
	line=$(grep -Eo 'diskdump: [0-9]+ pages read by the device itself, [0-9]+ copied' "$WORK/serial.log" | tail -1) || true
	[ -n "$line" ] || fail "the console does not say how many pages the device read itself"
	d=$(echo "$line" | awk '{print $2}')
	c=$(echo "$line" | awk '{print $9}')
	case $1 in
	direct) [ "$d" -gt 0 ] && [ $((c * 100)) -le "$d" ] ||
		fail "wanted the pages written from where they are, got: $line" ;;
	copy) [ "$d" -eq 0 ] && [ "$c" -gt 0 ] ||
		fail "wanted every page copied, got: $line" ;;
	*) fail "check_direct $1: direct or copy" ;;
	esac
	note "${line#diskdump: }"
}

# check_cut_dump [CPUS]: a dump the kernel stopped writing part way (a second
# panic or an oops after 80% of its pages): diskdump did not start again,
# savecore saved it as partial with 70% to all but one of its pages, and
# the pattern pages that were written are right; CPUS (1) CPUs' notes.
check_cut_dump() {
	local log=$WORK/serial.log info saved total cpus=${1:-1}
	expect_log "$log" "diskdump: panic during the dump: giving up" "diskdump re-entered"
	expect_log "$log" "savecore: saved a PARTIAL dump" "savecore did not say partial"
	info=$(dirname "$(the_vmcore)")/info
	info_is "$info" status "incomplete (the kernel stopped while writing)"
	info_is "$info" partial yes
	saved=$(grep '^saved_pages:' "$info" | cut -d' ' -f2)
	total=$(grep '^dump_pages:' "$info" | cut -d' ' -f2)
	[ "$saved" -ge $((total * 7 / 10)) ] && [ "$saved" -lt "$total" ] || fail "$saved of $total pages saved"
	pattern_stayed "$WORK/out/pattern.txt"
	python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus "$cpus" \
		--allow-missing --expect-partial --min-match 100 >"$WORK/check.txt" ||
		{ cat "$WORK/check.txt"; fail "partial vmcore"; }
	note "$saved of $total pages saved; $(grep '^pattern:' "$WORK/check.txt")"
}

# part_state IMG EXIT STATE WHAT: savecore -c -M on the partition image IMG
# exits with EXIT and says state: STATE.
part_state() {
	local rc=0
	tools/diskdump/savecore -c -M "$1" >"$WORK/state.txt" 2>&1 || rc=$?
	{ [ "$rc" = "$2" ] && grep -qx "state: $3" "$WORK/state.txt"; } ||
		{ cat "$WORK/state.txt"; fail "$4: savecore -c exit $rc, expected $2 and 'state: $3'"; }
}

# kdump_guest: what the scenarios that load kdump beside diskdump share:
# 384 MiB, crashkernel=160M, ddtest=kdumpcmp (APPEND), the test initramfs
# with the capture kernel's /init.test added (KD, also INITRD), and a
# 500 MiB dump disk.
kdump_guest() {
	MEM=384M
	KD=$WORK/kdump-initrd.gz
	bench/mk-initramfs.sh "$INITRD" "$KD"
	INITRD=$KD
	APPEND="ddtest=kdumpcmp ddmib=16 crashkernel=160M"
	mk_dump_disk "$WORK/dump.img" 500
}

# kdump_out_disk: a fresh output disk with the capture kernel and its
# initramfs on it.  Its inode tables are written now: no ext4lazyinit
# thread that may or may not still run at the panic.
kdump_out_disk() {
	rm -f "$WORK/out.img"
	truncate -s 1200M "$WORK/out.img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$WORK/out.img"
	debugfs -w -R "write $KERNEL bzImage" "$WORK/out.img" >/dev/null 2>&1
	debugfs -w -R "write $KD initrd.gz" "$WORK/out.img" >/dev/null 2>&1
}


# check_gdb: gdb opens the vmcore with the vmlinux, shows the panic CPU's
# thread with a backtrace into start_disk_dump, and reads kernel variables.
check_gdb() {
	local vmcore out=$WORK/gdb.txt release
	vmcore=$(the_vmcore)
	release=$(grep '^release:' "$(dirname "$vmcore")/info" | cut -d' ' -f2)
	# With KASLR the symbols move by KERNELOFFSET (KERNEL_OFFSET, hex).
	timeout 120 gdb -nx -batch -ex "symbol-file -o ${KERNEL_OFFSET:-0} $VMLINUX" \
		-ex "core-file $vmcore" -ex 'info threads' -ex 'thread apply all bt' \
		-ex 'p init_uts_ns.name.release' -ex 'p panic_cpu.counter' >"$out" 2>&1 || true
	grep -q "start_disk_dump" "$out" || { cat "$out"; fail "gdb: no backtrace into start_disk_dump"; }
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

# blkdebug_write_error SECTOR [once]: a QEMU blkdebug rule failing writes
# to SECTOR with EIO, every time, or the first time only with "once".
blkdebug_write_error() {
	printf '[inject-error]\nevent = "write_aio"\niotype = "write"\nerrno = "5"\nsector = "%s"\n' "$1"
	[ "${2:-}" != once ] || echo 'once = "on"'
	echo
}

# blkdebug_pair_disks / blkdebug_pair_run: two disks on one lsi HBA, each
# with a formatted partition: sda ($WORK/a.img) behind QEMU's blkdebug
# with the rules in $WORK/blkdebug.conf (written between the two calls),
# and sdb ($WORK/b.img).  The guest arms sda1 then sdb1 and crashes; the
# output disk is extracted.
blkdebug_pair_disks() {
	mk_dump_disk "$WORK/a.img" 300
	mk_dump_disk "$WORK/b.img" 300
	host_format "$WORK/a.img" 1
	host_format "$WORK/b.img" 1
}

blkdebug_pair_run() {
	mk_out_disk "$WORK/out.img" 900
	run_qemu "$WORK/serial.log" "ddtest=armonly dddevs=/dev/sda1,/dev/sdb1" \
		$(scsi_hba 0) \
		$(scsi_hd "$WORK/a.img" scsi0 0 "file.driver=blkdebug,file.config=$WORK/blkdebug.conf,file.image.filename=$WORK/a.img") \
		$(scsi_hd "$WORK/b.img" scsi0 1)
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	extract_out
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

# check_nmi_stack VMCORE: the panic and the dump ran on an NMI stack (8 KiB);
# the panicking CPU's deepest use of it, read from the dump by
# tests/ist-stacks.py (the lowest word not zero of a stack that starts as
# zeros, as the dump wrote its pages), must leave 2 KiB.  It must be 1 KiB
# at least, or the measure saw nothing of the panic.
check_nmi_stack() {
	local top out=$WORK/ist.txt ist pcpu line used size cpu near
	top=$(pwd)
	timeout 300 scripts/trixie-tools.sh run "$top" drgn -q -c "$1" -s "$VMLINUX" "$top/tests/ist-stacks.py" \
		>"$out" 2>&1 || { cat "$out"; fail "drgn could not measure the IST stacks"; }
	ist=$(grep '^ist: cpu [0-9]* NMI_stack used ' "$out" || true)
	pcpu=$(sed -n 's/^ist: panic_cpu \([0-9]*\)$/\1/p' "$out")
	[ -n "$ist" ] && [ -n "$pcpu" ] || { cat "$out"; fail "drgn did not measure the NMI stacks"; }
	line=$(echo "$ist" | awk -v c="$pcpu" '$3 == c { print $6, $8, $3, $10 }')
	[ -n "$line" ] || { cat "$out"; fail "no NMI stack measured for the panicking CPU $pcpu"; }
	read -r used size cpu near <<<"$line"
	[ "$used" -ge 1024 ] || fail "the panicking CPU's NMI stack looks unused (${used} bytes): the measure does not see the panic"
	[ $((size - used)) -ge 2048 ] ||
		fail "the panic path used $used of the $size-byte NMI stack of CPU $cpu (near $near): under 2 KiB left"
	note "NMI stack: deepest use $used of $size bytes on the panicking CPU $cpu (near $near), $((size - used)) left; $(echo "$ist" | awk '{ printf "cpu %s %s; ", $3, $6 }')"
}

# check_readers PANIC_REGEX TASK CPUS [TRIGGER]: Debian 13's readers, which
# know 6.12 (scripts/trixie-tools.sh), on the saved vmcore.  crash 8.0.6:
# sys names the panic, bt unwinds the panic task TASK from start_disk_dump
# through vpanic (and TRIGGER, if given), bt -a shows CPUS CPUs, ps lists
# the tasks, log holds the panic line, and nothing fails to read.  drgn
# 0.0.31: the crashed thread through start_disk_dump, the tasks, the printk
# records with the panic line, every thread's stack.  makedumpfile 1.7.6:
# --dump-dmesg, and -d 31 re-filtering.  gdb 16: every thread's backtrace,
# down to TRIGGER.  CRASH_OPTS are added to crash's command line;
# READERS_PARTIAL=1 (a truncated dump) lets some tasks' stacks be missing.
check_readers() {
	local panic=$1 task=$2 cpus=$3 trigger=${4:-} vmcore top out=$WORK/readers
	vmcore=$(the_vmcore)
	top=$(pwd)
	mkdir -p "$out"
	scripts/trixie-tools.sh >/dev/null || fail "no Debian 13 tools chroot"
	# crash -s echoes no prompt: "echo" marks where each command's output begins
	printf 'sys\nbt\necho ==== bt -a\nbt -a\necho ==== ps\nps\necho ==== log\nlog\nquit\n' >"$out/crash.in"
	# shellcheck disable=SC2086
	timeout 300 scripts/trixie-tools.sh run "$top" sh -c \
		"crash -s ${CRASH_OPTS:-} '$VMLINUX' '$vmcore' <'$out/crash.in'" >"$out/crash.txt" 2>&1 || true
	local c=$out/crash.txt
	grep -Eq "PANIC: \"Kernel panic - not syncing: $panic" "$c" || { head -40 "$c"; fail "crash: sys does not name the panic"; }
	grep -Eq "^PID: +[0-9]+ +TASK: [0-9a-f]+ +CPU: [0-9]+ +COMMAND: \"$task\"" "$c" ||
		{ head -40 "$c"; fail "crash: no backtrace of the panic task $task"; }
	grep -Eq '^ ?#[0-9]+ \[[0-9a-f]+\] start_disk_dump at ' "$c" || { head -40 "$c"; fail "crash: bt does not start in start_disk_dump"; }
	grep -Eq '^ ?#[0-9]+ \[[0-9a-f]+\] vpanic at ' "$c" || { head -40 "$c"; fail "crash: bt does not go through vpanic"; }
	[ -z "$trigger" ] || grep -Eq "^ ?#[0-9]+ \[[0-9a-f]+\] ($trigger) at " "$c" ||
		{ head -40 "$c"; fail "crash: bt does not reach $trigger"; }
	local ncpu
	ncpu=$(sed -n '/^==== bt -a/,/^==== ps/p' "$c" | { grep -Eo '^PID: .* CPU: [0-9]+' || true; } |
		grep -Eo '[0-9]+$' | sort -u | wc -l)
	[ "$ncpu" = "$cpus" ] || { cat "$c"; fail "crash: bt -a shows $ncpu CPUs, not $cpus"; }
	local ntasks
	ntasks=$(sed -n '/^==== ps/,/^==== log/p' "$c" | { grep -Ec '^[ >] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' || true; })
	[ "$ntasks" -ge 10 ] || { cat "$c"; fail "crash: ps lists $ntasks tasks"; }
	# not grep -q: it would stop reading, and sed, killed by SIGPIPE, fail
	# the pipeline (pipefail) though the line is there
	sed -n '/^==== log/,$p' "$c" | grep -E "Kernel panic - not syncing: $panic" >/dev/null ||
		fail "crash: log has no panic line"
	grep -Eq 'invalid size request|read of .* failed|cannot be determined|^crash: ' "$c" &&
		{ grep -E 'invalid size request|read of .* failed|cannot be determined|^crash: ' "$c" | head; fail "crash reported a read failure"; }
	timeout 300 scripts/trixie-tools.sh run "$top" drgn -q -c "$vmcore" -s "$VMLINUX" "$top/tests/readers.py" \
		>"$out/drgn.txt" 2>&1 || { cat "$out/drgn.txt"; fail "drgn failed"; }
	local d=$out/drgn.txt dt
	grep -Eq '^drgn crashed: [0-9]+ .*start_disk_dump vpanic' "$d" || { cat "$d"; fail "drgn: the crashed thread does not unwind through start_disk_dump and vpanic"; }
	grep -q '^drgn printk: [0-9]* panic$' "$d" || { cat "$d"; fail "drgn: no panic line in the printk records"; }
	if [ "${READERS_PARTIAL:-0}" = 1 ]; then
		# a truncated dump may lack a few tasks' stacks: a sixth at most
		local su sf
		su=$(sed -n 's/^drgn stacks: \([0-9]*\) unwound, .*/\1/p' "$d")
		sf=$(sed -n 's/^drgn stacks: [0-9]* unwound, \([0-9]*\) failed$/\1/p' "$d")
		[ -n "$su" ] && [ -n "$sf" ] && [ "$su" -ge 10 ] && [ $((sf * 5)) -le "$su" ] ||
			{ cat "$d"; fail "drgn: ${su:-no} stacks unwound, ${sf:-?} failed"; }
	else
		grep -Eq '^drgn stacks: [0-9]+ unwound, 0 failed$' "$d" || { cat "$d"; fail "drgn: a thread's stack did not unwind"; }
	fi
	dt=$(sed -n 's/^drgn tasks: //p' "$d")
	[ "$((ntasks - dt))" -ge 0 ] && [ "$((ntasks - dt))" -le "$cpus" ] ||
		fail "crash lists $ntasks tasks, drgn $dt (they may differ by the idle tasks only)"
	rm -f "$out/dmesg.txt" "$out/d31"
	timeout 300 scripts/trixie-tools.sh run "$top" makedumpfile --dump-dmesg "$vmcore" "$out/dmesg.txt" >"$out/mdf.txt" 2>&1 ||
		{ cat "$out/mdf.txt"; fail "makedumpfile 1.7.6 --dump-dmesg failed"; }
	grep -Eq "Kernel panic - not syncing: $panic" "$out/dmesg.txt" || fail "makedumpfile --dump-dmesg: no panic line"
	timeout 300 scripts/trixie-tools.sh run "$top" makedumpfile -c -d 31 "$vmcore" "$out/d31" >"$out/mdf31.txt" 2>&1 ||
		{ cat "$out/mdf31.txt"; fail "makedumpfile 1.7.6 -d 31 could not re-filter the dump"; }
	[ "$(head -c 8 "$out/d31")" = "KDUMP   " ] || fail "makedumpfile -d 31 wrote no kdump-compressed file"
	if [ "$(head -c 4 "$vmcore" | od -An -c | tr -d ' ')" != 177ELF ]; then
		note "crash 8.0.6: bt $(grep -Ec '^ ?#[0-9]+ ' "$c") frames over $ncpu CPUs, ps $ntasks tasks, log with the panic; drgn: $dt tasks, panic in printk; makedumpfile 1.7.6 dmesg + -d 31 (gdb reads ELF only)"
		return 0
	fi
	timeout 300 scripts/trixie-tools.sh run "$top" gdb -nx -batch -ex "symbol-file -o ${KERNEL_OFFSET:-0} $VMLINUX" \
		-ex "core-file $vmcore" -ex 'thread apply all bt' >"$out/gdb.txt" 2>&1 || true
	grep -q ' start_disk_dump ' "$out/gdb.txt" || { cat "$out/gdb.txt"; fail "gdb 16: no backtrace through start_disk_dump"; }
	[ -z "$trigger" ] || grep -Eq " ($trigger) " "$out/gdb.txt" || { cat "$out/gdb.txt"; fail "gdb 16: the backtrace does not reach $trigger"; }
	note "crash 8.0.6: bt $(grep -Ec '^ ?#[0-9]+ ' "$c") frames over $ncpu CPUs, ps $ntasks tasks, log with the panic; drgn: $dt tasks, $(sed -n 's/^drgn stacks: \([0-9]*\) unwound, 0 failed$/\1/p; s/^drgn stacks: \([0-9]*\) unwound, \([0-9]*\) failed$/\1 (\2 missing)/p' "$d") stacks, panic in printk; makedumpfile 1.7.6 dmesg + -d 31 ($(($(stat -c %s "$out/d31") >> 10)) KiB); gdb 16 $(grep -c '^#' "$out/gdb.txt") frames"
}
