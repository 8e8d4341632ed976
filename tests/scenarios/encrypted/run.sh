# Encrypted dumps, from an NMI.  The admin gives an RSA public key (DISKDUMP_KEY); the
# kernel makes a dump key, keeps it wrapped for that key, and at panic
# encrypts the dump (ChaCha20) and seals it (Poly1305).  In the guest,
# savecore has no private key and saves the partition image as it is; on
# the host, savecore -K decodes it and the guest's pattern pages must be
# there.  No pattern page may be in the saved file in clear, and a wrong
# key or one altered byte must be refused with nothing decoded.
openssl genrsa -out "$WORK/key.pem" 2048 2>/dev/null
openssl rsa -in "$WORK/key.pem" -RSAPublicKey_out -outform DER -out "$WORK/key.der" 2>/dev/null
openssl genrsa -out "$WORK/other.pem" 2048 2>/dev/null
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
debugfs -w -R "write $WORK/key.der dumpkey.der" "$WORK/out.img" >/dev/null 2>&1
# The panic comes from an NMI (as in nmi), so the encryption and the copy
# of each page run on the 8 KiB NMI stack: its deepest use is measured.
SMP=2
python3 tests/qmp-when.py "$WORK/serial.log" "ddpattern: waiting to be crashed" \
	"$WORK/qmp.sock" inject-nmi >"$WORK/qmp.txt" 2>&1 &
qmp_pid=$!
run_qemu "$WORK/serial.log" "ddtest=encrypted ddmib=16 ddtrigger=wait unknown_nmi_panic" \
	$(scsi_disk "$WORK/dump.img") -qmp "unix:$WORK/qmp.sock,server=on,wait=off"
wait $qmp_pid || { cat "$WORK/qmp.txt"; fail "the NMI was not injected"; }
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
[ "$(grep -c "diskdump: dumps are encrypted for /out/dumpkey.der" "$log")" = 2 ] ||
	fail "diskdumpctl did not give the key in both boots"
expect_log "$WORK/out/dmesg-boot2.txt" "diskdump: dumps encrypted for the RSA-2048 key sha256:$(sha256sum "$WORK/key.der" | cut -d' ' -f1)" \
	"the kernel did not take the key"
expect_log "$log" "Kernel panic - not syncing: NMI: Not continuing" "the guest did not panic as planned"
expect_log "$log" "savecore: saved a complete encrypted dump" "savecore did not save the encrypted dump"
expect_log "$log" "diskdump: /dev/sda1 armed" "the init script did not re-arm the partition"
grep -q "^# encryption: chacha20-poly1305, RSA-2048 key sha256:" "$WORK/out/proc-diskdump.txt" ||
	fail "/proc/diskdump does not show the key"
enc=$(find "$WORK/out/crash" -name vmcore.encrypted -type f | head -n1)
[ -n "$enc" ] || fail "no vmcore.encrypted was saved"
[ -z "$(find "$WORK/out/crash" -name vmcore -type f)" ] || fail "savecore wrote a clear vmcore without the key"
info=$(dirname "$enc")/info
[ "$(stat -c %a "$enc")" = 600 ] || fail "vmcore.encrypted mode is not 0600"
info_is "$info" status complete
check_direct copy
info_is "$info" format "encrypted partition image"
info_is "$info" encryption "chacha20-poly1305, RSA-2048"
info_is "$info" key_id "sha256:$(sha256sum "$WORK/key.der" | cut -d' ' -f1)"
# no pattern page in clear in what the guest saved
python3 - "$enc" "$WORK/out/pattern.txt" >"$WORK/clear.txt" <<'PY' || { cat "$WORK/clear.txt"; fail "the saved file holds memory in clear"; }
import struct, sys
MAGIC = 0xd15cd0de00000000
pfns = [int(l, 16) for l in open(sys.argv[2]) if l.strip()]
firsts = {struct.pack('<Q', MAGIC ^ (p * 4096)) for p in pfns}
hits = blocks = 0
with open(sys.argv[1], 'rb') as f:
    while True:
        b = f.read(4096)
        if not b:
            break
        blocks += 1
        if b[:8] in firsts or b[8:16] == struct.pack('<Q', MAGIC ^ 8):
            hits += 1
print('clear: %d pattern pages listed, %d of %d blocks look like one' % (len(pfns), hits, blocks))
sys.exit(1 if hits or len(pfns) < 1000 else 0)
PY
note "$(cat "$WORK/clear.txt")"
# refused NAME KEY FILE RC MESSAGE: savecore -K KEY on FILE exits RC, says
# MESSAGE, and writes nothing.
refused() {
	local rc=0
	mkdir -p "$WORK/$1"
	tools/diskdump/savecore -q -k -K "$2" "$3" "$WORK/$1" 2>"$WORK/$1.txt" || rc=$?
	[ $rc = "$4" ] || fail "$1: savecore exited $rc, wanted $4"
	grep -q "$5" "$WORK/$1.txt" || { cat "$WORK/$1.txt"; fail "$1: no '$5' message"; }
	[ -z "$(find "$WORK/$1" -type f)" ] || fail "$1: savecore wrote files"
}
# a wrong key: refused, nothing written
refused wrong "$WORK/other.pem" "$enc" 1 "wrong key"
# one byte altered in the middle of the pages: refused, nothing written
cp "$enc" "$WORK/tampered"
size=$(stat -c %s "$WORK/tampered")
data_block=$(python3 -c 'import struct,sys; h=open(sys.argv[1],"rb").read(4096); print(struct.unpack_from("<Q",h,120)[0])' "$enc")
off=$(( (data_block + 3000) * 4096 + 123 ))
# the byte's bits all flipped: writing a fixed value would leave it as it
# was one time in 256
python3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1)[0]
    f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))' "$WORK/tampered" "$off"
[ "$(stat -c %s "$WORK/tampered")" = "$size" ] || fail "tampering changed the size"
cmp -s "$enc" "$WORK/tampered" && fail "the tampered copy is identical"
refused tamper "$WORK/key.pem" "$WORK/tampered" 4 "integrity check failed"
# the right key: decoded, and the pattern is there, byte for byte
tools/diskdump/savecore -q -k -K "$WORK/key.pem" "$enc" "$WORK/out/crash/decoded" ||
	fail "savecore -K could not decode the dump"
vmcore=$(the_vmcore)
python3 tests/check-vmcore.py "$vmcore" --pattern "$WORK/out/pattern.txt" --cpus 2 \
	>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "decoded vmcore contents"; }
note "decoded: $(grep '^pattern:' "$WORK/check-vmcore.txt")"
note "encrypted dump: $(grep -o "dump complete.*" "$log" | head -1) (write_ms $(grep "^write_ms:" "$info" | cut -d" " -f2))"
check_nmi_stack "$vmcore"
check_gdb
check_dmesg "NMI: Not continuing"
