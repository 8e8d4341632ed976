#!/bin/bash
# Build the test guest's initramfs: busybox, the diskdump tools (static),
# the init script, the test helpers and the scenarios' guest hooks.
#   scripts/mk-initramfs.sh OUT.cpio.gz
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
[ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' ||
	{ echo "mk-initramfs: needs busybox-static" >&2; exit 1; }
mkdir -p "$root"/{bin,sbin,etc/init.d,etc/default,proc,sys,dev,scen,tmp,var/crash}
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cc="gcc -std=c11 -O2 -Wall -Wextra -Werror -static -D_FILE_OFFSET_BITS=64 -I$top/include/uapi"
# savecore and diskdumpfmt, static, from the tools' own Makefile
tools=$top/build/static-tools
mkdir -p "$tools"
make -s -C "$top/tools/diskdump" O="$tools" STATIC=1 all 2> >(grep -v "statically linked applications\|in function" >&2)
install -m 0755 "$tools/savecore" "$tools/diskdumpfmt" "$root/sbin/"
$cc -o "$root/bin/ddpattern" "$top/tests/guest/ddpattern.c"
install -m 0755 "$top/tools/diskdump/diskdump.init" "$root/etc/init.d/diskdump"
install -m 0755 "$top/tools/diskdump/diskdumpctl" "$root/sbin/diskdumpctl"
install -m 0755 "$top/tests/guest/init" "$root/init"
install -m 0755 "$top/tests/guest/sd-order" "$root/bin/sd-order"
install -m 0755 "$top/tests/guest/load-modules" "$root/bin/load-modules"
# the kernel's modules (scripts/build-kernel.sh installs them in the
# object tree): without them the NVMe scenarios find no NVMe disk
mods=${KOBJ:-$top/build/obj}/modroot/lib/modules
if [ -d "$mods" ]; then
	mkdir -p "$root/lib"
	cp -a "$mods" "$root/lib/"
else
	echo "mk-initramfs: no kernel modules in $mods: build the kernel first (make kernel)" >&2
	exit 1
fi
# /scen/NAME.bootN: the guest side of scenario NAME (ddtest=NAME), from
# tests/scenarios/NAME/bootN; the hooks several scenarios share, from
# tests/guest/hooks.
install -m 0755 "$top"/tests/guest/hooks/*.boot[123] "$root/scen/"
for f in "$top"/tests/scenarios/*/boot[123]; do
	n=$(basename "$(dirname "$f")")
	[ ! -e "$root/scen/$n.${f##*/}" ] ||
		{ echo "mk-initramfs: $n.${f##*/}: a scenario and a shared hook of one name" >&2; exit 1; }
	install -m 0755 "$f" "$root/scen/$n.${f##*/}"
done
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
