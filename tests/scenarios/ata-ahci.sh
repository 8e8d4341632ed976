# A SATA disk on QEMU's ich9-ahci: libata (ahci) through the SCSI dump hooks
# of ATA_BASE_SHT; poll runs the AHCI interrupt handler.  Two CPUs, the other
# one busy, and a second (empty) port.
SMP=2 driver_scenario ahci ddtest=smp4 ddmib=16 ddtrigger=sysrq
log=$WORK/serial.log
dm=$WORK/out/dmesg-boot2.txt
expect_log "$dm" "scsi host[0-9]+: ahci" "the disk is not behind ahci"
expect_log "$dm" "ata[0-9]+: SATA link up" "no SATA link behind ahci"
grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
check_saved_dump "sysrq triggered crash" 2
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1)"
check_gdb
