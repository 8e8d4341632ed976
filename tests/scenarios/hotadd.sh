# Memory hot-added after arming.  The guest (256 MiB) arms sda1, then the
# host plugs a 256 MiB DIMM through QMP (ACPI memory hotplug); the guest
# onlines its two memory blocks as movable, so that the pattern's user
# pages land there, fills memory and crashes.  The dump must cover the new
# memory: /proc/diskdump's RAM count grows by the DIMM, and every pattern
# page, those in the DIMM (PFN 0x100000 on, QEMU's hotplug area at 4 GiB)
# among them, is in the saved vmcore.
mk_dump_disk "$WORK/dump.img" 700
mk_out_disk "$WORK/out.img" 900
plug='[{"execute": "object-add", "arguments": {"qom-type": "memory-backend-ram", "id": "hot1", "size": 268435456}},
 {"execute": "device_add", "arguments": {"driver": "pc-dimm", "id": "dimm1", "memdev": "hot1"}}]'
python3 tests/qmp-when.py "$WORK/serial.log" "GUEST: armed; plug the memory" \
	"$WORK/qmp.sock" "$plug" >"$WORK/qmp.txt" 2>&1 &
qmp_pid=$!
MEM="256M,slots=2,maxmem=1G" run_qemu "$WORK/serial.log" "ddtest=hotadd ddmib=128" \
	$(scsi_disk "$WORK/dump.img") -qmp "unix:$WORK/qmp.sock,server=on,wait=off"
wait $qmp_pid || { cat "$WORK/qmp.txt"; fail "the DIMM was not plugged"; }
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$log" "GUEST: onlined 2 memory blocks" "the DIMM's memory did not come online"
before=$(awk '/^# ram_pages:/ {print $3}' "$WORK/out/ram-before.txt")
after=$(awk '/^# ram_pages:/ {print $3}' "$WORK/out/proc-diskdump.txt")
[ -n "$before" ] && [ -n "$after" ] || fail "no ram_pages line in /proc/diskdump"
[ $((after - before)) = 65536 ] || fail "/proc/diskdump counts $before pages of RAM before the DIMM and $after after (not 65536 more)"
hot=$(python3 -c 'import sys; print(sum(int(l, 16) >= 0x100000 for l in open(sys.argv[1]) if l.strip()))' "$WORK/out/pattern.txt")
[ "$hot" -ge 4096 ] || fail "only $hot pattern pages in the hot-added memory"
check_saved_dump "sysrq triggered crash" 1
note "RAM $before -> $after pages; $hot of $(wc -l <"$WORK/out/pattern.txt") pattern pages in the DIMM, all in the dump"
