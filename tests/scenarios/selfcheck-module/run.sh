# The dump drivers are modules, as Debian builds them: the NVMe driver's
# panic-path code is nvme's .diskdump.text, the SCSI dump type's scsi_mod's,
# and the dump hooks of an HBA its driver's (sym53c8xx) or libata's.  After
# arming, one byte is flipped in a function of that section that is not
# one of the driver's operations (those were the only module code
# checksummed before), in the module named; then the configuration is
# changed (its checksum taken again, which must not take in the changed
# code).  At panic diskdump must refuse to write anything and say why.
# Boot 1 only: QEMU ends at the reboot.  Four machines: nvme, sym53c8xx,
# scsi_mod (the SCSI dump type), libata.
#
# selfcheck_module KIND DEV MODULE: one such crash with the dump disk
# behind KIND, armed as DEV, a byte of MODULE changed.
selfcheck_module() {
	local kind=$1 dev=$2 mod=$3 log=$WORK/serial-$1-$3.log before
	mk_dump_disk "$WORK/dump.img" 300
	host_format "$WORK/dump.img" 1
	before=$(sha256sum <"$WORK/dump.img")
	mk_out_disk "$WORK/out.img" 64
	run_qemu "$log" "ddtest=selfcheck-module ddmib=4 dddevs=$dev ddmod=$mod ddrewrite=1" \
		$(disk_on "$kind" "$WORK/dump.img") -no-reboot
	grep -q "GUEST: add $dev failed" "$log" && fail "$kind: $dev was not armed"
	grep -q "GUEST: test hook corruptmod.* failed" "$log" && fail "$kind: no armed dump driver's module $mod had dump code"
	grep -q "GUEST: reboot 7 \(failed\|not taken\)" "$log" && fail "$kind: the configuration did not change after the corruption"
	expect_log "$log" "test: corrupted a byte of a dump driver's module at [a-z0-9_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[$mod\]" \
		"$kind: the test hook did not change the $mod module's dump code"
	if grep -Eq "test: corrupted .* at (nvme|scsi)_dump_(sanity_check|quiesce|shutdown|rw_block|write_pages|drain)\+" "$log"; then
		fail "$kind: the byte is in one of the driver's operations: the test proves nothing new"
	fi
	check_refused "$log" "$before" "checksum of diskdump code and data changed \(a dump driver's code: .* not dumping" \
		"$kind, $mod's code"
	note "$kind: $(grep -Eo "corrupted a byte of a dump driver's module at [^ ]+ \[$mod\]" "$log"); self check refused; dump disk byte-identical"
}

selfcheck_module nvme /dev/nvme0n1p1 nvme
selfcheck_module lsi /dev/sda1 sym53c8xx
selfcheck_module lsi /dev/sda1 scsi_mod
selfcheck_module ahci /dev/sda1 libata
