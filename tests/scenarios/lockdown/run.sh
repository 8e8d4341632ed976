# lockdown=confidentiality: a partition is armed only once dumps are
# encrypted for the key of a certificate that a key in the kernel's trusted
# keyrings signed (here the build's module signing key, in the builtin
# keyring).  Refused, each with its message: arming without a key, a bare
# RSA key, a self-signed certificate, a trusted certificate with one byte
# of its signature changed, a trusted certificate for an e = 3 key; "key
# none" while armed.  Then diskdumpctl arms with the certificate, the guest
# crashes, boot 2 (still locked down) re-arms and saves the encrypted dump,
# and the host decodes it with the private key: the pattern is there.
signer=$(dirname "$VMLINUX")/certs/signing_key.pem
[ -r "$signer" ] || fail "no module signing key at $signer"
printf 'authorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\nbasicConstraints=critical,CA:FALSE\nkeyUsage=keyEncipherment\n' \
	>"$WORK/ext.cnf"
# cert KEY OUT: a DER certificate for KEY signed by the kernel's key
cert() {
	openssl req -new -key "$1" -subj "/CN=diskdump test $(basename "$2" .der)" -out "$WORK/req.csr" &&
		openssl x509 -req -in "$WORK/req.csr" -CA "$signer" -CAkey "$signer" -sha512 -days 30 \
			-set_serial "$RANDOM" -extfile "$WORK/ext.cnf" -outform DER -out "$2" 2>/dev/null ||
		fail "cannot make $2"
}
openssl genrsa -out "$WORK/key.pem" 2048 2>/dev/null
openssl rsa -in "$WORK/key.pem" -RSAPublicKey_out -outform DER -out "$WORK/key.der" 2>/dev/null
cert "$WORK/key.pem" "$WORK/dumpcert.der"
openssl req -x509 -new -key "$WORK/key.pem" -subj "/CN=diskdump self-signed" -sha512 -days 30 \
	-addext "authorityKeyIdentifier=keyid" -outform DER -out "$WORK/selfcert.der" 2>/dev/null ||
	fail "cannot make the self-signed certificate"
cp "$WORK/dumpcert.der" "$WORK/badsig.der"
# the last byte is the signature's
size=$(stat -c %s "$WORK/badsig.der")
printf '\x5a' | dd of="$WORK/badsig.der" bs=1 seek=$((size - 1)) conv=notrunc status=none
cmp -s "$WORK/dumpcert.der" "$WORK/badsig.der" && fail "the altered certificate is identical"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:3 \
	-out "$WORK/e3.pem" 2>/dev/null
cert "$WORK/e3.pem" "$WORK/e3cert.der"
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
for f in key.der:dumpkey.der dumpcert.der selfcert.der badsig.der e3cert.der; do
	debugfs -w -R "write $WORK/${f%%:*} ${f#*:}" "$WORK/out.img" >/dev/null 2>&1
done
run_qemu "$WORK/serial.log" "ddtest=lockdown lockdown=confidentiality ddmib=8" $(scsi_disk "$WORK/dump.img")
extract_out
r=$WORK/out/lockdown.txt
[ -f "$r" ] || fail "the guest wrote no results"
want() { grep -qx "$1" "$r" || { cat "$r"; fail "wanted '$1'"; }; }
says() { grep -qF "$1" "$r" || { cat "$r"; fail "no message '$1'"; }; }
want "formatted"
want "REFUSED: add without a key"
sed -n '/^--- \/proc\/diskdump$/,/^---$/p' "$r" | grep -q '^sda1' && fail "sda1 is listed as armed without a key"
says "crash dumps to disk without a trusted key is restricted"
says "kernel lockdown forbids crash dumps not encrypted for a trusted key: not armed (give a certificate first: 'cert HEX')"
want "REFUSED: bare key"
says "key: under kernel lockdown only a key in a certificate signed by a trusted key is taken: use 'cert HEX'"
want "REFUSED: self-signed certificate"
says "cert: not signed by a key in the kernel's trusted keyrings"
want "REFUSED: certificate with a bad signature"
says "its signature does not verify"
want "REFUSED: trusted certificate, e = 3"
says "cert: RSA public exponent 3; an odd exponent of at least 65537 is needed"
want "REFUSED: add after the refused keys"
want "ACCEPTED: trusted certificate"
says "cert: 'diskdump test dumpcert: "
want "ACCEPTED: add with a trusted key"
want "REFUSED: key none while armed"
says "key none: kernel lockdown forbids crash dumps not encrypted for a trusted key while partitions are armed"
id=$(sha256sum "$WORK/key.der" | cut -d' ' -f1)
sed -n '/^--- \/proc\/diskdump with the key$/,/^---$/p' "$r" | grep -q '^sda1 ' || { cat "$r"; fail "sda1 is not armed with a key"; }
sed -n '/^--- \/proc\/diskdump with the key$/,/^---$/p' "$r" |
	grep -qx "# encryption: chacha20-poly1305, RSA-2048 key sha256:$id, from a trusted certificate" ||
	{ cat "$r"; fail "/proc/diskdump does not show the trusted key"; }
want "ACCEPTED: remove"
want "ACCEPTED: key none, nothing armed"
sed -n '/^--- diskdumpctl arm$/,/^exit/p' "$r" | grep -qx "exit 0" || { cat "$r"; fail "diskdumpctl arm failed"; }
grep -q '^sda1 ' "$WORK/out/proc-diskdump.txt" || fail "diskdumpctl did not arm sda1"
note "lockdown=confidentiality: refused without a key, with a bare key, a self-signed certificate, an altered one, an e = 3 one; taken: a certificate the kernel's key signed"
# boot 2: re-armed with the certificate, the dump saved encrypted
log=$WORK/serial.log
expect_log "$log" "savecore: saved a complete encrypted dump" "savecore did not save the encrypted dump"
expect_log "$WORK/out/dmesg-boot2.txt" "diskdump: dumps encrypted for the RSA-2048 key sha256:$id, from a trusted certificate" \
	"boot 2 did not take the certificate"
expect_log "$log" "diskdump: /dev/sda1 armed" "the init script did not re-arm the partition"
enc=$(find "$WORK/out/crash" -name vmcore.encrypted -type f | head -n1)
[ -n "$enc" ] || fail "no vmcore.encrypted was saved"
info_is "$(dirname "$enc")/info" status complete
info_is "$(dirname "$enc")/info" key_id "sha256:$id"
tools/diskdump/savecore -q -k -K "$WORK/key.pem" "$enc" "$WORK/out/crash/decoded" ||
	fail "savecore -K could not decode the dump"
python3 tests/check-vmcore.py "$(the_vmcore)" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "decoded vmcore contents"; }
note "dump under lockdown, encrypted for the certificate's key: $(grep '^pattern:' "$WORK/check-vmcore.txt")"
