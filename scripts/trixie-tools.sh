#!/bin/bash
# Debian 13's dump readers, which know Linux 6.12 (Debian 12's crash 8.0.2
# and drgn 0.0.22 predate it): crash 8.0.6, python3-drgn 0.0.31 (with
# libkdumpfile), makedumpfile 1.7.6 and gdb 16, in a chroot made with
# debootstrap and cached in build/trixie-tools.
#
#   scripts/trixie-tools.sh                make the chroot if it is missing
#   scripts/trixie-tools.sh run DIR CMD... run CMD in the chroot, with DIR
#                                          (absolute) visible at the same
#                                          path and /proc mounted
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=$top/build/trixie-tools
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs=crash,python3-drgn,makedumpfile,gdb

die() { echo "trixie-tools: $*" >&2; exit 1; }

have_root() {
	[ -x "$root/usr/bin/crash" ] && [ -x "$root/usr/bin/makedumpfile" ] && [ -x "$root/usr/bin/drgn" ]
}

# make_root: the chroot, made once even when scenarios running side by side
# ask for it at the same time (the second waits for the first).
make_root() {
	have_root && return 0
	mkdir -p "$(dirname "$root")"
	exec 8>"$root.lock"
	flock 8
	have_root && { exec 8>&-; return 0; }
	command -v debootstrap >/dev/null || {
		apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
	}
	echo "trixie-tools: debootstrap of Debian 13 with $pkgs into $root" >&2
	rm -rf "$root.tmp"
	debootstrap --variant=minbase --include="$pkgs" trixie "$root.tmp" "$mirror" \
		>"$root.log" 2>&1 || { tail -20 "$root.log" >&2; die "debootstrap failed"; }
	rm -rf "$root"
	mv "$root.tmp" "$root"
	exec 8>&-
}

run() {
	local dir=${1:?run DIR CMD...}
	shift
	[ "${dir#/}" != "$dir" ] && [ -d "$dir" ] || die "run: $dir is not an absolute directory"
	make_root
	mkdir -p "$root$dir"
	# A private mount namespace: the mounts go away with the command.
	unshare -m sh -c 'mount --bind "$1" "$0$1" && mount -t proc proc "$0/proc" && shift && exec chroot "$0" "$@"' \
		"$root" "$dir" "$@"
}

case "${1:-}" in
"") make_root ;;
run) shift; run "$@" ;;
*) die "usage: trixie-tools.sh [run DIR CMD...]" ;;
esac
