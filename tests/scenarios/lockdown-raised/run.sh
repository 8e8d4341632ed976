# A partition armed in clear (no key), or with a bare RSA key that no
# trusted key signed, then lockdown raised to confidentiality at run time
# (securityfs).  Arming would now be refused, and so must the dump: the
# panic writes nothing, says why, and reboots.
# raised ARGS WHAT: one boot (ARGS: ddkey=1 arms with the bare key), then
# the checks.
raised() {
	mk_dump_disk "$WORK/dump.img" 300
	host_format "$WORK/dump.img" 1
	before=$(sha256sum <"$WORK/dump.img")
	mk_out_disk "$WORK/out.img" 64
	debugfs -w -R "write $WORK/key.der dumpkey.der" "$WORK/out.img" >/dev/null 2>&1
	run_qemu "$WORK/serial.log" "ddtest=lockdown-raised ddmib=4 $1" $(scsi_disk "$WORK/dump.img")
	extract_out
	log=$WORK/serial.log
	grep -q '^sda1 ' "$WORK/out/proc-diskdump.txt" || fail "sda1 was not armed ($2)"
	expect_log "$log" "GUEST: lockdown: none integrity \[confidentiality\]" "lockdown was not raised ($2)"
	check_refused "$log" "$before" "diskdump: kernel lockdown forbids a dump not encrypted for a trusted key: not dumping" "$2"
	if [ -d "$WORK/out/crash" ]; then fail "savecore saved something ($2)"; fi
}
openssl genrsa -out "$WORK/key.pem" 2048 2>/dev/null
openssl rsa -in "$WORK/key.pem" -RSAPublicKey_out -outform DER -out "$WORK/key.der" 2>/dev/null
raised "" "in clear"
grep -q '^# encryption: none' "$WORK/out/proc-diskdump.txt" || fail "sda1 was armed with a key"
raised ddkey=1 "bare key"
grep -qx "# encryption: chacha20-poly1305, RSA-2048 key sha256:$(sha256sum "$WORK/key.der" | cut -d' ' -f1)" \
	"$WORK/out/proc-diskdump.txt" || fail "sda1 was not armed with the bare key"
note "lockdown raised after arming in clear, or with a bare key: nothing written, dump disk byte-identical"
