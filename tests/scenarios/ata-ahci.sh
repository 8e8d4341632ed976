# A SATA disk on QEMU's ich9-ahci: libata (ahci) through the SCSI dump hooks
# of ATA_BASE_SHT; poll runs the AHCI interrupt handler.  Two CPUs, the other
# one reading sda2 with O_DIRECT in a loop, so that quiesce has commands in
# flight to drain; sda2 (random bytes) must come out unchanged.
mk_dump_disk "$WORK/dump.img" 400 300 64
head -c 64M /dev/urandom >"$WORK/p2"
part_in "$WORK/dump.img" 2 "$WORK/p2"
sum2=$(part_sum "$WORK/dump.img" 2)
mk_out_disk "$WORK/out.img" 700
# QEMU throttles the disk to 200 requests a second, so that the reader's
# commands wait in QEMU long enough to be in flight at the panic (the dump
# is throttled too: some 600 commands of up to 1 MiB).
SMP=2 run_qemu "$WORK/serial.log" "ddtest=busyread ddbusy=/dev/sda2 ddmib=16 ddtrigger=sysrq dddevs=/dev/sda1" \
	-device ahci,id=ahci0 -device ide-hd,drive=dd0,bus=ahci0.0 \
	-drive "file=$WORK/dump.img,if=none,format=raw,id=dd0,throttling.iops-total=200"
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
dm=$WORK/out/dmesg-boot2.txt
expect_log "$dm" "scsi host[0-9]+: ahci" "the disk is not behind ahci"
expect_log "$dm" "ata[0-9]+: SATA link up" "no SATA link behind ahci"
grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
expect_log "$log" "GUEST: reader passes before the crash: [1-9]" "the background reader did not run"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
check_saved_dump "sysrq triggered crash" 2
[ "$(part_sum "$WORK/dump.img" 2)" = "$sum2" ] || fail "sda2 changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1); in flight at the panic: $(grep -o 'waiting for [0-9]* commands' "$log" | grep -o '[0-9]*' || echo none)"
check_gdb
check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
