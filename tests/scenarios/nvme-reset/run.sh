# An NVMe controller reset after the partition is armed: disabling the
# controller deletes all its queues, the dump queue too.  nvme-pci's reset
# work must create the dump queue again, or sanity_check refuses the
# partition and no dump is written.  "pages copy" is set: every page must
# go through the copy, none be read by the controller where it is.
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
args="ddtest=nvme-reset ddmib=16 ddtrigger=sysrq dddevs=/dev/nvme0n1p1 ddpages=copy"
nvme=$(disk_on nvme "$WORK/dump.img")
two_qemus "$args" "$nvme" "$nvme"
log=$WORK/serial.log
expect_log "$log" "trying partition 259:" "the NVMe partition was not tried"
grep -q "no dump queue (controller reset or removed)" "$log" && fail "sanity_check found no dump queue"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 1
grep -qx "# pages: copy" "$WORK/out/proc-diskdump.txt" || fail "/proc/diskdump does not say pages: copy"
check_direct copy
# The console shows no info messages; the log in the dump has them all.
check_dmesg "sysrq triggered crash"
dl=$WORK/dmesg.txt
expect_log "$dl" "nvme nvme0: dump queue [0-9]+, [0-9]+ entries" "no dump queue was created at arming"
expect_log "$dl" "nvme nvme0: dump queue [0-9]+ created again after a reset" "the reset did not create the dump queue again"
again=$(grep -n "created again after a reset" "$dl" | head -1 | cut -d: -f1)
panic=$(grep -n "Kernel panic - not syncing" "$dl" | head -1 | cut -d: -f1)
[ "$again" -lt "$panic" ] || fail "the dump queue was created again only after the panic"
note "$(grep -o 'dump queue [0-9]* created again after a reset' "$dl" | head -1), before the panic"
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
