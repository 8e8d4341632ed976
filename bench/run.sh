# shellcheck shell=bash
# The bench's one QEMU run, for bench/kdump.sh and bench/side.sh, which set
# out, KERNEL and QEMU_TIMEOUT and run from the top of the tree.

# run NAME MEM APPEND: one boot-crash-save cycle, serial log with host times,
# in $out/NAME (the output disk's files in $out/NAME/files).  BENCH_DISK:
# the dump disk's controller; PART_MIB: the dump partition's size;
# NOREBOOT=1: QEMU ends at the reboot after the panic.  BENCH_SMP: the
# guest's CPUs (default 2, one a host core; a kdump capture kernel boots
# with maxcpus=1, as distributions' kdump does, nr_cpus=1 on Debian).
# panic=0, Debian's default: panic() alone never reboots; diskdump's
# "reboot auto" reboots once the dump is on disk, kdump's capture kernel
# once it has saved it.
run() {
	local name=$1 mem=$2 append=$3 w=$out/$1
	# BENCH_ONLY=NAME: just that run (to try one), and no report;
	# BENCH_REPORT_ONLY=1: no runs, the report of the last ones
	[ -z "${BENCH_REPORT_ONLY:-}" ] || return 0
	[ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = "$name" ] || return 0
	# PART_MIB: the dump partition's size (default: RAM + 96 MiB)
	local part=${PART_MIB:-$((mem + 96))}
	rm -rf "$w" && mkdir -p "$w"
	truncate -s $((part + 416))M "$w/dump.img"
	printf 'start=2048, size=%d, type=83\nstart=%d, size=%d, type=83\n' \
		$((part * 2048)) $((part * 2048 + 2048)) $((256 * 2048)) |
		sfdisk -q "$w/dump.img" >/dev/null
	truncate -s $((mem * 2 + 1024))M "$w/out.img"
	mkfs.ext4 -q -F "$w/out.img"
	debugfs -w -R "write $top/$KERNEL bzImage" "$w/out.img" >/dev/null 2>&1
	debugfs -w -R "write $out/initrd.gz initrd.gz" "$w/out.img" >/dev/null 2>&1
	# BENCH_DISK: the dump disk's controller, lsi (lsi53c895a), ahci
	# (ich9-ahci, SATA), nvme, virtio-blk, virtio-scsi, pvscsi or megaraid
	local disk=(-device lsi53c895a,id=scsi0 -device scsi-hd,drive=dd0,bus=scsi0.0)
	case ${BENCH_DISK:-lsi} in
	lsi) ;;
	ahci) disk=(-device ahci,id=ahci0 -device ide-hd,drive=dd0,bus=ahci0.0) ;;
	nvme) disk=(-device nvme,serial=bench0,drive=dd0)
		append="$append dddevs=/dev/nvme0n1p1 ddraw=/dev/nvme0n1p2" ;;
	# a slot after the output disk's (vda); two queues, one for the dump
	virtio-blk) disk=(-device virtio-blk-pci,drive=dd0,addr=0x18,num-queues=2)
		append="$append dddevs=/dev/vdb1 ddraw=/dev/vdb2" ;;
	virtio-scsi) disk=(-device virtio-scsi-pci,id=vs0,addr=0x18,num_queues=2
			-device scsi-hd,drive=dd0,bus=vs0.0) ;;
	# VMware's paravirtual SCSI; a MegaRAID SAS 2108 (MFI)
	pvscsi | megaraid)
		local hba=pvscsi
		[ "$BENCH_DISK" = megaraid ] && hba=megasas-gen2
		disk=(-device "$hba,id=hba0,addr=0x18" -device scsi-hd,drive=dd0,bus=hba0.0) ;;
	*) echo "bench: BENCH_DISK=$BENCH_DISK: lsi, ahci, nvme, virtio-blk, virtio-scsi, pvscsi or megaraid" >&2; return 1 ;;
	esac
	local reboot=()
	[ -z "${NOREBOOT:-}" ] || reboot=(-no-reboot)
	echo "bench: $name (${mem} MiB, ${BENCH_DISK:-lsi})" >&2
	timeout -k 5 "$QEMU_TIMEOUT" bench/serial-ts.py "$w/serial.log" qemu-system-x86_64 \
		-accel tcg -m "${mem}M" -smp "${BENCH_SMP:-2}" -nodefaults -no-user-config -display none \
		-serial stdio -monitor none -kernel "$KERNEL" -initrd "$out/initrd.gz" \
		"${reboot[@]}" \
		-append "console=ttyS0 panic=0 oops=panic loglevel=6 nokaslr ddmib=64 $append" \
		-drive "file=$w/out.img,if=virtio,format=raw" \
		-drive "file=$w/dump.img,if=none,format=raw,id=dd0" "${disk[@]}" >/dev/null ||
		{ tail -30 "$w/serial.log" >&2; echo "bench: $name failed" >&2; return 1; }
	rm -rf "$w/files" && mkdir -p "$w/files"
	debugfs -R "rdump / $w/files" "$w/out.img" >/dev/null 2>&1
	rm -f "$w/out.img" "$w/dump.img"
}
