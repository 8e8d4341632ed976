# A virtio-blk device reset between arming and panic: suspend (freeze)
# deletes the device's virtqueues and restore creates new ones.  The dump
# must go through the new dump queue: with the old one kept, the dump
# would use a freed virtqueue; with none, sanity_check refuses vdb1 and
# nothing is written.  One CPU, num-queues=2: the block layer gets one
# queue, the dump the other.
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
run_qemu "$WORK/serial.log" "ddtest=virtio-blk-reset ddmib=16 ddtrigger=sysrq dddevs=/dev/vdb1" \
	-drive "file=$WORK/dump.img,if=none,format=raw,id=dd0" -device virtio-blk-pci,drive=dd0,addr=0x18,num-queues=2
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
grep -q "no dump queue (the device was suspended)" "$log" && fail "sanity_check found no dump queue"
DUMPDEV=/dev/vdb1 check_saved_dump "sysrq triggered crash" 1
check_direct direct
# The console shows no info messages; the log in the dump has them all.
check_dmesg "sysrq triggered crash"
dl=$WORK/dmesg.txt
expect_log "$dl" "PM: suspend entry \(s2idle\)" "the guest did not suspend"
expect_log "$dl" "virtio_blk virtio[0-9]+: dump queue dump set aside again" "restore did not hand over the new dump queue"
again=$(grep -n "dump queue dump set aside again" "$dl" | head -1 | cut -d: -f1)
panic=$(grep -n "Kernel panic - not syncing" "$dl" | head -1 | cut -d: -f1)
[ "$again" -lt "$panic" ] || fail "the dump queue was set aside again only after the panic"
note "suspend and resume between arming and panic; the new dump queue took the dump"
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
