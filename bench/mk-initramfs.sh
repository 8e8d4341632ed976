#!/bin/bash
# The bench guest's initramfs: the test initramfs plus kexec, makedumpfile
# (with their shared libraries), rawrate, the bench scenario hooks, and an
# /init that saves the dump with makedumpfile in a kdump capture kernel.
#   bench/mk-initramfs.sh TEST_INITRAMFS OUT
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
in=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
(cd "$root" && gzip -dc "$in" | cpio -id --quiet)
mv "$root/init" "$root/init.test"
install -m 0755 "$top/bench/guest/init" "$root/init"
cp "$top"/bench/guest/bench-*.boot[12] "$root/scen/"
gcc -std=c11 -O2 -Wall -Wextra -Werror -static -o "$root/bin/rawrate" "$top/bench/guest/rawrate.c"
for b in /usr/sbin/kexec /usr/bin/makedumpfile; do
	mkdir -p "$root$(dirname "$b")"
	cp "$b" "$root$b"
	for lib in $(ldd "$b" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
