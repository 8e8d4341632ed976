# lsi53c895a (sym53c8xx_2) with commands in flight at the panic: two CPUs,
# the other one reading sda2 with O_DIRECT in a loop, the disk throttled so
# that the reader's commands wait in QEMU.  quiesce must see the busy CCBs
# and reset the bus (an idle chip is left alone: dump-sysrq), diskdump
# must run the driver's timer that ends the settle time, the dump must be
# complete, and sda2 (random bytes) must come out unchanged.
mk_dump_disk "$WORK/dump.img" 400 300 64
head -c 64M /dev/urandom >"$WORK/p2"
part_in "$WORK/dump.img" 2 "$WORK/p2"
sum2=$(part_sum "$WORK/dump.img" 2)
mk_out_disk "$WORK/out.img" 700
SMP=2 run_qemu "$WORK/serial.log" "ddtest=busyread ddbusy=/dev/sda2 ddmib=16 ddtrigger=sysrq dddevs=/dev/sda1" \
	-device lsi53c895a,id=scsi0 -device scsi-hd,drive=dd0,bus=scsi0.0 \
	-drive "file=$WORK/dump.img,if=none,format=raw,id=dd0,throttling.iops-total=200"
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$log" "GUEST: reader passes before the crash: [1-9]" "the background reader did not run"
expect_log "$log" "sym0: commands in flight: resetting the bus" "quiesce did not reset the bus with commands in flight"
check_saved_dump "sysrq triggered crash" 2
grep -Eq "^timers_run: [1-9]" "$(dirname "$(the_vmcore)")/info" ||
	fail "the sym53c8xx timer that ends the settle time never ran during the dump"
[ "$(part_sum "$WORK/dump.img" 2)" = "$sum2" ] || fail "sda2 changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1); $(grep timers_run: "$(dirname "$(the_vmcore)")/info")"
