# The Debian guests of the debian scenarios.  Sourced after tests/lib.sh.
# DEBIAN_SUITE, set before: bookworm (Debian 12, the default) or trixie
# (Debian 13).
#
# build/SUITE (scripts/debian-root.sh: debootstrap with systemd and udev)
# with the kernel and diskdump-tools packages of build/debs installed by
# dpkg is cached in build/debian-guest-SUITE.  Each scenario copies it, adds
# its steps (tests/scenarios/NAME/bootN; from tests/guest/debian,
# ddtest.service runs /usr/local/sbin/ddtest, which runs the step for the
# boot) and makes an ext4 image of it with
# mke2fs -d: no loop mount.  The guest boots the vmlinuz that the package
# installed in /boot, without an initramfs: root=/dev/vda.
#
# The disks: vda the root, vdb /var/crash (ext4, LABEL=ddcrash, in fstab),
# and the dump disk, whose MBR has the disk id dd0dd0dd: its first
# partition is PARTUUID=dd0dd0dd-01.

DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
export DEBIAN_SUITE
DEBIAN_GUEST=$PWD/build/debian-guest-$DEBIAN_SUITE
DEBIAN_PARTUUID=dd0dd0dd-01

# debian_deb GLOB: the package in build/debs, not the -dbg one, or nothing.
debian_deb() {
	local f
	for f in build/debs/$1; do
		case $f in *-dbg_*) continue ;; esac
		[ -f "$f" ] && { echo "$f"; return; }
	done
	return 0
}

# debian_debs: build/debs holds the kernel package of $KERNEL and a tools
# package newer than the tools' sources, or they are built again.
debian_debs() {
	local kdeb tdeb newer
	kdeb=$(debian_deb 'linux-image-*.deb')
	tdeb=$(debian_deb 'diskdump-tools_*.deb')
	if [ -n "$kdeb" ] && [ -n "$tdeb" ]; then
		newer=$(git ls-files tools/diskdump packaging include/uapi/linux/diskdump.h |
			while read -r f; do [ ! "$f" -nt "$tdeb" ] || echo "$f"; done)
		if [ -z "$newer" ] && dpkg-deb --fsys-tarfile "$kdeb" 2>/dev/null |
			tar -xO --wildcards './boot/vmlinuz-*' 2>/dev/null | cmp -s - "$KERNEL"; then
			return 0
		fi
	fi
	KERNEL=1 DEBS_DBG=0 scripts/debs.sh >"$WORK/debs.log" 2>&1 ||
		{ tail -30 "$WORK/debs.log"; fail "the Debian packages do not build"; }
}

# debian_guest_root: build/debian-guest-SUITE is build/SUITE with today's
# packages installed.  Under a lock: the debian scenarios run side by side.
debian_guest_root() {
	local stamp kdeb tdeb
	exec 8>"$PWD/build/.debian-guest.lock"
	flock 8
	debian_debs
	kdeb=$(debian_deb 'linux-image-*.deb')
	tdeb=$(debian_deb 'diskdump-tools_*.deb')
	[ -n "$kdeb" ] && [ -n "$tdeb" ] || fail "scripts/debs.sh left no packages in build/debs"
	stamp=$(cat "$kdeb" "$tdeb" | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$DEBIAN_GUEST.stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -f "$DEBIAN_GUEST.stamp"
		scripts/debian-root.sh copy "$DEBIAN_GUEST" >"$WORK/debian-root.log" 2>&1 ||
			{ cat "$WORK/debian-root.log"; fail "no Debian $DEBIAN_SUITE root"; }
		cp "$kdeb" "$tdeb" "$DEBIAN_GUEST/tmp/"
		scripts/debian-root.sh run "$DEBIAN_GUEST" sh -c 'dpkg -i /tmp/*.deb && rm /tmp/*.deb' \
			>"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log"; fail "dpkg -i of the packages failed"; }
		echo "$stamp" >"$DEBIAN_GUEST.stamp"
	fi
	flock -u 8
	exec 8>&-
}

