# Devices that offer a single request queue have none to set aside for
# dumps: a virtio-blk disk (num-queues=1, vdb) and a disk behind virtio-scsi
# (num_queues=1, sda).  Arming vdb1 and sda1 is refused, each saying why
# and what to change, and the dump goes to the next partition in the list,
# vdc1 on a virtio-blk disk with two queues.  Neither refused partition is
# tried at panic, and both are formatted and empty afterwards.
# (addr=0x18 and up: slots after the output disk's, which stays vda)
mk_dump_disk "$WORK/vd.img" 300
mk_dump_disk "$WORK/vs.img" 300
mk_dump_disk "$WORK/dump.img" 400
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=virtio1q ddmib=16 dddevs=/dev/vdb1,/dev/sda1,/dev/vdc1" \
	-drive "file=$WORK/vd.img,if=none,format=raw,id=vd0" -device virtio-blk-pci,drive=vd0,addr=0x18,num-queues=1 \
	-drive "file=$WORK/dump.img,if=none,format=raw,id=vd1" -device virtio-blk-pci,drive=vd1,addr=0x19,num-queues=2 \
	-drive "file=$WORK/vs.img,if=none,format=raw,id=vs0" -device virtio-scsi-pci,id=vs,addr=0x1a,num_queues=1 \
	-device scsi-hd,drive=vs0,bus=vs.0
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$log" "virtio_blk virtio[0-9]+: vdb: no virtqueue set aside for dumps: the device offers a single request queue \(give it two or more; for QEMU, num-queues=2\)" \
	"arming the single-queue virtio-blk disk was not refused with the reason"
expect_log "$log" "sd [0-9:]+: no request queue set aside for dumps: the device offers a single one \(give it two or more; for QEMU, num_queues=2\)" \
	"arming the disk behind the single-queue virtio-scsi was not refused with the reason"
check_armed_elsewhere /dev/vdc1 "$WORK/vd.img:1:vdb1" "$WORK/vs.img:1:sda1"
note "vdb1 and sda1 refused at arming with their reasons, never tried, formatted and empty after the panic; the dump on vdc1 checked"
