# Boot the patched kernel, read /proc/diskdump, feed it bad input: every bad
# line is refused with a message, root only, add/remove work.  No panic.
mk_dump_disk "$WORK/dump.img" 300 150 100
mk_out_disk "$WORK/out.img" 64
run_qemu "$WORK/serial.log" "ddtest=smoke" $(scsi_disk "$WORK/dump.img")
extract_out
r=$WORK/out/smoke.txt
[ -f "$r" ] || fail "the guest wrote no results"
cat "$r" | sed 's/^/    /'
for bad in "bogus" "bogus /dev/sda1" "add" "add /dev/nonexistent" "add 4095:1048575" "remove /dev/sda1" \
	   "add /dev/sda1 extra words" "add sda1" "add 8:1" "key zz" "key 0102" \
	   "key 3082010a02820101" "key 123"; do
	grep -qxF "REFUSED: $bad" "$r" || fail "'$bad' was not refused"
done
grep -qxF "ACCEPTED: add /dev/sda1" "$r" || fail "add /dev/sda1 was refused"
grep -qxF "ACCEPTED: remove /dev/sda1" "$r" || fail "remove /dev/sda1 was refused"
grep -qx "UNPRIVILEGED WRITE REFUSED" "$r" || fail "an unprivileged user changed the configuration"
grep -qx "UNPRIVILEGED READ REFUSED" "$r" || fail "an unprivileged user read /proc/diskdump"
grep -q -- "-rw------- .* /proc/diskdump" "$r" || fail "/proc/diskdump is not mode 0600"
grep -qx "formatted node: brw-rw----" "$r" || fail "diskdumpfmt left /dev/sda1 open to others: $(grep 'formatted node' "$r")"
sed -n '/--- \/proc\/diskdump armed/,/---/p' "$r" | grep -Eq '^sda1 2048 [0-9]+$' ||
	fail "/proc/diskdump does not list sda1 with its start sector"
sed -n '/disarmed/,$p' "$r" | grep -q '^sda1' && fail "sda1 still listed after remove"
for msg in "usage: 'add DEVICE' or 'remove DEVICE'" "unknown command 'bogus'" \
	   "not a configured dump partition" "already configured" "not a block device" \
	   "key: not hex" "key: not an RSA public key in DER" "key: give the RSA public key as hex"; do
	grep -qF "$msg" "$WORK/out/smoke-dmesg.txt" || fail "no kernel message '$msg'"
done
grep -q "^REFUSED: key 0000" "$r" || fail "a 700-byte key was not refused"
sed -n '/--- \/proc\/diskdump armed/,/---/p' "$r" | grep -qx "# encryption: none" ||
	fail "/proc/diskdump does not say that dumps are not encrypted"
note "14 bad inputs refused with messages (5 bad keys); root-only; add/list/remove work"

# diskdumpctl: refuses an unformatted partition, adds, lists, stops, arms,
# removes, keeping the config file in step; bad usage exits 2.
ctl=$(sed -n '/^--- diskdumpctl$/,/^--- end$/p' "$r")
want='$ diskdumpctl add /dev/sda2
diskdumpctl: /dev/sda2 is not a diskdump partition: format it with diskdumpfmt first
exit 1
$ diskdumpctl add /dev/sda1
diskdump: /dev/sda1 armed
exit 0
$ diskdumpctl add /dev/sda1
diskdump: /dev/sda1 is already configured
diskdump: /dev/sda1 already armed
exit 0
$ diskdumpctl list
/dev/sda1 armed
exit 0
DISKDUMP_DEVICES="/dev/sda1"
$ diskdumpctl stop
diskdump: /dev/sda1 disarmed
exit 0
$ diskdumpctl list
/dev/sda1 not armed
exit 0
$ diskdumpctl arm
diskdump: /dev/sda1 armed
exit 0
$ diskdumpctl list
/dev/sda1 armed
exit 0
$ diskdumpctl remove /dev/sda1
diskdump: /dev/sda1 disarmed
exit 0
$ diskdumpctl list
exit 0
DISKDUMP_DEVICES=""
$ diskdumpctl bogus
usage: diskdumpctl [-c CONFIG] start|stop|save|arm|add DEV|remove DEV|list|status
exit 2'
[ "$(echo "$ctl" | sed '1d;$d')" = "$want" ] || { diff <(echo "$want") <(echo "$ctl" | sed '1d;$d'); fail "diskdumpctl"; }
note "diskdumpctl: add refuses an unformatted partition; add/list/stop/arm/remove keep the config in step"