# debian_image SCENARIO: $WORK/root.img, the guest's root file system with
# the steps tests/scenarios/SCENARIO/bootN; $WORK/crash.img, its
# /var/crash.  DEBIAN_CONFIG, if set, is written to /etc/default/diskdump.
# KERNEL becomes the package's vmlinuz.
debian_image() {
	local r=$WORK/root g=tests/guest/debian f
	debian_guest_root
	rm -rf "$r"
	cp -a "$DEBIAN_GUEST" "$r"
	echo ddguest >"$r/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 ddguest\n' >"$r/etc/hosts"
	printf '/dev/vda / ext4 errors=remount-ro 0 1\nLABEL=ddcrash /var/crash ext4 defaults 0 2\n' >"$r/etc/fstab"
	# no password: the serial console logs in nobody; ddtest does the work
	install -m 0755 "$g/ddtest" "$r/usr/local/sbin/ddtest"
	install -m 0644 "$g/ddtest.service" "$r/etc/systemd/system/ddtest.service"
	ln -sf /etc/systemd/system/ddtest.service "$r/etc/systemd/system/multi-user.target.wants/ddtest.service"
	# sd's names in SCSI address order before udev names anything
	install -m 0755 tests/guest/sd-order "$r/usr/local/sbin/sd-order"
	install -m 0644 "$g/sd-order.service" "$r/etc/systemd/system/sd-order.service"
	mkdir -p "$r/etc/systemd/system/sysinit.target.wants"
	ln -sf /etc/systemd/system/sd-order.service "$r/etc/systemd/system/sysinit.target.wants/sd-order.service"
	mkdir -p "$r/usr/local/lib/ddtest" "$r/var/lib/ddtest"
	for f in tests/scenarios/"$1"/boot*; do
		install -m 0644 "$f" "$r/usr/local/lib/ddtest/${f##*/}"
	done
	gcc -O2 -static -o "$r/usr/local/bin/ddpattern" tests/guest/ddpattern.c
	[ -z "${DEBIAN_CONFIG:-}" ] || printf '%s\n' "$DEBIAN_CONFIG" >"$r/etc/default/diskdump"
	KERNEL=$WORK/vmlinuz
	cp "$r"/boot/vmlinuz-* "$KERNEL"
	rm -f "$WORK/root.img" "$WORK/crash.img"
	mke2fs -q -t ext4 -d "$r" -L ddroot "$WORK/root.img" 1200M >/dev/null ||
		fail "mke2fs -d could not make the root image"
	mke2fs -q -t ext4 -L ddcrash "$WORK/crash.img" "${CRASH_MB:-600}M" >/dev/null
	rm -rf "$r"
}

# debian_dump_disk FILE: a 400 MiB disk, one 300 MiB partition,
# PARTUUID=dd0dd0dd-01.
debian_dump_disk() {
	mk_dump_disk "$1" 400 300
	sfdisk -q --disk-id "$1" 0xdd0dd0dd >/dev/null
}

# debian_boot LOG [qemu args]: boot the guest until it powers off (a panic
# reboots it in the same QEMU).  The dump disk is in the args.
debian_boot() {
	local log=$1
	shift
	boot_qemu "$log" "root=/dev/vda ro" \
		-drive "file=$WORK/root.img,if=virtio,format=raw" \
		-drive "file=$WORK/crash.img,if=virtio,format=raw" "$@"
}

# debian_results: what ddtest recorded, in $WORK/dd, and /var/crash in
# $WORK/crash.
debian_results() {
	rm -rf "$WORK/dd" "$WORK/crash"
	mkdir -p "$WORK/dd" "$WORK/crash"
	debugfs -R "rdump /var/lib/ddtest $WORK/dd" "$WORK/root.img" >/dev/null 2>&1 ||
		fail "debugfs could not read the root image"
	debugfs -R "rdump / $WORK/crash" "$WORK/crash.img" >/dev/null 2>&1 ||
		fail "debugfs could not read the crash image"
	DD=$WORK/dd/ddtest
}

