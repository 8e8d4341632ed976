#!/bin/bash
# make debs: Debian packages in build/debs.
#   diskdump-tools_VERSION_ARCH.deb  savecore, diskdumpfmt, diskdumpctl, the
#                                    init script, the systemd unit and
#                                    /etc/default/diskdump, from
#                                    tools/diskdump with packaging/debian
#                                    (debhelper)
#   linux-image-*.deb                the patched kernel (bindeb-pkg), with
#                                    KERNEL=1 (after make kernel), and its
#                                    -dbg package unless DEBS_DBG=0
# Then lintian on diskdump-tools: any error or warning fails, except the
# tags listed, each with its reason, in packaging/debian/
# diskdump-tools.lintian-overrides.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/debs
stage=$out/src
rm -rf "$stage"
mkdir -p "$stage"

# The source as git sees it (committed or not, ignored files left out):
# the tools and the one kernel header they build with.
git ls-files -co --exclude-standard tools/diskdump include/uapi/linux/diskdump.h |
	tar -c -T - | tar -x -C "$stage"
# The packaging lives in packaging/debian, out of the kernel series that
# carries tools/diskdump; dh_installinit and dh_installsystemd take the
# script, the unit and the defaults by their debhelper names.
cp -r packaging/debian "$stage/tools/diskdump/debian"
for f in init service default; do
	cp "tools/diskdump/diskdump.$f" "$stage/tools/diskdump/debian/diskdump-tools.diskdump.$f"
done
for f in service timer; do
	cp "tools/diskdump/diskdump-verify.$f" \
		"$stage/tools/diskdump/debian/diskdump-tools.diskdump-verify.$f"
done
(cd "$stage/tools/diskdump" && dpkg-buildpackage -b -us -uc >"$out/tools-build.log" 2>&1) ||
	{ tail -30 "$out/tools-build.log"; echo "debs: diskdump-tools did not build" >&2; exit 1; }
rm -f "$out"/diskdump-tools_*.deb
mv "$stage"/tools/diskdump-tools_*.deb "$out/"
deb=$(ls "$out"/diskdump-tools_*.deb)
echo "debs: $deb"

# lintian: errors and warnings fail; informational tags are shown.
lintian --fail-on error,warning --display-info "$deb" >"$out/lintian.txt" 2>&1 ||
	{ cat "$out/lintian.txt"; echo "debs: lintian found errors or warnings" >&2; exit 1; }
sed 's/^/  lintian: /' "$out/lintian.txt"

if [ "${KERNEL:-0}" = 1 ]; then
	# bindeb-pkg packages what make kernel built; its .debs land in the
	# object tree's parent.
	rm -f build/linux-*.deb
	# no linux-headers package (it would want a cross gcc): the image,
	# and its -dbg package with the vmlinux that crash and drgn need
	# The compiler as make kernel gives it: with another one every object
	# would be rebuilt (one job at a time, as bindeb-pkg runs make -j1).
	cc="gcc"
	if command -v ccache >/dev/null; then cc="ccache gcc"; fi
	# DEBS_DBG=0 leaves out the -dbg package too (the tests boot the
	# image; they read dumps with build/obj/vmlinux).
	profiles=pkg.linux-upstream.nokernelheaders
	[ "${DEBS_DBG:-1}" = 1 ] || profiles=$profiles,pkg.linux-upstream.nokerneldbg
	make -s -C build/src O="$top/build/obj" CC="$cc" HOSTCC="$cc" KDEB_COMPRESS=gzip \
		DPKG_FLAGS=-P$profiles bindeb-pkg >"$out/kernel-build.log" 2>&1 ||
		{ tail -30 "$out/kernel-build.log"; echo "debs: the kernel package did not build" >&2; exit 1; }
	rm -f "$out"/linux-*.deb
	mv build/linux-*.deb "$out/"
	rm -f build/linux-upstream_*.buildinfo build/linux-upstream_*.changes
	ls "$out"/linux-*.deb
fi
