# A byte of diskdump's checksummed data is corrupted after init: at panic it
# must refuse to write anything, and say why.
mk_dump_disk "$WORK/dump.img" 300
host_format "$WORK/dump.img" 1
before=$(sha256sum <"$WORK/dump.img")
mk_out_disk "$WORK/out.img" 64
run_qemu "$WORK/serial.log" "ddtest=selfcheck ddmib=4" $(scsi_disk "$WORK/dump.img")
extract_out
expect_log "$WORK/serial.log" "test: corrupted a byte of diskdump's data" "the test hook did not run"
expect_log "$WORK/serial.log" "Kernel panic - not syncing: sysrq triggered crash" "no panic"
expect_log "$WORK/serial.log" "checksum of diskdump code and data changed .* not dumping" "the self check did not refuse"
grep -q "trying partition" "$WORK/serial.log" && fail "diskdump went on to a partition"
[ "$(sha256sum <"$WORK/dump.img")" = "$before" ] || fail "the dump disk changed"
expect_log "$WORK/serial.log" "diskdump: /dev/sda1 armed" "the init script did not run on boot 2"
[ -d "$WORK/out/crash" ] && fail "savecore saved something"
note "self check refused; dump disk byte-identical"
