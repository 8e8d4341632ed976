#!/bin/bash
# Lay diskdump onto a pristine Debian linux-source-6.12 tree.
#
#   scripts/prepare-tree.sh DESTDIR
#
# DESTDIR is (re)created from /usr/src/linux-source-6.12.tar.xz whenever the
# tarball or the patch series changed since the last run; then the series in
# patches/ is pushed with quilt, no fuzz allowed (edit it there: quilt push,
# quilt edit, quilt refresh; see patches/README), and the project's new files
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

# A tree being edited with quilt must have its work refreshed into
# patches/ before it is laid anew.
if [ -d "$dest/.pc" ]; then
	export QUILTRC=$top/patches/quiltrc
	if [ -n "$(cd "$dest" && quilt unapplied 2>/dev/null)" ]; then
		die "$dest: not every patch is pushed (quilt push -a there first)"
	fi
	if [ -n "$(cd "$dest" && quilt diff -z 2>/dev/null)" ]; then
		die "$dest: changes not refreshed into patches/ (quilt refresh there first)"
	fi
fi

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
	# quilt applies the series (no fuzz: patches/quiltrc), so that the
	# tree can be edited with quilt and the work refreshed into patches/.
	ln -s "$top/patches" "$dest.tmp/patches"
	if ! out=$(cd "$dest.tmp" && QUILTRC=$top/patches/quiltrc quilt push -a 2>&1); then
		echo "$out" | tail -20 >&2
		die "the series does not apply without fuzz"
	fi
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
