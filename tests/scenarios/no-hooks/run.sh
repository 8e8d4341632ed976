# A disk behind a SCSI host whose driver has no dump hooks (QEMU's
# am53c974, driver am53c974): arming sda1 is refused, naming the driver,
# and the dump goes to the next partition in the list, vdb1 on a virtio-blk
# disk with two queues.  sda1 is never tried at panic and is formatted and
# empty afterwards.
mk_dump_disk "$WORK/am.img" 300
mk_dump_disk "$WORK/dump.img" 400
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=nohooks ddmib=16 dddevs=/dev/sda1,/dev/vdb1" \
	-device am53c974,id=am0 -drive "file=$WORK/am.img,if=none,format=raw,id=am" \
	-device scsi-hd,drive=am,bus=am0.0 \
	-drive "file=$WORK/dump.img,if=none,format=raw,id=vd1" -device virtio-blk-pci,drive=vd1,addr=0x18,num-queues=2
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$WORK/out/dmesg-boot2.txt" "am53c974 [0-9a-f:.]+: esp0: is a AM53C974" "the disk is not behind the am53c974"
expect_log "$log" "sd [0-9:]+: sda: its host's driver, am53c974, has no crash dump support" \
	"arming the disk behind the am53c974 was not refused, naming the driver"
expect_log "$log" "diskdump: /dev/sda1 could not be armed: /dev/sda1: its driver cannot write a dump to this disk" \
	"diskdumpctl did not say why sda1 could not be armed"
check_armed_elsewhere /dev/vdb1 "$WORK/am.img:1:sda1"
note "sda1 refused at arming, naming am53c974; never tried, formatted and empty after the panic; the dump on vdb1 checked"
