# Boot the patched kernel, read /proc/diskdump, feed it bad input: every bad
# line is refused with a message, root only, add/remove work.  No panic.
mk_dump_disk "$WORK/dump.img" 300 150 100
mk_out_disk "$WORK/out.img" 64
# Weak public exponents: e = 3 from openssl, e = 1 (the "wrapped" dump key
# would be the key itself) made from a good key's modulus; a self-signed
# certificate (no trusted key signed it).
openssl genrsa -out "$WORK/key.pem" 2048 2>/dev/null
openssl rsa -in "$WORK/key.pem" -RSAPublicKey_out -outform DER -out "$WORK/key.der" 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:3 \
	-out "$WORK/e3.pem" 2>/dev/null
openssl rsa -in "$WORK/e3.pem" -RSAPublicKey_out -outform DER -out "$WORK/e3.der" 2>/dev/null
python3 - "$WORK/key.der" "$WORK/e1.der" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
def tlv(b, i):  # (tag, value start, value end) of the DER item at i
    n = b[i + 1]
    if n < 0x80:
        return b[i], i + 2, i + 2 + n
    k = n & 0x7f
    return b[i], i + 2 + k, i + 2 + k + int.from_bytes(b[i + 2:i + 2 + k], 'big')
def enc(tag, v):
    n = len(v)
    if n < 0x80:
        return bytes([tag, n]) + v
    l = n.to_bytes((n.bit_length() + 7) // 8, 'big')
    return bytes([tag, 0x80 | len(l)]) + l + v
_, s, _ = tlv(d, 0)
_, ns, ne = tlv(d, s)
open(sys.argv[2], 'wb').write(enc(0x30, enc(0x02, d[ns:ne]) + enc(0x02, b'\x01')))
PY
openssl req -x509 -new -key "$WORK/key.pem" -subj "/CN=diskdump self-signed" -sha512 -days 30 \
	-addext "authorityKeyIdentifier=keyid" -outform DER -out "$WORK/self.der" 2>/dev/null ||
	fail "cannot make the self-signed certificate"
for k in e3 e1 self; do
	debugfs -w -R "write $WORK/$k.der $k.der" "$WORK/out.img" >/dev/null 2>&1
done
run_qemu "$WORK/serial.log" "ddtest=smoke" $(scsi_disk "$WORK/dump.img")
extract_out
r=$WORK/out/smoke.txt
[ -f "$r" ] || fail "the guest wrote no results"
cat "$r" | sed 's/^/    /'
for bad in "bogus" "bogus /dev/sda1" "add" "add /dev/nonexistent" "add 4095:1048575" "remove /dev/sda1" \
	   "add /dev/sda1 extra words" "add sda1" "pages zero" "reboot -1" "reboot 3601" "reboot never" \
	   "add 8:1" "key zz" "key 0102" \
	   "key 3082010a02820101" "key 123" "add /dev/sda2" "add PARTUUID=deadbeef-09" \
	   "key with e = 3" "key with e = 1" "cert zz" "cert 3082" "self-signed cert"; do
	grep -qxF "REFUSED: $bad" "$r" || fail "'$bad' was not refused"
done
grep -qxF "ACCEPTED: add /dev/sda1" "$r" || fail "add /dev/sda1 was refused"
for ok in "reboot 5" "reboot panic" "reboot 0" "reboot auto"; do
	grep -qxF "ACCEPTED: $ok" "$r" || fail "'$ok' was refused"
done
# auto by default; 5 kept through the refused values
[ "$(grep '^# reboot' "$r" | head -5 | tr '\n' ,)" = "# reboot: auto,# reboot: 5,# reboot: panic,# reboot: 0,# reboot: auto," ] ||
	fail "/proc/diskdump did not show the reboot settings: $(grep '^# reboot' "$r" | tr '\n' ' ')"
grep -qxF "ACCEPTED: remove /dev/sda1" "$r" || fail "remove /dev/sda1 was refused"
uuid1=$(sed -n 's/^sda1 partuuid: //p' "$r")
[ -n "$uuid1" ] || fail "the guest found no PARTUUID for sda1"
grep -qxF "ACCEPTED: add PARTUUID=$uuid1" "$r" || fail "add PARTUUID=$uuid1 (sda1) was refused"
sed -n '/--- \/proc\/diskdump by partuuid/,/^ACCEPTED/p' "$r" | grep -Eq '^sda1 2048 [0-9]+$' ||
	fail "PARTUUID=$uuid1 did not arm sda1"
grep -qxF "ACCEPTED: remove PARTUUID=$uuid1" "$r" || fail "remove PARTUUID=$uuid1 was refused"
grep -qx "UNPRIVILEGED WRITE REFUSED" "$r" || fail "an unprivileged user changed the configuration"
grep -qx "UNPRIVILEGED READ REFUSED" "$r" || fail "an unprivileged user read /proc/diskdump"
grep -q -- "-rw------- .* /proc/diskdump" "$r" || fail "/proc/diskdump is not mode 0600"
grep -qx "formatted node: brw-rw----" "$r" || fail "diskdumpfmt left /dev/sda1 open to others: $(grep 'formatted node' "$r")"
sed -n '/--- \/proc\/diskdump armed/,/---/p' "$r" | grep -Eq '^sda1 2048 [0-9]+$' ||
	fail "/proc/diskdump does not list sda1 with its start sector"
sed -n '/disarmed/,/^sda1 partuuid:/p' "$r" | grep -q '^sda1 [0-9]' && fail "sda1 still listed after remove"
for msg in "usage: 'add DEVICE' or 'remove DEVICE'" "unknown command 'bogus'" \
	   "not a configured dump partition" "already configured" "not a block device" \
	   "key: not hex" "key: not an RSA public key in DER" "key: give the RSA public key as hex" \
	   "sda2 is not formatted for diskdump (block 0, byte 0): not arming it" \
	   "PARTUUID=deadbeef-09: not a block device (-19)" \
	   "key: RSA public exponent 3; an odd exponent of at least 65537 is needed" \
	   "key: RSA public exponent 1; an odd exponent of at least 65537 is needed" \
	   "cert: not hex" "cert: malformed, or its signature does not verify" \
	   "cert: not signed by a key in the kernel's trusted keyrings" \
	   "pages: 'zero' is neither 'direct' (devices read the pages where they are) nor 'copy' (every page copied first)" \
	   "reboot: 'never' is neither 'auto' (at once where panic= would never reboot), seconds from 0 to 3600, nor 'panic' (as panic= says)" \
	   "reboot: '3601' is neither 'auto'" "reboot: '-1' is neither 'auto'"; do
	grep -qF "$msg" "$WORK/out/smoke-dmesg.txt" || fail "no kernel message '$msg'"
done
grep -q "^REFUSED: key 0000" "$r" || fail "a 700-byte key was not refused"
# every refusal says why in /proc/diskdump ("# last error:"), and no
# accepted write leaves a reason behind
whys=$(grep -A1 '^REFUSED: ' "$r" | grep -c '^WHY: [^-]' || true)
[ "$whys" = "$(grep -c '^REFUSED: ' "$r")" ] ||
	{ grep -A1 -E '^(REFUSED|ACCEPTED): ' "$r" | grep -B1 '^WHY: -$' | head; fail "a refused write left no '# last error:' line"; }
grep -A1 '^ACCEPTED: ' "$r" | grep -q '^WHY: [^-]' && fail "an accepted write left a '# last error:' line"
grep -A1 -xF 'REFUSED: add /dev/sda2' "$r" | grep -qxF 'WHY: sda2 is not formatted for diskdump (block 0, byte 0): not arming it; see diskdumpfmt(8)' ||
	fail "/proc/diskdump did not say why /dev/sda2 was refused: $(grep -A1 -xF 'REFUSED: add /dev/sda2' "$r" | tail -1)"
sed -n '/^--- diskdumpctl with a key the kernel refuses$/,$p' "$r" |
	grep -qF "diskdumpctl: the kernel refused the key in /out/e3.der (key: RSA public exponent 3; an odd exponent of at least 65537 is needed): not arming" ||
	{ sed -n '/^--- diskdumpctl with a key/,$p' "$r"; fail "diskdumpctl did not say why the kernel refused the key"; }
sed -n '/--- \/proc\/diskdump armed/,/---/p' "$r" | grep -qx "# encryption: none" ||
	fail "/proc/diskdump does not say that dumps are not encrypted"
note "25 bad inputs refused with messages, each also in /proc/diskdump's '# last error:' line (7 bad keys: e = 3, e = 1 among them; 3 bad certificates: a self-signed one among them; an unformatted partition, an unknown PARTUUID); root-only; add/list/remove work, by PARTUUID too"

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
usage: diskdumpctl [-c CONFIG] start|stop|save|arm|add DEV|remove DEV|list|verify|status
exit 2
$ diskdumpctl add /dev/disk/by-partuuid/UUID1
diskdump: /dev/disk/by-partuuid/UUID1 armed
exit 0
$ diskdumpctl list
/dev/disk/by-partuuid/UUID1 armed (/dev/sda1)
exit 0
$ diskdumpctl remove PARTUUID=UUID1
diskdump: PARTUUID=UUID1 disarmed
exit 0
$ diskdumpctl add PARTUUID=UUID1
diskdump: PARTUUID=UUID1 armed
exit 0
$ diskdumpctl list
PARTUUID=UUID1 armed (/dev/sda1)
exit 0
$ diskdumpctl verify
diskdump: PARTUUID=UUID1: every block formatted
exit 0
$ diskdumpctl add /dev/sda1;reboot
diskdumpctl: '"'"'/dev/sda1;reboot'"'"': a device name has only letters, digits and / . _ : = + -
exit 1
$ diskdumpctl add PARTUUID=UPPER1
diskdump: PARTUUID=UPPER1 is already configured
diskdump: PARTUUID=UUID1 already armed
exit 0
DISKDUMP_DEVICES="PARTUUID=UUID1"
$ diskdumpctl stop
diskdump: PARTUUID=UUID1 disarmed
exit 0'
want=${want//UPPER1/$(echo "$uuid1" | tr a-f A-F)}
want=${want//UUID1/$uuid1}
[ "$(echo "$ctl" | sed '1d;$d')" = "$want" ] || { diff <(echo "$want") <(echo "$ctl" | sed '1d;$d'); fail "diskdumpctl"; }
note "diskdumpctl: add refuses an unformatted partition; add/list/stop/arm/remove keep the config in step, with PARTUUID= and by-partuuid names too"
