# Memory hot-added after arming.  The guest (256 MiB) arms sda1, then the
# host plugs a 256 MiB DIMM through QMP (ACPI memory hotplug); the guest
# onlines its two memory blocks as movable, so that the pattern's user
# pages land there, fills memory and crashes.  The dump must cover the new
# memory: /proc/diskdump's RAM count grows by the DIMM, and every pattern
# page, those in the DIMM (PFN 0x100000 on, QEMU's hotplug area at 4 GiB)
# among them, is in the saved vmcore.
hotadd_run "ddtest=hotadd ddmib=128"
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
