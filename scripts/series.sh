#!/bin/bash
# The kernel patch series: patches/ is a quilt series and the one source of
# every change to an existing kernel file; the project's new kernel files
# live at their in-tree paths and patches/files says which patch adds each.
#
#   scripts/series.sh quilt DIR        a full pristine tree in DIR with the
#                                      series pushed by quilt, patches/ linked
#                                      in: edit there with quilt, then refresh
#   scripts/series.sh check            patches/ is exactly what quilt refresh
#                                      writes, patches/files is complete, and
#                                      the mailed series gives the same tree
#   scripts/series.sh mail OUTDIR [--build]
#                                      the mailed series: one git commit per
#                                      patch (the patch, its new files, its
#                                      header as the message), format-patch
#                                      with patches/cover-letter; --build
#                                      builds the kernel after each commit
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
export QUILTRC=$top/patches/quiltrc
work=$top/build/series

die() { echo "series: $*" >&2; exit 1; }
patches() { grep -v '^#' "$top/patches/series"; }
touched_by() { grep -E '^\+\+\+ b/' "$top/patches/$1" | sed 's|^+++ b/||; s|\t.*||'; }
all_touched() { for p in $(patches); do touched_by "$p"; done | sort -u; }
overlay() { (cd "$top" && git ls-files drivers include kernel Documentation tools/diskdump); }

# files_of PATCH: the new files patches/files gives PATCH, directories
# expanded to the files git tracks under them.
files_of() {
	local entry
	for entry in $(sed -n "s|^$1:||p" "$top/patches/files"); do
		case "$entry" in
		*/) (cd "$top" && git ls-files "$entry") ;;
		*) echo "$entry" ;;
		esac
	done
}

