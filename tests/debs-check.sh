#!/bin/bash
# Checks of the diskdump-tools package that scripts/debs.sh built: lintian
# is clean (debs.sh fails otherwise), and the package does what an admin
# expects of it: /etc/default/diskdump is a conffile that arms nothing,
# installing it starts nothing (no maintainer script arms or saves), the
# unit and the script run the installed diskdumpctl, and every program has
# its manual page.  Prints "debs: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
pass=0 failed=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; failed=$((failed + 1)); }
check() { # WHAT CMD...
	local what=$1
	shift
	if "$@"; then ok "$what"; else notok "$what"; fi
}

# With a kernel built, its package too (bindeb-pkg, no -dbg package): the
# debian scenarios install it in their guest.
kernel=0
bz=build/obj/arch/x86/boot/bzImage
[ -f "$bz" ] && kernel=1
if ! KERNEL=$kernel DEBS_DBG=0 scripts/debs.sh >build/debs.log 2>&1; then
	cat build/debs.log
	notok "the package builds and lintian finds no error or warning"
	echo "debs: $pass passed, $failed failed"
	exit 1
fi
ok "the package builds and lintian finds no error or warning"
deb=$(ls build/debs/diskdump-tools_*.deb)
x=build/debs/x
rm -rf "$x"
mkdir -p "$x"
dpkg-deb -x "$deb" "$x/root" && dpkg-deb -e "$deb" "$x/control"

check "/etc/default/diskdump is a conffile" grep -qx /etc/default/diskdump "$x/control/conffiles"
# shellcheck disable=SC1091
check "the shipped configuration arms nothing" \
	sh -c '. "$1" && [ -z "$DISKDUMP_DEVICES" ] && [ -z "$DISKDUMP_KEY" ] && [ "$SAVECORE_DIR" = /var/crash ]' \
	sh "$x/root/etc/default/diskdump"
# Installing must not arm, save or format, and an upgrade must not disarm:
# no maintainer script runs the tools, starts or stops the service
# (enabling it for the next boot is fine; so is stopping the weekly verify
# timer when the package is removed: it disarms nothing).
starts=$(cat "$x"/control/{preinst,postinst,prerm,postrm} 2>/dev/null |
	grep -nE 'diskdumpctl|savecore|diskdumpfmt|/proc/diskdump|invoke-rc\.d|deb-systemd-invoke|systemctl .*start' |
	grep -vE "deb-systemd-invoke stop 'diskdump-verify\.service' 'diskdump-verify\.timer'" || true)
check "installing starts nothing${starts:+: $starts}" [ -s "$x/control/postinst" -a -z "$starts" ]
check "the unit is enabled at install (for the next boot)" grep -q "deb-systemd-helper enable 'diskdump.service'" "$x/control/postinst"
check "the weekly verify timer is enabled at install" grep -q "deb-systemd-helper enable 'diskdump-verify.timer'" "$x/control/postinst"
check "the verify service runs diskdumpctl verify" \
	grep -qx 'ExecStart=/usr/sbin/diskdumpctl verify' "$x/root/lib/systemd/system/diskdump-verify.service"
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$x/root/lib/systemd/system/diskdump.service")
check "the unit runs a program the package installs ($exec_start)" test -x "$x/root$exec_start"
check "the init script is registered with update-rc.d" grep -q "update-rc.d diskdump defaults" "$x/control/postinst"
for p in savecore diskdumpfmt diskdumpctl; do
	check "$p is in /usr/sbin with its manual page" \
		test -x "$x/root/usr/sbin/$p" -a -f "$x/root/usr/share/man/man8/$p.8.gz"
done
# The programs were built with the hardening flags (lintian checks the
# fortified functions; this checks the link).
check "savecore is PIE with full RELRO" \
	sh -c 'readelf -h "$1" | grep -q "DYN" && readelf -d "$1" | grep -q "BIND_NOW"' sh "$x/root/usr/sbin/savecore"
check "savecore -h runs from the package" sh -c '"$1" -h 2>&1 | grep -q "usage"' sh "$x/root/usr/sbin/savecore"

# Installed with dpkg on Debian 12 (a debootstrap root, cached): enabled
# for the next boot in both init systems, the conffile kept over a
# reinstall once the admin edited it, everything gone after a purge.
if ! scripts/debian-root.sh copy "$x/sys" >"$x/root.log" 2>&1; then
	cat "$x/root.log"
	notok "a Debian 12 root to install into"
else
	cp "$deb" "$x/sys/tmp/"
	in_sys() { scripts/debian-root.sh run "$top/$x/sys" "$@"; }
	pkg=/tmp/$(basename "$deb")
	if in_sys dpkg -i "$pkg" >"$x/install.log" 2>&1; then
		ok "dpkg -i installs it on Debian 12"
	else
		cat "$x/install.log"
		notok "dpkg -i installs it on Debian 12"
	fi
	check "diskdump.service is enabled" \
		sh -c '[ "$(scripts/debian-root.sh run "$1" systemctl is-enabled diskdump.service)" = enabled ]' sh "$top/$x/sys"
	check "diskdump-verify.timer is enabled" \
		sh -c '[ "$(scripts/debian-root.sh run "$1" systemctl is-enabled diskdump-verify.timer)" = enabled ]' sh "$top/$x/sys"
	check "the init script is linked into rcS.d" sh -c 'ls "$1"/etc/rcS.d/S*diskdump >/dev/null' sh "$x/sys"
	check "dpkg lists /etc/default/diskdump as a conffile" \
		sh -c 'scripts/debian-root.sh run "$1" dpkg-query -W -f="\${Conffiles}" diskdump-tools | grep -q "/etc/default/diskdump "' sh "$top/$x/sys"
	echo 'DISKDUMP_DEVICES="PARTUUID=0badcafe-01"' >>"$x/sys/etc/default/diskdump"
	in_sys dpkg -i "$pkg" >"$x/reinstall.log" 2>&1
	check "a reinstall keeps the admin's /etc/default/diskdump" \
		grep -qx 'DISKDUMP_DEVICES="PARTUUID=0badcafe-01"' "$x/sys/etc/default/diskdump"
	in_sys dpkg -P diskdump-tools >"$x/purge.log" 2>&1
	if [ $kernel = 1 ]; then
		kdeb=$(ls build/debs/linux-image-*.deb | grep -v -- -dbg_)
		cp "$kdeb" "$x/sys/tmp/"
		in_sys dpkg -i "/tmp/$(basename "$kdeb")" >"$x/kinstall.log" 2>&1
		check "dpkg -i installs the kernel package on Debian 12" grep -q "^Setting up linux-image-" "$x/kinstall.log"
		check "its /boot/vmlinuz-* is the kernel make kernel built" sh -c 'cmp -s "$1"/boot/vmlinuz-* "$2"' sh "$x/sys" "$bz"
	fi
	left=$(cd "$x/sys" && ls -d etc/default/diskdump etc/init.d/diskdump etc/rcS.d/*diskdump \
		etc/systemd/system/*/diskdump.service etc/systemd/system/*/diskdump-verify.timer \
		usr/sbin/savecore 2>/dev/null || true)
	check "a purge leaves nothing behind${left:+: $left}" [ -z "$left" ]
fi
rm -rf "$x/sys"

echo "debs: $pass passed, $failed failed"
[ "$failed" = 0 ]
