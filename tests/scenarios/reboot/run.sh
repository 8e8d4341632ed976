# After a dump, the machine goes back into service.  With panic=0, the
# default of Debian's kernel, panic() never reboots: diskdump used to write
# the dump and leave the machine halted until someone power-cycled it.
# Now a dump that a partition took (or part of it) makes panic() reboot:
# "reboot auto", the default, at once where panic= would never reboot and
# after panic='s own wait otherwise; "reboot N" after N seconds whatever
# panic= says; "reboot panic" as panic= says.
#  1. panic=0, the default setting: the dump, then a reboot at once, and
#     boot 2 saves the dump (a hang fails on the QEMU timeout).
#  2. panic=0, "reboot 2": panic() waits 2 s, then reboots (boot 1 only).
#  3. panic=1, the default setting: panic='s 1 s wait, as the
#     administrator set it (boot 1 only).
#  4. panic=0, "reboot panic", set as DISKDUMP_REBOOT=panic in
#     /etc/default/diskdump through diskdumpctl: the dump, then the halt
#     panic=0 asks for (QEMU stopped after 75 s).
QEMU_TIMEOUT=300
dump_scenario "panic=0 ddmib=4"
log=$WORK/serial.log
expect_log "$log" "diskdump: rebooting at once: the dump holds the panic message" "no reboot at once after the dump"
grep -q "Rebooting in" "$log" && fail "panic() waited before the reboot"
check_saved_dump "sysrq triggered crash" 1
t1=$QEMU_SECONDS

# boot1_only N APPEND [run_qemu's status left in $rc]: a fresh dump disk,
# boot 1 in QEMU with APPEND, its log serialN.log, its dump checked.
boot1_only() {
	mk_dump_disk "$WORK/dump.img" 300
	mk_out_disk "$WORK/out.img" 700
	run_qemu "$WORK/serial$1.log" "$2" $(disk_on lsi "$WORK/dump.img") -no-reboot
	expect_log "$WORK/serial$1.log" "diskdump: dump complete" "no dump with $2"
}

boot1_only 2 "panic=0 ddmib=4 ddreboot=2"
expect_log "$WORK/serial2.log" "Rebooting in 2 seconds" "reboot 2 did not wait 2 seconds"
grep -q "rebooting at once" "$WORK/serial2.log" && fail "reboot 2 rebooted at once"

boot1_only 3 "ddmib=4"
expect_log "$WORK/serial3.log" "Rebooting in 1 seconds" "reboot auto did not leave panic=1's wait alone"
grep -q "rebooting at once" "$WORK/serial3.log" && fail "reboot auto overrode panic=1"

rc=0
(QEMU_TIMEOUT=75 boot1_only 4 "panic=0 ddtest=reboot ddmib=4 ddrebootctl=panic") 2>"$WORK/qemu4.txt" || rc=$?
expect_log "$WORK/serial4.log" "diskdump: after a dump: reboot panic" "diskdumpctl did not set DISKDUMP_REBOOT"
expect_log "$WORK/serial4.log" "GUEST: # reboot: panic" "/proc/diskdump does not say reboot panic"
expect_log "$WORK/serial4.log" "diskdump: dump complete" "no dump with reboot panic"
expect_log "$WORK/serial4.log" "end Kernel panic - not syncing" "panic() did not end"
grep -q "rebooting at once" "$WORK/serial4.log" && fail "reboot panic rebooted at once"
grep -q "qemu exit 124" "$WORK/qemu4.txt" || { cat "$WORK/qemu4.txt"; fail "with reboot panic and panic=0 the guest did not stay halted (rc $rc)"; }
note "panic=0: dump, reboot at once, saved (${t1}s); reboot 2: 'Rebooting in 2 seconds'; auto with panic=1: its wait; reboot panic with panic=0: halted"
