# The NVMe driver is a module, as Debian builds it: its panic-path code is
# the module's own .diskdump.text.  After arming, one byte is flipped in a
# function of it that is not one of the driver's operations (those were
# the only module code checksummed before).  At panic diskdump must refuse
# to write anything and say why.  Boot 1 only: QEMU ends at the reboot.
mk_dump_disk "$WORK/dump.img" 300
host_format "$WORK/dump.img" 1
before=$(sha256sum <"$WORK/dump.img")
mk_out_disk "$WORK/out.img" 64
log=$WORK/serial.log
run_qemu "$log" "ddtest=selfcheck-module ddmib=4 dddevs=/dev/nvme0n1p1" $(disk_on nvme "$WORK/dump.img") -no-reboot
grep -q "load-modules: nvme.* not loaded" "$log" && fail "the nvme modules did not load"
grep -q "GUEST: add /dev/nvme0n1p1 failed" "$log" && fail "the NVMe partition was not armed"
grep -q "GUEST: test hook corruptmod failed" "$log" && fail "no armed dump driver's module had dump code"
expect_log "$log" "test: corrupted a byte of a dump driver's module at nvme_dump_[a-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[nvme\]" \
	"the test hook did not change the nvme module's dump code"
if grep -Eq "test: corrupted .* at nvme_dump_(sanity_check|quiesce|shutdown|rw_block|write_pages|drain)\+" "$log"; then
	fail "the byte is in one of the driver's operations: the test proves nothing new"
fi
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no panic"
expect_log "$log" "checksum of diskdump code and data changed .* not dumping" "the self check did not refuse"
grep -q "trying partition" "$log" && fail "diskdump went on to a partition"
[ "$(sha256sum <"$WORK/dump.img")" = "$before" ] || fail "the dump disk changed"
note "$(grep -Eo "corrupted a byte of a dump driver's module at [^ ]+ \[nvme\]" "$log"); self check refused; dump disk byte-identical"
