# Four partitions in the list: sda1 never formatted (random bytes), sda2
# formatted and then overwritten by mkfs.ext4, sda3 in the old format
# version 1, sda4 formatted.  Arming must refuse the first three at once,
# each with its reason, holding none of them (sda2's ext4 mounts); the
# dump goes to sda4; sda1-3 stay byte-identical and sda2 fsck-clean.
mk_dump_disk "$WORK/dump.img" 400 8 64 16 300
head -c 8M /dev/urandom | dd of="$WORK/p1" status=none
part_in "$WORK/dump.img" 1 "$WORK/p1"
host_format "$WORK/dump.img" 2
host_mkfs "$WORK/dump.img" 2
host_format_v1 "$WORK/dump.img" 3
host_format "$WORK/dump.img" 4
sum1=$(part_sum "$WORK/dump.img" 1)
sum2=$(part_sum "$WORK/dump.img" 2)
sum3=$(part_sum "$WORK/dump.img" 3)
mk_out_disk "$WORK/out.img" 700
DUMPDEV=/dev/sda4
run_qemu "$WORK/serial.log" "ddtest=fallback ddmib=8 dddevs=/dev/sda1,/dev/sda2,/dev/sda3,/dev/sda4" \
	$(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/serial.log
expect_log "$log" "diskdump: sda1 is not formatted for diskdump \(block 0, byte 0\): not arming it" \
	"sda1 (random bytes) was not refused at arming"
expect_log "$log" "diskdump: sda2 is not formatted for diskdump \(block 0, byte [0-9]+\): not arming it" \
	"sda2 (ext4) was not refused at arming"
expect_log "$log" "diskdump: sda3 has diskdump format version 1: run diskdumpfmt on it again" \
	"sda3 (format version 1) was not refused at arming"
arm=$WORK/out/arm.txt
for d in sda1 sda2 sda3; do expect_line "$arm" "add /dev/$d refused" "/dev/$d was armed"; done
expect_line "$arm" "armed /dev/sda4" "sda4 was not armed"
expect_line "$arm" "mounted /dev/sda2 after the refusal" "the refused sda2 is still held"
grep -Eq '^sda[123] ' "$WORK/out/proc-diskdump.txt" && fail "/proc/diskdump lists a refused partition"
grep -q "trying partition 8:[123] " "$log" && fail "a refused partition was tried at panic"
check_saved_dump "sysrq triggered crash" 1
[ "$(part_sum "$WORK/dump.img" 1)" = "$sum1" ] || fail "sda1 changed"
[ "$(part_sum "$WORK/dump.img" 2)" = "$sum2" ] || fail "the ext4 file system on sda2 changed"
[ "$(part_sum "$WORK/dump.img" 3)" = "$sum3" ] || fail "sda3 (format version 1) changed"
host_fsck "$WORK/dump.img" 2 || { cat "$WORK/fsck.txt"; fail "sda2 is not fsck-clean"; }
note "sda1 (random), sda2 (ext4), sda3 (format v1) refused at arming, not held, byte-identical; dump on sda4 checked"
