# A SATA disk on QEMU's ich9-ahci: libata (ahci) through the SCSI dump hooks
# of ATA_BASE_SHT; poll runs the AHCI interrupt handler.  Two CPUs, the other
# one reading sda2 with O_DIRECT in a loop, so that quiesce has commands in
# flight to drain; sda2 (random bytes) must come out unchanged.
busy_scenario -device ahci,id=ahci0 -device ide-hd,drive=dd0,bus=ahci0.0
log=$WORK/serial.log
dm=$WORK/out/dmesg-boot2.txt
expect_log "$dm" "scsi host[0-9]+: ahci" "the disk is not behind ahci"
expect_log "$dm" "ata[0-9]+: SATA link up" "no SATA link behind ahci"
grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
check_saved_dump "sysrq triggered crash" 2
check_direct direct
[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1); in flight at the panic: $(grep -o 'waiting for [0-9]* commands' "$log" | grep -o '[0-9]*' || echo none)"
check_gdb
check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
