# An NVMe namespace: the dump goes through the queue pair that nvme-pci set
# aside, while the other CPU keeps O_DIRECT reads of nvme0n1p2 in flight on
# the normal queues.  p2 (random bytes) must come out unchanged.
mk_dump_disk "$WORK/dump.img" 400 300 64
head -c 64M /dev/urandom >"$WORK/p2"
part_in "$WORK/dump.img" 2 "$WORK/p2"
sum2=$(part_sum "$WORK/dump.img" 2)
mk_out_disk "$WORK/out.img" 700
# Boot 1 ends in QEMU (-no-reboot) and boot 2 is a fresh QEMU: after a
# warm reset that follows NVMe I/O, QEMU 7.2's nvme model stops raising
# the admin queue's interrupt in the next boot (seen with no dump at all:
# the same reader, a panic and no partition armed).  A real reboot resets
# the controller; savecore in boot 2 still reads what boot 1 wrote.
args="ddtest=busyread ddbusy=/dev/nvme0n1p2 ddmib=16 ddtrigger=sysrq dddevs=/dev/nvme0n1p1"
# Boot 1 throttles the disk to 200 requests a second, so that the reader's
# commands wait in QEMU and are in flight on the driver's queues at the
# panic.
nvme_args="-device nvme,serial=diskdump0,drive=dd0 -drive file=$WORK/dump.img,if=none,format=raw,id=dd0"
SMP=2 two_qemus "$args" "$nvme_args,throttling.iops-total=200" "$nvme_args"
log=$WORK/serial.log
dm=$WORK/out/dmesg-boot2.txt
expect_log "$dm" "nvme nvme0: dump queue [0-9]+, [0-9]+ entries" "no dump queue was created"
expect_log "$log" "GUEST: reader passes before the crash: [1-9]" "the background reader did not run"
expect_log "$log" "trying partition 259:" "the NVMe partition was not tried"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 2
[ "$(part_sum "$WORK/dump.img" 2)" = "$sum2" ] || fail "nvme0n1p2 changed"
note "$(grep -o 'dump queue [0-9]*, [0-9]* entries, [0-9]* KiB per command' "$dm" | head -1); p2 unchanged"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log")"
check_gdb
check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
