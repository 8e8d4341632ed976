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
pkgs=crash,python3-drgn,makedumpfile,gdb

# shellcheck source=scripts/debootstrap-once.sh
. "$top/scripts/debootstrap-once.sh"

die() { echo "trixie-tools: $*" >&2; exit 1; }

# make_root: the chroot, made once even when scenarios running side by side
# ask for it at the same time.
make_root() {
	debootstrap_once "$root" trixie "$pkgs" usr/bin/crash usr/bin/makedumpfile usr/bin/drgn
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
