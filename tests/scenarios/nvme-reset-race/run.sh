# An NVMe controller reset while its partition is being armed, after the
# dump queue was created and before it was ready, granting more queues
# than before (a poll queue more; see boot1).  The reset deletes the queue, and the
# qid set aside for dumps moves up: the old one becomes a block-layer
# queue.  The dump queue must be created again by the reset, at the new
# qid, and the dump go through it; nvme0n1p2, which the block layer's
# queues serve, must come out unchanged.  Before, the partition was put
# where a reset sees it only after its queue was ready, so the reset never
# knew, the queue stayed "ready" at the old qid, and at panic the dump
# rang another queue's doorbell.
mk_dump_disk "$WORK/dump.img" 400 300 64
head -c 64M /dev/urandom >"$WORK/p2"
part_in "$WORK/dump.img" 2 "$WORK/p2"
sum2=$(part_sum "$WORK/dump.img" 2)
mk_out_disk "$WORK/out.img" 700
nvme=$(disk_on nvme "$WORK/dump.img")
two_qemus "ddtest=nvme-reset-race ddmib=16 ddtrigger=sysrq dddevs=/dev/nvme0n1p1 nvme.poll_queues=1" "$nvme" "$nvme"
log=$WORK/serial.log
expect_log "$log" "diskdump: test: the dump queue is created, waiting 3 s" "the slow queue hook did not run"
[ "$(grep -c "GUEST: add /dev/nvme0n1p1 returned" "$WORK/serial1.log")" = 1 ] || fail "the add did not return once"
expect_log "$log" "GUEST: add /dev/nvme0n1p1 returned 0" "the add failed"
grep -q "GUEST: poll_queues not set\|GUEST: reset_controller failed" "$log" && fail "the reset was not made"
expect_log "$log" "trying partition 259:" "the NVMe partition was not tried"
DUMPDEV=/dev/nvme0n1p1 check_saved_dump "sysrq triggered crash" 1
[ "$(part_sum "$WORK/dump.img" 2)" = "$sum2" ] || fail "nvme0n1p2 changed"
check_dmesg "sysrq triggered crash"
dl=$WORK/dmesg.txt
expect_log "$dl" "nvme nvme0: controller reset while dump queue [0-9]+ was created" \
	"the reset did not come while the dump queue was being created"
first=$(grep -Eo "controller reset while dump queue [0-9]+ was created" "$dl" | head -1 | grep -Eo "[0-9]+")
again=$(grep -Eo "nvme nvme0: dump queue [0-9]+ created again after a reset" "$dl" | head -1 | grep -Eo "queue [0-9]+" | cut -d' ' -f2)
[ -n "$first" ] || fail "no dump queue was created at arming"
[ -n "$again" ] || fail "the reset did not create the dump queue again"
[ "$again" -gt "$first" ] || fail "the dump queue was created again at qid $again, not above $first"
# the block layer has its poll queue again, on a qid below the dump's
[ "$(grep -c "nvme nvme0: 1/0/1 default/read/poll queues" "$dl")" = 2 ] ||
	fail "the controller did not grant the poll queue at probe and after the last reset"
note "dump queue $first created; the controller reset meanwhile with a poll queue more; created again at qid $again; nvme0n1p2 unchanged"