# pristine DIR [all]: the files the series touches (or the whole tree).
# The touched files are taken from the tarball once per list of files.
pristine() {
	local cache=$work/pristine key
	rm -rf "$1" && mkdir -p "$1"
	if [ "${2:-}" = all ]; then
		tar -xf "$tarball" -C "$1" --strip-components=1
		return
	fi
	key=$( { stat -c '%s %Y' "$tarball"; all_touched; } | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$cache.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$cache" && mkdir -p "$cache"
		# shellcheck disable=SC2046
		tar -xf "$tarball" -C "$cache" --strip-components=1 \
			$(all_touched | sed 's|^|linux-source-6.12/|')
		echo "$key" >"$cache.key"
	fi
	cp -a "$cache/." "$1/"
}

# copy_new DIR PATCH: PATCH's new files into the tree DIR.
copy_new() {
	local f
	for f in $(files_of "$2"); do
		[ -f "$top/$f" ] || die "patches/files names $f, which does not exist"
		mkdir -p "$(dirname "$1/$f")"
		cp "$top/$f" "$1/$f"
	done
}

cmd_quilt() {
	local dir=${1:?usage: series.sh quilt DIR}
	[ ! -e "$dir" ] || die "$dir exists; remove it first"
	pristine "$dir" all
	ln -s "$top/patches" "$dir/patches"
	(cd "$dir" && quilt push -a -q >/dev/null)
	echo "series: $dir has the series pushed; the new files are in $top"
}

check_refresh() {
	local dir=$work/refresh bad=0 p
	pristine "$dir"
	mkdir "$dir/patches"
	cp "$top/patches/series" "$top"/patches/*.patch "$dir/patches/"
	while (cd "$dir" && quilt next >/dev/null 2>&1); do
		(cd "$dir" && quilt push -q >/dev/null && quilt refresh >/dev/null) ||
			die "quilt cannot push or refresh $(cd "$dir" && quilt next)"
	done
	for p in $(patches); do
		if ! cmp -s "$top/patches/$p" "$dir/patches/$p"; then
			diff -u "$top/patches/$p" "$dir/patches/$p" | head -20 >&2
			echo "series: patches/$p is not as quilt refresh writes it" >&2
			bad=1
		fi
	done
	return $bad
}

check_files() {
	local bad=0 f p
	declare -A owner=()
	for p in $(sed -n 's|^\([^#][^:]*\):.*|\1|p' "$top/patches/files" | sort -u); do
		patches | grep -qx "$p" || { echo "series: patches/files names $p, not in the series" >&2; bad=1; }
	done
	for p in $(patches); do
		grep -q "^$p:" "$top/patches/files" || { echo "series: $p has no line in patches/files" >&2; bad=1; }
		for f in $(files_of "$p"); do
			[ -f "$top/$f" ] || { echo "series: patches/files names $f, which does not exist" >&2; bad=1; }
			[ -z "${owner[$f]:-}" ] || { echo "series: $f is in $p and ${owner[$f]}" >&2; bad=1; }
			owner[$f]=$p
		done
	done
	for f in $(overlay); do
		[ -n "${owner[$f]:-}" ] || { echo "series: $f is in no patch (patches/files)" >&2; bad=1; }
	done
	return $bad
}

# The quilt tree plus every new file must be what the mailed series gives.
check_mail() {
	local q=$work/refresh m=$work/mailed p f
	for p in $(patches); do copy_new "$q" "$p"; done
	rm -rf "$q/.pc" "$q/patches"
	cmd_mail "$work/out" >/dev/null
	pristine "$m"
	for p in "$work"/out/0*.patch; do
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		patch -d "$m" -p1 --fuzz=0 -s --no-backup-if-mismatch <"$p" || die "$(basename "$p") does not apply"
	done
	diff -r "$q" "$m" >&2 || die "the mailed series and quilt+patches/files give different trees"
}

cmd_check() {
	local bad=0
	check_files || bad=1
	check_refresh || bad=1
	[ "$bad" = 0 ] || return 1
	check_mail
	echo "series: $(patches | wc -l) patches refresh unchanged, patches/files covers $(overlay | wc -l) files, the mailed series matches"
}

cmd_mail() {
	local out=${1:?usage: series.sh mail OUTDIR [--build]} build=${2:-} repo=$work/repo p nr
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	pristine "$repo"
	git -C "$repo" init -q
	export GIT_AUTHOR_NAME="diskdump developers" GIT_AUTHOR_EMAIL="diskdump@lists.example.org"
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	export GIT_AUTHOR_DATE="2026-12-03T12:00:00Z" GIT_COMMITTER_DATE="2026-12-03T12:00:00Z"
	git -C "$repo" add -A
	git -C "$repo" commit -qm "pristine linux-source-6.12 files touched by the series"
	git -C "$repo" tag base
	git -C "$repo" checkout -q -b diskdump
	git -C "$repo" config branch.diskdump.description "$(cat "$top/patches/cover-letter")"
	for p in $(patches); do
		patch -d "$repo" -p1 --fuzz=0 -s --no-backup-if-mismatch <"$top/patches/$p" ||
			die "$p does not apply"
		copy_new "$repo" "$p"
		git -C "$repo" add -A
		# The patch header, less its From: line and the --- that ends it.
		sed -n '/^Subject: /,/^---$/p' "$top/patches/$p" | sed '$d' |
			sed '1s/^Subject: \[PATCH\] //' | git -C "$repo" commit -q -F -
	done
	rm -f "$out"/*.patch
	git -C "$repo" format-patch -q --cover-letter --cover-from-description=subject \
		--base=base --thread=shallow -o "$out" base..diskdump
	nr=$(git -C "$repo" rev-list --count base..diskdump)
	echo "series: $nr patches and a cover letter in $out"
	[ "$build" = --build ] || return 0
	build_each "$out"
}

# Build after each patch: a pristine tree, the patches applied one by one,
# an incremental build each time, configured like the test kernel (options
# that do not exist yet are dropped by olddefconfig).
build_each() {
	local out=$1 src=$work/src obj=$work/obj config=$top/build/obj/.config cc=gcc fails=0 p name start
	[ -f "$config" ] || die "build the test kernel first (make kernel): its .config is the template"
	pristine "$src" all
	mkdir -p "$obj"
	command -v ccache >/dev/null && cc="ccache gcc"
	kmake() { make -s -C "$src" O="$obj" CC="$cc" HOSTCC="$cc" -j"$(nproc)" "$@"; }
	for p in "$out"/00[0-9][1-9]-*.patch "$out"/00[1-9][0-9]-*.patch; do
		[ -f "$p" ] || continue
		name=$(basename "$p")
		start=$SECONDS
		if ! patch -d "$src" -p1 --fuzz=0 -s --no-backup-if-mismatch <"$p"; then
			echo "not ok - $name does not apply"; fails=$((fails + 1)); break
		fi
		cp "$config" "$obj/.config"
		if ! kmake olddefconfig >/dev/null 2>&1 || ! kmake vmlinux >"$work/build.log" 2>&1; then
			tail -20 "$work/build.log"
			echo "not ok - kernel build after $name"; fails=$((fails + 1)); continue
		fi
		if [ -d "$src/tools/diskdump" ] && ! make -s -C "$src/tools/diskdump" >"$work/tools.log" 2>&1; then
			tail -20 "$work/tools.log"
			echo "not ok - tools/diskdump build after $name"; fails=$((fails + 1)); continue
		fi
		echo "  builds after $name ($((SECONDS - start))s; $(grep -c '^CONFIG_.*DUMP.*=y' "$obj/.config") *DUMP* options on)"
	done
	[ "$fails" = 0 ]
}

mkdir -p "$work"
case "${1:-}" in
quilt) shift; cmd_quilt "$@" ;;
check) shift; cmd_check "$@" ;;
mail) shift; cmd_mail "$@" ;;
*) die "usage: series.sh quilt DIR | check | mail OUTDIR [--build]" ;;
esac
