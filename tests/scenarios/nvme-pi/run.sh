# NVMe namespaces with metadata.  A namespace formatted with protection
# information (PI) alone, 8 bytes a block, is dumped with the controller
# inserting the PI (PRACT) and the reference tag set to the block's LBA, as
# the driver does; a namespace with other metadata cannot be, and must be
# refused when armed (without PRACT the controller would move metadata to
# and from physical address 0).  Four cycles: PI type 1 in separate
# metadata, with a second namespace with metadata and no PI listed first
# (refused, unchanged); then PI type 1 in extended LBAs, type 2 in
# extended LBAs and type 3 in separate metadata.  After boot 1 the
# host checks the PI of the blocks the dump wrote (guard and reference tag
# of each LBA, from the image, which QEMU keeps as all the data and then
# all the metadata); in boot 2 savecore reads the dump through the
# controller's PI checks.

# nvme_pi_ns FILE MIB PART_MIB: a disk image with one partition,
# host-formatted, and QEMU's metadata area (8 bytes a block) after it, all
# 0xff: the PI escape, so that the guest can read what the host wrote.
nvme_pi_ns() {
	mk_dump_disk "$1" "$2" "$3"
	host_format "$1" 1
	head -c $(($2 * 2048 * 8)) /dev/zero | tr '\0' '\377' >>"$1"
}

# ns_name BOOT NSID: the guest's name for namespace NSID in boot BOOT (the
# namespaces are named in the order their asynchronous scans end).
ns_name() {
	local n
	n=$(awk -v id="$2" '$2 == id { print $1 }' "$WORK/out/nvme-nsid-boot$1.txt")
	[ -n "$n" ] || fail "boot $1 has no namespace $2"
	echo "$n"
}

# nvme_pi_cycle MSET PI: boot 1 (arm, crash), the host's PI check, boot 2.
# NS1B1, NS2B1, NS1B2: the names of namespaces 1 and 2 in boot 1, of 1 in
# boot 2.
nvme_pi_cycle() {
	local ctrl="-device nvme,id=nvme0,serial=diskdump0"
	local ns1="-drive file=$WORK/ns1.img,if=none,format=raw,id=ns1 -device nvme-ns,drive=ns1,bus=nvme0,nsid=1,ms=8,mset=$1,pi=$2"
	local ns2="-drive file=$WORK/ns2.img,if=none,format=raw,id=ns2 -device nvme-ns,drive=ns2,bus=nvme0,nsid=2,ms=8,mset=0,pi=0"
	local args="ddtest=fallback ddmib=16 dddevs=/dev/nvme0n2p1,/dev/nvme0n1p1" n
	nvme_pi_ns "$WORK/ns1.img" 320 300
	nvme_pi_ns "$WORK/ns2.img" 80 64
	SUMNS2=$(part_sum "$WORK/ns2.img" 1)
	mk_out_disk "$WORK/out.img" 700
	# shellcheck disable=SC2086
	run_qemu "$WORK/serial1.log" "$args" $ctrl $ns1 $ns2 -no-reboot
	n=$(grep -oE 'signature check: [0-9]+ of [0-9]+ blocks' "$WORK/serial1.log" | tail -1 | awk '{print $3}')
	[ -n "$n" ] || { tail -30 "$WORK/serial1.log"; fail "no signature check on namespace 1 (mset=$1, type $2)"; }
	# the dump's extent: every block the check read but the partition's last
	python3 tests/host/nvme-pi-check.py "$WORK/ns1.img" 2048 $(((n - 1) * 8)) 256 "$2" >"$WORK/pi.txt" ||
		{ cat "$WORK/pi.txt"; fail "the dump's blocks on namespace 1 do not carry valid PI (mset=$1, type $2)"; }
	note "mset=$1 type $2: $(tail -1 "$WORK/pi.txt") in the dump's $((n - 1)) blocks"
	# shellcheck disable=SC2086
	run_qemu "$WORK/serial2.log" "$args" $ctrl $ns1 $ns2
	cat "$WORK/serial1.log" "$WORK/serial2.log" >"$WORK/serial.log"
	extract_out
	NS1B1=$(ns_name 1 1) NS2B1=$(ns_name 1 2) NS1B2=$(ns_name 2 1)
	DUMPDEV=/dev/${NS1B2}p1 check_saved_dump "sysrq triggered crash" 1
	grep -E "($NS1B1|$NS1B2): .*(error|Protection)|I/O error, dev ($NS1B1|$NS1B2)" "$WORK/serial.log" &&
		fail "I/O errors on namespace 1 (mset=$1, type $2)"
	[ "$(part_sum "$WORK/ns2.img" 1)" = "$SUMNS2" ] || fail "namespace 2 changed (mset=$1, type $2)"
}

nvme_pi_cycle 0 1
log=$WORK/serial.log
expect_log "$log" "$NS2B1: 8 bytes of metadata per block that are not protection information alone: cannot dump to it" \
	"the namespace with metadata and no PI was not refused with its reason"
expect_log "$log" "diskdump: /dev/${NS2B1}p1: its driver cannot write a dump to this disk" \
	"arming ${NS2B1}p1 (namespace 2) did not fail with a clear message"
expect_line "$WORK/out/arm.txt" "add /dev/${NS2B1}p1 refused" "${NS2B1}p1 (namespace 2) was armed"
expect_line "$WORK/out/arm.txt" "armed /dev/${NS1B1}p1" "${NS1B1}p1 (namespace 1: PI, separate metadata) was not armed"
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
note "separate metadata: dump saved through PI checks; namespace 2 (metadata, no PI) refused and unchanged"

nvme_pi_cycle 1 1
note "extended LBAs: dump saved through PI checks"
nvme_pi_cycle 1 2
note "PI type 2, extended LBAs: dump saved through PI checks"
nvme_pi_cycle 0 3
note "PI type 3, separate metadata: dump saved through PI checks"
