#!/bin/bash
# Lay diskdump onto a pristine Debian linux-source-6.12 tree.
#
#   scripts/prepare-tree.sh DESTDIR
#
# DESTDIR is (re)created from /usr/src/linux-source-6.12.tar.xz whenever the
# tarball or the patch series changed since the last run; then the series in
# patches/ is applied with no fuzz allowed, and the project's new files
# (drivers/, include/, kernel/, Documentation/) are copied in.  Files whose
# content did not change keep their timestamps, so kbuild rebuilds only what
# was touched.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: prepare-tree.sh DESTDIR}
tarball=/usr/src/linux-source-6.12.tar.xz

die() { echo "prepare-tree: $*" >&2; exit 1; }

if [ ! -f "$tarball" ]; then
	echo "prepare-tree: installing linux-source-6.12" >&2
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.12 >/dev/null
fi
[ -f "$tarball" ] || die "$tarball is missing"

overlay_dirs="drivers include kernel Documentation"
stamp_of_series() {
	{ stat -c '%s %Y' "$tarball"; cat "$top/patches/series";
	  for p in $(grep -v '^#' "$top/patches/series"); do cat "$top/patches/$p"; done; } |
		sha256sum | cut -d' ' -f1
}
want=$(stamp_of_series)

if [ ! -f "$dest/.diskdump-series" ] || [ "$(cat "$dest/.diskdump-series")" != "$want" ]; then
	echo "prepare-tree: extracting a pristine tree into $dest" >&2
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xf "$tarball" -C "$dest.tmp" --strip-components=1
	# The new files must be new: refuse if upstream ever grows one of them.
	for d in $overlay_dirs; do
		[ -d "$top/$d" ] || continue
		(cd "$top" && find "$d" -type f) | while read -r f; do
			[ ! -e "$dest.tmp/$f" ] || die "$f exists in the pristine tree"
		done
	done
	for p in $(grep -v '^#' "$top/patches/series"); do
		[ -f "$top/patches/$p" ] || die "series names missing patch $p"
		if ! out=$(patch -d "$dest.tmp" -p1 --fuzz=0 --no-backup-if-mismatch -N <"$top/patches/$p" 2>&1); then
			echo "$out" >&2
			die "patch $p does not apply"
		fi
		if echo "$out" | grep -qi 'fuzz'; then
			echo "$out" >&2
			die "patch $p applies only with fuzz"
		fi
	done
	echo "$want" >"$dest.tmp/.diskdump-series"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
fi

# Copy the project's new files, touching only those whose content changed.
for d in $overlay_dirs; do
	[ -d "$top/$d" ] || continue
	(cd "$top" && find "$d" -type f) | while read -r f; do
		if ! cmp -s "$top/$f" "$dest/$f"; then
			mkdir -p "$(dirname "$dest/$f")"
			cp "$top/$f" "$dest/$f"
		fi
	done
done
