# A Debian 12 system end to end (tests/debian-guest.sh): the kernel and
# diskdump-tools packages installed with dpkg, systemd and udev.  Boot 1:
# diskdump.service is enabled by the package and arms nothing; the
# partition is formatted and added by its /dev/disk/by-partuuid name;
# memory is filled with the pattern; sysrq c.  Boot 2: diskdump.service
# saves the dump to /var/crash before sysinit.target, after /var/crash is
# mounted, and arms the partition again; the journal says both.
# shellcheck source=tests/debian-guest.sh
. tests/debian-guest.sh
QEMU_TIMEOUT=600
debian_image debian
debian_dump_disk "$WORK/dump.img"
debian_boot "$WORK/serial.log" $(disk_on lsi "$WORK/dump.img")
note "qemu ran ${QEMU_SECONDS}s for both boots"
debian_results
log=$WORK/serial.log
[ "$(cat "$DD/boots" 2>/dev/null)" = 2 ] || { tail -30 "$log"; fail "the guest booted $(cat "$DD/boots" 2>/dev/null || echo 0) times, not 2"; }
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "the guest did not panic"
expect_log "$log" "diskdump: dump complete: [0-9]+ pages" "the dump did not complete"

# boot 1: as the package left it, then armed through diskdumpctl
expect_line "$DD/enabled.txt" enabled "diskdump.service is not enabled"
unit_is "$DD/unit-boot1.txt" Result success
expect_line "$DD/add.txt" "diskdump: /dev/disk/by-partuuid/$DEBIAN_PARTUUID armed" "diskdumpctl add"
expect_line "$DD/default.txt" "DISKDUMP_DEVICES=\"/dev/disk/by-partuuid/$DEBIAN_PARTUUID\"" "/etc/default/diskdump"
grep -q '^sda1 ' "$DD/proc-boot1.txt" || { cat "$DD/proc-boot1.txt"; fail "sda1 was not armed at boot 1"; }

# boot 2: saved, then armed again, by the unit
j=$DD/journal-boot2.txt
expect_log "$j" "savecore: saved a complete dump" "the journal has no save"
expect_line "$j" "diskdump: /dev/disk/by-partuuid/$DEBIAN_PARTUUID armed" "the journal has no re-arm"
unit_is "$DD/unit-boot2.txt" Result success
unit_is "$DD/unit-boot2.txt" ActiveState active
grep -q '^sda1 ' "$DD/proc-boot2.txt" || { cat "$DD/proc-boot2.txt"; fail "sda1 was not armed again at boot 2"; }
# the ordering and the timeout the unit's documentation gives
unit_is "$DD/unit-boot2.txt" TimeoutStartUSec 30min
grep -Eq '^After=(.* )?var-crash\.mount( |$)' "$DD/unit-boot2.txt" || fail "diskdump.service is not ordered after var-crash.mount"
mounted=$(unit_time "$DD/order-var-crash.mount.txt" ActiveEnterTimestampMonotonic)
coldplug=$(unit_time "$DD/order-systemd-udev-trigger.service.txt" ActiveEnterTimestampMonotonic)
began=$(unit_time "$DD/unit-boot2.txt" InactiveExitTimestampMonotonic)
ended=$(unit_time "$DD/unit-boot2.txt" ActiveEnterTimestampMonotonic)
sysinit=$(unit_time "$DD/order-sysinit.target.txt" ActiveEnterTimestampMonotonic)
[ "$mounted" -le "$began" ] || fail "savecore started before /var/crash was mounted"
[ "$coldplug" -le "$began" ] || fail "savecore started before udev's coldplug"
[ "$ended" -le "$sysinit" ] || fail "sysinit.target (and the services after it) came before the save ended"
note "boot 2: /var/crash mounted at $((mounted / 1000)) ms, save from $((began / 1000)) to $((ended / 1000)) ms, sysinit.target at $((sysinit / 1000)) ms"

# the dump, where savecore put it, with the pattern the guest wrote
vmcore=$(find "$WORK/crash" -path '*/ddguest-*/vmcore' -type f | head -n1)
[ -n "$vmcore" ] || { find "$WORK/crash" >&2; fail "no /var/crash/ddguest-*/vmcore"; }
note "saved as /var/crash/${vmcore#"$WORK/crash/"}"
python3 tests/check-vmcore.py "$vmcore" --pattern "$DD/pattern.txt" --cpus 1 \
	>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "vmcore contents"; }
note "$(grep '^pattern:' "$WORK/check-vmcore.txt")"
