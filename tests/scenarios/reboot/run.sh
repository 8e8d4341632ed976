# After a dump, the machine goes back into service without waiting.  With
# panic=0, the default of Debian's kernel, panic() never reboots: diskdump
# used to write the dump and leave the machine halted until someone
# power-cycled it.  Now a dump a partition took makes panic() reboot at
# once (the default, "reboot 0"), after N seconds ("reboot N"), or as
# panic= says ("reboot panic").
#  1. panic=0, the default setting: the dump, then a reboot at once, and
#     boot 2 saves the dump (a hang fails on the QEMU timeout).
#  2. panic=0, "reboot 2": panic() waits 2 s, then reboots (boot 1 only).
#  3. panic=1, "reboot panic", set as DISKDUMP_REBOOT=panic in
#     /etc/default/diskdump through diskdumpctl: panic= is followed (boot
#     1 only).
QEMU_TIMEOUT=300
dump_scenario "panic=0 ddmib=4"
log=$WORK/serial.log
expect_log "$log" "diskdump: rebooting at once: the dump holds the panic message" "no reboot at once after the dump"
grep -q "Rebooting in" "$log" && fail "panic() waited before the reboot"
check_saved_dump "sysrq triggered crash" 1
t1=$QEMU_SECONDS

mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial2.log" "panic=0 ddmib=4 ddreboot=2" $(disk_on lsi "$WORK/dump.img") -no-reboot
expect_log "$WORK/serial2.log" "diskdump: dump complete" "no dump with reboot 2"
expect_log "$WORK/serial2.log" "Rebooting in 2 seconds" "reboot 2 did not wait 2 seconds"
grep -q "rebooting at once" "$WORK/serial2.log" && fail "reboot 2 rebooted at once"

mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial3.log" "ddtest=reboot ddmib=4 ddrebootctl=panic" $(disk_on lsi "$WORK/dump.img") -no-reboot
expect_log "$WORK/serial3.log" "diskdump: after a dump: reboot panic" "diskdumpctl did not set DISKDUMP_REBOOT"
expect_log "$WORK/serial3.log" "GUEST: # reboot: panic" "/proc/diskdump does not say reboot panic"
expect_log "$WORK/serial3.log" "diskdump: dump complete" "no dump with reboot panic"
expect_log "$WORK/serial3.log" "Rebooting in 1 seconds" "reboot panic did not follow panic=1"
grep -q "rebooting at once" "$WORK/serial3.log" && fail "reboot panic rebooted at once"
note "panic=0: dump, reboot at once, saved (${t1}s); reboot 2: 'Rebooting in 2 seconds'; reboot panic: panic=1's wait"
