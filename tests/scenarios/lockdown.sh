# lockdown=confidentiality: arming a dump partition is refused with a
# clear message (LOCKDOWN_DISKDUMP), and nothing is armed.  Without
# lockdown the same add works (the smoke scenario).
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 64
run_qemu "$WORK/serial.log" "ddtest=lockdown lockdown=confidentiality" $(scsi_disk "$WORK/dump.img")
extract_out
r=$WORK/out/lockdown.txt
[ -f "$r" ] || fail "the guest wrote no results"
grep -qx "formatted" "$r" || fail "diskdumpfmt failed under lockdown"
grep -qx "REFUSED" "$r" || { cat "$r"; fail "a partition was armed under lockdown=confidentiality"; }
sed -n '/^--- \/proc\/diskdump/,/^---/p' "$r" | grep -q '^sda1' && fail "sda1 is listed as armed"
grep -q "unencrypted crash dumps to disk is restricted" "$r" || { cat "$r"; fail "no lockdown message"; }
grep -q "kernel lockdown forbids unencrypted crash dumps: not armed" "$r" || { cat "$r"; fail "no diskdump message"; }
note "lockdown=confidentiality: 'add /dev/sda1' refused (-EPERM) with a lockdown and a diskdump message"
