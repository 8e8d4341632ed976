# The Debian 12 system on a bad day (tests/debian-guest.sh): a renamed disk
# and a missing one in /etc/default/diskdump, a full /var/crash, a save that
# outlasts the unit's start timeout, a corrupt dump header.  Each must give
# a clear journal message and a failed unit, and lose nothing: the data
# disk that took the dump disk's old name is never written, the dump stays
# on its partition until it is saved whole, and a dump savecore cannot
# trust is left as it is.
#
# Disks: vda root, vdb /var/crash, and behind the lsi53c895a a data disk
# (SCSI id 0: sda) and the dump disk (id 1: sdb, PARTUUID=dd0dd0dd-01,
# formatted by the host).  Three QEMU runs: boot 1 (crash), boot 2 (the
# failed saves, the good one, a second crash), then the host changes a
# byte of the header, boot 3.
# shellcheck source=tests/debian-guest.sh
. tests/debian-guest.sh
QEMU_TIMEOUT=600
DEBIAN_CONFIG='DISKDUMP_DEVICES="/dev/sda1 PARTUUID=0badc0de-01 /dev/disk/by-partuuid/dd0dd0dd-01"
SAVECORE_DIR=/var/crash
DISKDUMP_WAIT=3'
CRASH_MB=400
debian_image debian-bad
debian_dump_disk "$WORK/dump.img"
host_format "$WORK/dump.img" 1
mk_dump_disk "$WORK/data.img" 100 64
head -c 64M /dev/urandom >"$WORK/p1"
part_in "$WORK/data.img" 1 "$WORK/p1"
rm -f "$WORK/p1"
data_sum=$(part_sum "$WORK/data.img" 1)
disks() { # disks [DUMP_DRIVE_OPTS]
	echo "-device lsi53c895a,id=scsi0 $(scsi_hd "$WORK/data.img" scsi0 0)" \
		"$(scsi_hd "$WORK/dump.img" scsi0 1 "file=$WORK/dump.img${1:+,$1}")"
}

debian_boot "$WORK/serial1.log" $(disks) -no-reboot
t1=$QEMU_SECONDS
# 24 MiB/s: the 256 MiB save takes 10 s, twice the 5 s drop-in, which
# leaves savecore 5 s to start writing on a loaded host
debian_boot "$WORK/serial2.log" $(disks throttling.bps-total=25165824) -no-reboot
t2=$QEMU_SECONDS
debian_results
[ "$(cat "$DD/boots")" = 2 ] || fail "the guest booted $(cat "$DD/boots") times, not 2"

# the corrupt header: the host checks its change is one savecore refuses
part_out "$WORK/dump.img" 1 "$WORK/part.tmp"
tools/diskdump/savecore -c -q "$WORK/part.tmp" >/dev/null 2>&1 ||
	fail "the second crash left no dump on the partition"
# nr_cpus (struct diskdump_header, offset 36), which the header's crc
# covers: 1 becomes 2
python3 - "$WORK/part.tmp" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    h = f.read(40)
    assert h[:8] == b"DDUMPHDR" and struct.unpack_from("<I", h, 36)[0] == 1, "not a one-CPU dump header"
    f.seek(36)
    f.write(struct.pack("<I", 2))
PY
rc=0
tools/diskdump/savecore -q "$WORK/part.tmp" "$WORK" >"$WORK/host-corrupt.txt" 2>&1 || rc=$?
[ $rc = 4 ] || { cat "$WORK/host-corrupt.txt"; fail "the changed header is not refused by savecore on the host (exit $rc, not 4)"; }
part_in "$WORK/dump.img" 1 "$WORK/part.tmp"
rm -f "$WORK/part.tmp"
dump_sum=$(part_sum "$WORK/dump.img" 1)
debian_boot "$WORK/serial3.log" $(disks)
note "qemu ran ${t1}s + ${t2}s + ${QEMU_SECONDS}s"
debian_results
cat "$WORK"/serial[123].log >"$WORK/serial.log"

