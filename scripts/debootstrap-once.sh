# shellcheck shell=bash
# Sourced by trixie-tools.sh and debian-root.sh.
#
# debootstrap_once ROOT SUITE PKGS FILE...: make ROOT with debootstrap
# (minbase, Debian SUITE, with the comma-separated PKGS) unless every FILE
# is an executable in it.  Callers side by side wait for each other under
# ROOT.lock; the root is made in ROOT.tmp first, so a failed run leaves no
# half-made root behind.  The log is ROOT.log.
has_files() { # ROOT FILE...
	local root=$1 f
	shift
	for f in "$@"; do [ -x "$root/$f" ] || return 1; done
}

debootstrap_once() {
	local root=$1 suite=$2 pkgs=$3
	shift 3
	has_files "$root" "$@" && return 0
	mkdir -p "$(dirname "$root")"
	exec 8>"$root.lock"
	flock 8
	has_files "$root" "$@" && { exec 8>&-; return 0; }
	command -v debootstrap >/dev/null || {
		apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
	}
	echo "debootstrap of Debian $suite with $pkgs into $root" >&2
	rm -rf "$root.tmp"
	debootstrap --variant=minbase --include="$pkgs" "$suite" "$root.tmp" \
		"${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$root.log" 2>&1 ||
		{ tail -20 "$root.log" >&2; echo "debootstrap of $root failed" >&2; exit 1; }
	rm -rf "$root"
	mv "$root.tmp" "$root"
	exec 8>&-
}
