#!/bin/bash
# A Debian root file system with systemd and udev, for the packages' tests
# (and the Debian guests): debootstrap, minbase, cached in build/SUITE.
# SUITE is $DEBIAN_SUITE: bookworm (Debian 12, the default) or trixie
# (Debian 13).  It also holds the libraries diskdump-tools depends on, so
# that dpkg alone installs the package, as on a machine that has them.
#
#   scripts/debian-root.sh                 make the root if it is missing
#   scripts/debian-root.sh copy DIR        a fresh copy of it in DIR
#   scripts/debian-root.sh run DIR CMD...  run CMD chrooted in DIR, with
#                                          /proc, /sys and /dev mounted
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
suite=${DEBIAN_SUITE:-bookworm}
root=$top/build/$suite
pkgs=systemd-sysv,udev,kmod,e2fsprogs,fdisk,procps,liblzo2-2,libblkid1,libzstd1,zlib1g
case $suite in
# Debian 13's libssl3t64 provides libssl3, which the package depends on
bookworm) pkgs=$pkgs,libssl3 ;;
trixie) pkgs=$pkgs,libssl3t64 ;;
*) echo "debian-root: DEBIAN_SUITE=$suite: bookworm or trixie" >&2; exit 1 ;;
esac

# shellcheck source=scripts/debootstrap-once.sh
. "$top/scripts/debootstrap-once.sh"

die() { echo "debian-root: $*" >&2; exit 1; }

make_root() {
	debootstrap_once "$root" "$suite" "$pkgs" lib/systemd/systemd usr/bin/dpkg
}

case "${1:-}" in
"") make_root ;;
copy)
	dir=${2:?copy DIR}
	make_root
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -a "$root" "$dir"
	;;
run)
	dir=${2:?run DIR CMD...}
	shift 2
	[ -x "$dir/usr/bin/dpkg" ] || die "run: $dir is not a Debian root"
	# A private mount namespace: the mounts go away with the command.
	unshare -m sh -c 'mount -t proc proc "$0/proc" && mount --rbind /sys "$0/sys" &&
		mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' "$dir" "$@"
	;;
*) die "usage: debian-root.sh [copy DIR | run DIR CMD...]" ;;
esac
