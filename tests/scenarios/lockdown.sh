# lockdown=confidentiality: arming a dump partition without a key is
# refused with a clear message (LOCKDOWN_DISKDUMP), and nothing is armed.
# With an RSA key given first (encrypted dumps) the same add is accepted,
# and "key none" is refused while a partition is armed.
openssl genrsa -out "$WORK/key.pem" 2048 2>/dev/null
openssl rsa -in "$WORK/key.pem" -RSAPublicKey_out -outform DER -out "$WORK/key.der" 2>/dev/null
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 64
debugfs -w -R "write $WORK/key.der dumpkey.der" "$WORK/out.img" >/dev/null 2>&1
# Weak public exponents: e = 3 from openssl, e = 1 (the "wrapped" dump key
# would be the key itself) made from key.der's modulus.
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
for k in e3 e1; do
	debugfs -w -R "write $WORK/$k.der dumpkey-$k.der" "$WORK/out.img" >/dev/null 2>&1
done
run_qemu "$WORK/serial.log" "ddtest=lockdown lockdown=confidentiality" $(scsi_disk "$WORK/dump.img")
extract_out
r=$WORK/out/lockdown.txt
[ -f "$r" ] || fail "the guest wrote no results"
want() { grep -qx "$1" "$r" || { cat "$r"; fail "wanted '$1'"; }; }
want "formatted"
want "REFUSED: add without a key"
want "REFUSED: key with e = 3"
want "REFUSED: key with e = 1"
grep -q "key: RSA public exponent 3; an odd exponent of at least 65537 is needed" "$r" || { cat "$r"; fail "no message for e = 3"; }
grep -q "key: RSA public exponent 1; an odd exponent of at least 65537 is needed" "$r" || { cat "$r"; fail "no message for e = 1"; }
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
note "lockdown=confidentiality: add refused (-EPERM) without a key, accepted with one; key none refused while armed; keys with e = 3 and e = 1 refused"
