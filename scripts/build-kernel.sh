#!/bin/bash
# Configure and build the patched kernel out of tree.
#
#   scripts/build-kernel.sh SRCDIR OBJDIR FRAGMENT...
#
# The config is tinyconfig plus the fragments; it is regenerated only when a
# fragment changed, and every option the fragments set must survive
# olddefconfig, or the build stops (a silently dropped CONFIG_DISKDUMP would
# make every later test meaningless).
set -euo pipefail
src=$(cd "${1:?SRCDIR}" && pwd)
obj=${2:?OBJDIR}
shift 2
mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
frags=()
for f in "$@"; do frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done

cc="gcc"
if command -v ccache >/dev/null; then cc="ccache gcc"; fi
jobs=$(nproc)
kmake() { make -s -C "$src" O="$obj" CC="$cc" HOSTCC="$cc" -j"$jobs" "$@"; }

series=()
[ -f "$src/.diskdump-series" ] && series=("$src/.diskdump-series")
want=$(cat "${frags[@]}" "${series[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ]; then
	kmake tinyconfig >/dev/null
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
kmake bzImage
kmake modules
# the modules, stripped, as the guests' initramfs takes them
rm -rf "$obj/modroot"
kmake modules_install INSTALL_MOD_PATH="$obj/modroot" INSTALL_MOD_STRIP=1 >/dev/null
