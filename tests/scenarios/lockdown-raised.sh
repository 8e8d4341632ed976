# A partition armed in clear (no key), then lockdown raised to
# confidentiality at run time (securityfs).  Arming would now be refused,
# and so must the dump: the panic writes nothing, says why, and reboots.
mk_dump_disk "$WORK/dump.img" 300
host_format "$WORK/dump.img" 1
before=$(sha256sum <"$WORK/dump.img")
mk_out_disk "$WORK/out.img" 64
run_qemu "$WORK/serial.log" "ddtest=lockraise ddmib=4" $(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/serial.log
grep -q '^sda1 ' "$WORK/out/proc-diskdump.txt" || fail "sda1 was not armed in clear"
grep -q '^# encryption: none' "$WORK/out/proc-diskdump.txt" || fail "sda1 was armed with a key"
expect_log "$log" "GUEST: lockdown: none integrity \[confidentiality\]" "lockdown was not raised"
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no panic"
expect_log "$log" "diskdump: kernel lockdown forbids an unencrypted dump: not dumping" "the dump was not refused"
grep -q "trying partition" "$log" && fail "diskdump went on to a partition"
[ "$(sha256sum <"$WORK/dump.img")" = "$before" ] || fail "the dump disk changed"
[ -d "$WORK/out/crash" ] && fail "savecore saved something"
note "lockdown raised after arming: nothing written, dump disk byte-identical"