# unit_is FILE KEY VALUE: systemctl show wrote KEY=VALUE.
unit_is() {
	grep -qx "$2=$3" "$1" || fail "$(basename "$1"): wanted $2=$3, got '$(grep "^$2=" "$1")'"
}

# unit_time FILE KEY: a monotonic timestamp from systemctl show, in us.
unit_time() {
	local v
	v=$(sed -n "s/^$2=//p" "$1")
	[ -n "$v" ] && [ "$v" -gt 0 ] || fail "$(basename "$1"): no $2"
	echo "$v"
}

# debian_end_to_end NAME CPUS DISK_ARGS...: the debian scenarios' steps
# (tests/scenarios/debian/bootN) on a guest with CPUS CPUs and the dump
# disk given by DISK_ARGS, which the guest names NAME (sda, vdc...).  Boot
# 1: diskdump.service is enabled by the package and arms nothing; the
# partition is formatted and added by its /dev/disk/by-partuuid name;
# memory is filled with the pattern; sysrq c.  Boot 2: diskdump.service
# saves the dump to /var/crash before sysinit.target, after /var/crash is
# mounted, and arms the partition again; the journal says both.  Then the
# saved dump's pattern pages.
debian_end_to_end() {
	local name=$1 cpus=$2 log=$WORK/serial.log j vmcore
	local mounted coldplug began ended sysinit
	shift 2
	debian_image debian
	debian_dump_disk "$WORK/dump.img"
	SMP=$cpus debian_boot "$log" "$@"
	note "qemu ran ${QEMU_SECONDS}s for both boots"
	debian_results
	[ "$(cat "$DD/boots" 2>/dev/null)" = 2 ] || { tail -30 "$log"; fail "the guest booted $(cat "$DD/boots" 2>/dev/null || echo 0) times, not 2"; }
	expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "the guest did not panic"
	expect_log "$log" "diskdump: dump complete: [0-9]+ pages" "the dump did not complete"

	# boot 1: as the package left it, then armed through diskdumpctl
	expect_line "$DD/enabled.txt" enabled "diskdump.service is not enabled"
	unit_is "$DD/unit-boot1.txt" Result success
	expect_line "$DD/add.txt" "diskdump: /dev/disk/by-partuuid/$DEBIAN_PARTUUID armed" "diskdumpctl add"
	expect_line "$DD/default.txt" "DISKDUMP_DEVICES=\"/dev/disk/by-partuuid/$DEBIAN_PARTUUID\"" "/etc/default/diskdump"
	grep -q "^${name}1 " "$DD/proc-boot1.txt" || { cat "$DD/proc-boot1.txt"; fail "${name}1 was not armed at boot 1"; }

	# boot 2: saved, then armed again, by the unit
	j=$DD/journal-boot2.txt
	expect_log "$j" "savecore: saved a complete dump" "the journal has no save"
	expect_line "$j" "diskdump: /dev/disk/by-partuuid/$DEBIAN_PARTUUID armed" "the journal has no re-arm"
	unit_is "$DD/unit-boot2.txt" Result success
	unit_is "$DD/unit-boot2.txt" ActiveState active
	grep -q "^${name}1 " "$DD/proc-boot2.txt" || { cat "$DD/proc-boot2.txt"; fail "${name}1 was not armed again at boot 2"; }
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
	pattern_stayed "$DD/pattern.txt"
	python3 tests/check-vmcore.py "$vmcore" --pattern "$DD/pattern.txt" --cpus "$cpus" \
		>"$WORK/check-vmcore.txt" || { cat "$WORK/check-vmcore.txt"; fail "vmcore contents"; }
	note "$(grep '^pattern:' "$WORK/check-vmcore.txt")"
	VMCORE=$vmcore
}
