# A disk behind virtio-scsi with two request queues: the block layer gets
# one, the dump the other (the SCSI dump hooks put the dump's commands
# there and poll it).  Two CPUs, the other one reading sda2 with O_DIRECT
# through the block layer's queue (throttled to 200 requests a second),
# so that its commands are in flight at the panic; they neither block the
# dump nor complete into its queue.  sda2 (random bytes) must come out
# unchanged.
busy_scenario -device virtio-scsi-pci,id=vs0,addr=0x18,num_queues=2 -device scsi-hd,drive=dd0,bus=vs0.0
log=$WORK/serial.log
dm=$WORK/out/dmesg-boot2.txt
expect_log "$dm" "virtio_scsi virtio[0-9]+: dump queue set aside, [0-9]+ entries" "no request queue was set aside for dumps"
vdev=$(grep -Eo 'virtio_scsi virtio[0-9]+: dump queue set aside' "$dm" | head -1 | cut -d' ' -f2)
expect_log "$dm" "virtio_scsi $vdev 1/0/0 default/read/poll queues" "the block layer was given both request queues of ${vdev%:}"
expect_log "$dm" "scsi host[0-9]+: Virtio SCSI HBA" "the disk is not behind virtio-scsi"
grep -q "sym0:" "$log" && fail "an lsi53c895a is present: the dump could have gone through it"
expect_log "$log" "trying partition 8:1 " "sda1 was not tried"
check_saved_dump "sysrq triggered crash" 2
[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); sda2 unchanged"
note "$(grep -Eo 'diskdump: [0-9]+ pages read by the device itself, [0-9]+ copied' "$log" | tail -1)"
check_gdb
check_readers "sysrq triggered crash" ddpattern 2 "__handle_sysrq|sysrq_handle_crash"
