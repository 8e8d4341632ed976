# A virtio-blk disk whose device offers a single request queue
# (num-queues=1) has none to set aside for dumps: arming vdb1 is refused,
# saying why and what to change, and the dump goes to the next partition
# in the list (sda1, behind an lsi53c895a).  vdb1 is never tried at panic
# and holds no dump afterwards.
# (addr=0x18: a slot after the output disk's, which stays vda)
mk_dump_disk "$WORK/vd.img" 300
mk_dump_disk "$WORK/dump.img" 400
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=virtio1q ddmib=16 dddevs=/dev/vdb1,/dev/sda1" \
	-drive "file=$WORK/vd.img,if=none,format=raw,id=vd0" -device virtio-blk-pci,drive=vd0,addr=0x18,num-queues=1 \
	$(scsi_disk "$WORK/dump.img")
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$log" "virtio_blk virtio[0-9]+: vdb: no virtqueue set aside for dumps: the device offers a single request queue \(give it two or more; for QEMU, num-queues=2\)" \
	"arming the single-queue disk was not refused with the reason"
grep -q '^vdb1 ' "$WORK/out/proc-diskdump.txt" && fail "/proc/diskdump lists the refused vdb1"
[ "$(grep -c 'diskdump: trying partition' "$log")" = 1 ] || fail "a partition other than sda1 was tried at panic"
check_saved_dump "sysrq triggered crash" 1
part_out "$WORK/vd.img" 1 "$WORK/vd1"
part_state "$WORK/vd1" 3 empty "vdb1 after the panic"
note "vdb1 refused at arming with its reason, never tried, formatted and empty after the panic; the dump on sda1 checked"
