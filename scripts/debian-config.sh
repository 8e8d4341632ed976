#!/bin/bash
# The test kernel's base configuration, from Debian's own.
#
#   scripts/debian-config.sh base OUT      Debian 13's amd64 config with its
#                                          modules turned off, to OUT
#   scripts/debian-config.sh diff CONFIG   the built-in options in which a
#                                          finished CONFIG differs from
#                                          Debian's, with the reasons
#                                          configs/debian-test.config gives
#   scripts/debian-config.sh debian OUT    Debian's config as it is
#
# Debian's config comes from the linux-config-6.12 package of the
# configured apt sources (apt-get download; cached in build/debian-config),
# so the test kernel follows Debian's updates.  Every "=m" is turned off:
# the QEMU guests have a handful of devices, and configs/debian-test.config
# turns their drivers back on.  Nothing else of Debian's is changed here;
# scripts/build-kernel.sh merges the fragment and runs olddefconfig.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$top/build/debian-config
frag=$top/configs/debian-test.config
flavour=config.amd64_none_amd64

die() { echo "debian-config: $*" >&2; exit 1; }

# debian_config: the path of Debian's config, downloaded once
debian_config() {
	local deb
	if [ ! -f "$cache/$flavour" ]; then
		mkdir -p "$cache/pkg"
		rm -f "$cache"/pkg/*.deb
		(cd "$cache/pkg" && apt-get download -q linux-config-6.12 >/dev/null 2>&1) ||
			{ apt-get update -q >/dev/null && (cd "$cache/pkg" && apt-get download -q linux-config-6.12 >/dev/null); } ||
			die "cannot download linux-config-6.12"
		deb=$(ls "$cache"/pkg/linux-config-6.12_*.deb | head -n1)
		rm -rf "$cache/pkg/x"
		dpkg-deb -x "$deb" "$cache/pkg/x"
		xz -dc "$cache/pkg/x/usr/src/linux-config-6.12/$flavour.xz" >"$cache/$flavour.tmp"
		basename "$deb" >"$cache/package"
		mv "$cache/$flavour.tmp" "$cache/$flavour"
	fi
	echo "$cache/$flavour"
}

# base OUT: every module off, the rest as Debian has it
base() {
	local cfg
	cfg=$(debian_config)
	sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' "$cfg" >"$1"
}

# reasons: "OPTION<TAB>reason" for each option of the fragment, the reason
# the comment lines above it that start with "# reason:" and go on
reasons() {
	awk '
		/^# reason: / { r = substr($0, 11); inr = 1; next }
		inr && /^# / && !/^# CONFIG_/ { r = r " " substr($0, 3); next }
		/^# CONFIG_.* is not set$/ { o = $2; print o "\t" r; inr = 0; next }
		/^CONFIG_/ { split($0, a, "="); print a[1] "\t" r; inr = 0; next }
		{ inr = 0; r = "" }
	' "$frag"
}

# value CONFIG OPTION: the option's value, or "n"
value() {
	local v
	v=$(grep -m1 "^$2=" "$1" | cut -d= -f2-) || true
	echo "${v:-n}"
}

# diff CONFIG: Debian's built-in options (=y or a value) against CONFIG's.
# Options only Debian's modules needed do not count: they are listed apart.
diff_config() {
	local cfg deb opt dv tv why
	cfg=$1
	deb=$(debian_config)
	echo "Test kernel against Debian's $flavour ($(cat "$cache/package")):"
	printf '%-36s %-14s %-14s %s\n' OPTION DEBIAN TEST REASON
	while IFS=$'\t' read -r opt why; do
		dv=$(value "$deb" "$opt")
		tv=$(value "$cfg" "$opt")
		[ "$dv" = "$tv" ] && continue
		printf '%-36s %-14s %-14s %s\n' "$opt" "$dv" "$tv" "${why:-(diskdump, or a driver of the guests)}"
	done < <(reasons)
	# built-in options of Debian that the test kernel lacks, not from the
	# fragment: they follow from the modules turned off
	comm -23 <(grep -E '^CONFIG_[A-Za-z0-9_]+=[^m]' "$deb" | sort) \
		<(grep -E '^CONFIG_' "$cfg" | sort) | cut -d= -f1 >"$cache/lost.txt"
	grep -vxFf <(reasons | cut -f1) "$cache/lost.txt" >"$cache/lost-other.txt" || true
	local lost builtin_d builtin_t mods_d mods_t
	lost=$(wc -l <"$cache/lost-other.txt")
	builtin_d=$(grep -cE '^CONFIG_[A-Za-z0-9_]+=[^m]' "$deb")
	builtin_t=$(grep -cE '^CONFIG_[A-Za-z0-9_]+=[^m]' "$cfg")
	mods_d=$(grep -c '=m$' "$deb" || true)
	mods_t=$(grep -c '=m$' "$cfg" || true)
	echo "Other built-in options of Debian that only its modules need: $lost (build/debian-config/lost-other.txt)"
	echo "Built-in options: Debian $builtin_d, test kernel $builtin_t; modules: Debian $mods_d, test kernel $mods_t"
}

case ${1:-} in
base)	[ $# = 2 ] || die "usage: debian-config.sh base OUT"; base "$2" ;;
diff)	[ $# = 2 ] || die "usage: debian-config.sh diff CONFIG"; diff_config "$2" ;;
debian)	[ $# = 2 ] || die "usage: debian-config.sh debian OUT"; cp "$(debian_config)" "$2" ;;
*)	die "usage: debian-config.sh base OUT | diff CONFIG | debian OUT" ;;
esac
