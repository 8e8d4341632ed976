# kdump and diskdump both armed.  Without crash_kexec_post_notifiers kdump
# runs first and diskdump never does (kdump-compare checks that); diskdump
# is then the fallback for a crash kernel that is not loaded or cannot be
# started.  With crash_kexec_post_notifiers, panic() calls diskdump first
# and kexecs into the crash kernel after the notifiers: both dumps must be
# complete, and the pattern must be in both.
kdump_guest
kdump_out_disk
# boot 1: panic, diskdump, then the capture kernel saves with makedumpfile
run_qemu "$WORK/serial-panic.log" "$APPEND ddkdump=1 crash_kexec_post_notifiers" $(scsi_disk "$WORK/dump.img")
p=$WORK/serial-panic.log
expect_log "$p" "GUEST: kdump capture kernel loaded" "kexec -p failed"
expect_log "$p" "diskdump: dump complete: [0-9]+ pages" "diskdump did not dump before kdump"
expect_log "$p" "KDUMP: saved rc=0" "makedumpfile in the capture kernel failed"
first=$(grep -n "diskdump: dump complete" "$p" | head -1 | cut -d: -f1)
up=$(grep -n "KDUMP: capture kernel up" "$p" | head -1 | cut -d: -f1)
[ "$first" -lt "$up" ] || fail "the capture kernel came up before diskdump's dump"
# boot 2: savecore saves diskdump's dump
run_qemu "$WORK/serial-boot2.log" "$APPEND" $(scsi_disk "$WORK/dump.img")
cat "$p" "$WORK/serial-boot2.log" >"$WORK/serial.log"
extract_out
check_saved_dump "sysrq triggered crash" 1
python3 tests/check-vmcore.py "$WORK/out/vmcore-kdump" --pattern "$WORK/out/pattern.txt" --cpus 1 \
	>"$WORK/check-kdump.txt" || { cat "$WORK/check-kdump.txt"; fail "kdump's vmcore after diskdump's dump"; }
note "kdump after diskdump: $(grep '^pattern:' "$WORK/check-kdump.txt")"
