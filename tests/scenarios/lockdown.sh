# lockdown=confidentiality: arming a dump partition without a key is
# refused with a clear message (LOCKDOWN_DISKDUMP), and nothing is armed.
# With an RSA key given first (encrypted dumps) the same add is accepted,
# and "key none" is refused while a partition is armed.
openssl genrsa -out "$WORK/key.pem" 2048 2>/dev/null
openssl rsa -in "$WORK/key.pem" -RSAPublicKey_out -outform DER -out "$WORK/key.der" 2>/dev/null
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 64
debugfs -w -R "write $WORK/key.der dumpkey.der" "$WORK/out.img" >/dev/null 2>&1
run_qemu "$WORK/serial.log" "ddtest=lockdown lockdown=confidentiality" $(scsi_disk "$WORK/dump.img")
extract_out
r=$WORK/out/lockdown.txt
[ -f "$r" ] || fail "the guest wrote no results"
want() { grep -qx "$1" "$r" || { cat "$r"; fail "wanted '$1'"; }; }
want "formatted"
want "REFUSED: add without a key"
sed -n '/^--- \/proc\/diskdump$/,/^---$/p' "$r" | grep -q '^sda1' && fail "sda1 is listed as armed without a key"
grep -q "unencrypted crash dumps to disk is restricted" "$r" || { cat "$r"; fail "no lockdown message"; }
grep -q "kernel lockdown forbids unencrypted crash dumps: not armed" "$r" || { cat "$r"; fail "no diskdump message"; }
want "ACCEPTED: key"
want "ACCEPTED: add with a key"
want "REFUSED: key none while armed"
sed -n '/^--- \/proc\/diskdump with the key$/,/^---$/p' "$r" | grep -q '^sda1 ' || { cat "$r"; fail "sda1 is not armed with a key"; }
sed -n '/^--- \/proc\/diskdump with the key$/,/^---$/p' "$r" | grep -q '^# encryption: chacha20-poly1305' || fail "/proc/diskdump does not show the key"
grep -q "key none: kernel lockdown forbids unencrypted crash dumps while partitions are armed" "$r" || fail "no message for key none"
want "ACCEPTED: remove"
want "ACCEPTED: key none, nothing armed"
note "lockdown=confidentiality: add refused (-EPERM) without a key, accepted with one; key none refused while armed"
