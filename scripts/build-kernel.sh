#!/bin/bash
# Configure and build the patched kernel out of tree.
#
#   scripts/build-kernel.sh [--base CONFIG] SRCDIR OBJDIR FRAGMENT...
#
# The config is CONFIG (the test kernel's: Debian's, from
# scripts/debian-config.sh), or tinyconfig without --base, plus the
# fragments; it is regenerated only when the base or a fragment changed,
# and every option the fragments set must survive
# olddefconfig, or the build stops (a silently dropped CONFIG_DISKDUMP would
# make every later test meaningless).
set -euo pipefail
base=""
if [ "${1:-}" = --base ]; then
	base=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	shift 2
fi
src=$(cd "${1:?SRCDIR}" && pwd)
obj=${2:?OBJDIR}
shift 2
mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
frags=()
for f in "$@"; do frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done

cc="gcc"
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	# a clone in another directory (CI's) hits the same cache: paths
	# under the repository are hashed as relative ones
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "$0")/.." && pwd)} CCACHE_NOHASHDIR=1
	# a tree laid anew has every file's ctime new, the patched ones'
	# mtime too: without this, the direct mode misses them all and the
	# preprocessor runs for every object
	export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}include_file_ctime,include_file_mtime
	# the test kernel's first build fills about 2 GiB
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
fi
jobs=$(nproc)
kmake() { make -s -C "$src" O="$obj" CC="$cc" HOSTCC="$cc" -j"$jobs" "$@"; }

series=()
[ -f "$src/.diskdump-series" ] && series=("$src/.diskdump-series")
want=$(cat "${frags[@]}" "${series[@]}" ${base:+"$base"} | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ]; then
	if [ -n "$base" ]; then
		cp "$base" "$obj/.config"
	else
		kmake tinyconfig >/dev/null
	fi
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null)
	kmake olddefconfig >/dev/null
	bad=0
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=n) opt=${line%%=*}
				if grep -q "^$opt=" "$obj/.config"; then echo "config: $opt is set, wanted off" >&2; bad=1; fi ;;
			CONFIG_*=*) grep -qx "$line" "$obj/.config" || { echo "config: $line did not stick" >&2; bad=1; } ;;
			"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}
				if grep -q "^$opt=" "$obj/.config"; then echo "config: $opt is set, wanted off" >&2; bad=1; fi ;;
			esac
		done <"$f"
	done
	[ "$bad" = 0 ] || { echo "build-kernel: the config fragment did not apply" >&2; exit 1; }
	echo "$want" >"$obj/.fragments"
fi
# Debian's kernel is zstd-compressed, and a missing zstd would leave a
# bzImage without its kernel that only fails at boot
if grep -q '^CONFIG_KERNEL_ZSTD=y' "$obj/.config" && ! command -v zstd >/dev/null; then
	echo "build-kernel: CONFIG_KERNEL_ZSTD needs zstd (apt-get install zstd)" >&2
	exit 1
fi
kmake bzImage
kmake modules
# the modules, stripped, as the guests' initramfs takes them
rm -rf "$obj/modroot"
kmake modules_install INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 >/dev/null