# boot 1: the renamed disk and the missing one are named, the unit failed,
# the dump partition is armed all the same
j=$DD/journal-boot1.txt
expect_log "$j" "diskdump: /dev/sda1 \(/dev/sda1\) is not formatted for diskdump: not touching it" "the renamed disk"
# DISKDUMP_WAIT=3: at least 3 s, looked at once a second in whole seconds
# of date +%s, so 4 or 5 on a loaded host
expect_log "$j" "PARTUUID=0badc0de-01: no such device \(waited [345]s\)" "the missing disk"
expect_line "$j" "diskdump: /dev/disk/by-partuuid/$DEBIAN_PARTUUID armed" "the good partition"
unit_is "$DD/unit-boot1.txt" Result exit-code
unit_is "$DD/unit-boot1.txt" ExecMainStatus 1
grep -q '^sdb1 ' "$DD/proc-boot1.txt" || { cat "$DD/proc-boot1.txt"; fail "sdb1 was not armed at boot 1"; }
grep -q '^sda1 ' "$DD/proc-boot1.txt" && fail "the data disk's sda1 was armed"
note "boot 1: $(grep -c . "$j") journal lines; renamed and missing disks named, sdb1 armed, unit failed"

# boot 2: no room
j=$DD/journal-boot2.txt
expect_log "$j" "savecore: /var/crash: [0-9]+ MB needed, [0-9]+ MB free" "savecore said nothing of the room"
expect_log "$j" "no room for the dump of /dev/sdb1 in /var/crash: it stays on /dev/sdb1, not armed" "diskdumpctl on a full /var/crash"
unit_is "$DD/unit-boot2.txt" Result exit-code
grep -q '^sdb1 ' "$DD/proc-boot2.txt" && fail "sdb1, holding an unsaved dump, was armed"
[ ! -s "$DD/crash-boot2.txt" ] || { cat "$DD/crash-boot2.txt"; fail "the failed save left files in /var/crash"; }
# the administrator's fix: the two bad names removed with diskdumpctl
expect_line "$DD/default-boot2.txt" "DISKDUMP_DEVICES=\"/dev/disk/by-partuuid/$DEBIAN_PARTUUID\"" "diskdumpctl remove"
# the save cut short by the start timeout, seen writing before
expect_log "$DD/restart-short.txt" "^rc=[1-9][0-9]* writing-seen=yes$" "the restart with a 5 s timeout"
j=$DD/journal-short.txt
expect_log "$j" "start operation timed out|Failed with result 'timeout'" "the journal does not say the save timed out"
unit_is "$DD/unit-short.txt" Result timeout
[ ! -s "$DD/crash-short.txt" ] || { cat "$DD/crash-short.txt"; fail "the save cut short left files in /var/crash"; }
# then the save, whole
unit_is "$DD/unit-saved.txt" Result success
grep -q '^sdb1 ' "$DD/proc-saved.txt" || fail "sdb1 was not armed after the save"
vmcore=$(find "$WORK/crash" -path '*/ddguest-*/vmcore' -type f | head -n1)
[ -n "$vmcore" ] || { find "$WORK/crash" >&2; fail "no vmcore saved after the failures"; }
python3 tests/check-vmcore.py "$vmcore" --pattern "$DD/pattern.txt" --cpus 1 \
	>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "vmcore contents"; }
note "boot 2: no room, then cut short at 5 s, then saved: $(grep '^pattern:' "$WORK/check-vmcore.txt")"

# boot 3: the corrupt header
j=$DD/journal-boot3.txt
expect_log "$j" "/dev/sdb1 holds a dump savecore cannot trust; left as it is" "the corrupt dump"
unit_is "$DD/unit-boot3.txt" Result exit-code
grep -q '^sdb1 ' "$DD/proc-boot3.txt" && fail "sdb1, holding a corrupt dump, was armed"
[ "$(part_sum "$WORK/dump.img" 1)" = "$dump_sum" ] || fail "boot 3 wrote to the partition with the corrupt dump"
[ "$(part_sum "$WORK/data.img" 1)" = "$data_sum" ] || fail "the data disk (sda1, the dump disk's old name) was written"
note "boot 3: the corrupt dump left as it was; the data disk unchanged over three boots"
