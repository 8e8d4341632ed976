# A byte of diskdump's checksummed data is corrupted after init: at panic it
# must refuse to write anything, and say why.
mk_dump_disk "$WORK/dump.img" 300
host_format "$WORK/dump.img" 1
before=$(sha256sum <"$WORK/dump.img")
mk_out_disk "$WORK/out.img" 64
run_qemu "$WORK/serial.log" "ddtest=selfcheck ddmib=4" $(scsi_disk "$WORK/dump.img")
extract_out
expect_log "$WORK/serial.log" "test: corrupted a byte of diskdump's data" "the test hook did not run"
check_refused "$WORK/serial.log" "$before" "checksum of diskdump code and data changed .* not dumping" data
expect_log "$WORK/serial.log" "diskdump: /dev/sda1 armed" "the init script did not run on boot 2"
[ -d "$WORK/out/crash" ] && fail "savecore saved something"
note "self check refused; dump disk byte-identical"

# A byte of diskdump's own code, changed after init, then the
# configuration changed (its checksum taken again): the code's checksum is
# the one taken at init, and the dump is refused.  Boot 1 only.
host_format "$WORK/dump.img" 1
before=$(sha256sum <"$WORK/dump.img")
mk_out_disk "$WORK/out.img" 64
log=$WORK/serial-text.log
run_qemu "$log" "ddtest=selfcheck ddmib=4 ddcorrupt=corrupttext ddrewrite=1" $(scsi_disk "$WORK/dump.img") -no-reboot
grep -q "GUEST: add /dev/sda1 failed" "$log" && fail "sda1 was not armed"
grep -q "GUEST: test hook corrupttext failed" "$log" && fail "the test hook could not change diskdump's code"
grep -q "GUEST: reboot 7 \(failed\|not taken\)" "$log" && fail "the configuration did not change after the corruption"
expect_log "$log" "test: corrupted a byte of diskdump's code at dd_fmt_mismatch\+0x[0-9a-f]+/" "the test hook did not change diskdump's code"
check_refused "$log" "$before" "checksum of diskdump code and data changed \(diskdump's code: .* not dumping" code
note "$(grep -Eo "corrupted a byte of diskdump's code at [^ ]+" "$log" | tr -d "\r"), configuration changed after: refused; dump disk byte-identical"

# A byte of a pointer in the first armed disk's driver data, which the
# driver set when the disk was armed and uses at panic (NVMe: the
# controller, SCSI: the disk).  The data a driver sets for good comes
# first in it, and the self check covers that part.  Boot 1 only.
selfcheck_priv() {
	local kind=$1 dev=$2 whose=$3 log=$WORK/serial-priv-$1.log
	host_format "$WORK/dump.img" 1
	before=$(sha256sum <"$WORK/dump.img")
	mk_out_disk "$WORK/out.img" 64
	run_qemu "$log" "ddtest=selfcheck ddmib=4 dddevs=$dev ddcorrupt=corruptpriv" \
		$(disk_on "$kind" "$WORK/dump.img") -no-reboot
	grep -q "GUEST: add $dev failed" "$log" && fail "$kind: $dev was not armed"
	grep -q "GUEST: test hook corruptpriv failed" "$log" && fail "$kind: the test hook found no driver data"
	expect_log "$log" "test: corrupted a byte of $whose's data for an armed disk" "$kind: the test hook did not change $whose's data"
	check_refused "$log" "$before" "checksum of diskdump code and data changed \(configuration: .* not dumping" \
		"$kind, $whose's driver data"
	note "$kind: a byte of $whose's data for the armed disk changed: refused; dump disk byte-identical"
}
selfcheck_priv nvme /dev/nvme0n1p1 nvme
selfcheck_priv lsi /dev/sda1 scsi_mod
