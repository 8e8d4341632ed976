# An IDE disk on the PC's PIIX controller: libata (ata_piix, BMDMA) through
# the SCSI dump hooks of ATA_BASE_SHT; poll runs ata_bmdma_interrupt.
driver_scenario piix ddtest=sysrq ddmib=16 ddtrigger=sysrq
log=$WORK/serial.log
dm=$WORK/out/dmesg-boot2.txt
expect_log "$dm" "scsi host0: ata_piix" "the disk is not behind ata_piix"
# (sanity_check refuses a disk that is not in a DMA mode: a dump at all
# says the BMDMA path was used)
grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
check_saved_dump "sysrq triggered crash" 1
check_direct direct
note "$(grep -o 'diskdump: quiesced in [0-9]* ms' "$log" | head -1)"
check_gdb
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
