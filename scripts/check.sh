#!/bin/bash
# make check: build everything, run the unit tests, lint and every QEMU
# scenario, then print one line "N passed, N failed" over all of them.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=build/check
mkdir -p "$log"
start=$SECONDS
step() { echo "=== $* ($((SECONDS - start))s)"; }
count() { # FILE PREFIX: add the "PREFIX: N passed, N failed" of FILE
	local line
	line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed" "$1" | tail -1)
	if [ -z "$line" ]; then
		echo "check: $2 printed no summary; counting it as one failure"
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
	failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}
passed=0 failed=0

# The kernel tree, its objects (2.7 GiB with Debian's configuration), the
# readers' chroot and one scenario's images at a time take about 8 GiB;
# say so at once rather than fail half-way through with "No space left on
# device".
need=10
free=$(df --output=avail -BG build | tail -1 | tr -dc 0-9)
if [ "$free" -lt "$need" ] && [ ! -d build/obj ]; then
	echo "check: $free GiB free where build/ lives; make check needs about $need GiB"
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
fi

# The readers' chroot and the Debian 12 and 13 roots are mostly download
# and unpack: make them while the kernel builds.
scripts/trixie-tools.sh >"$log/readers.txt" 2>&1 &
readers=$!
{ scripts/debian-root.sh && DEBIAN_SUITE=trixie scripts/debian-root.sh; } >"$log/debian-root.txt" 2>&1 &
debian_root=$!

step "kernel"
t=$SECONDS
if ! make -s kernel >"$log/kernel.txt" 2>&1; then
	tail -40 "$log/kernel.txt"
	echo "check: the kernel does not build"
	kill $readers $debian_root 2>/dev/null
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
fi
echo "kernel built in $((SECONDS - t))s"
step "tools and initramfs"
make -s tools initramfs >"$log/tools.txt" 2>&1 || { cat "$log/tools.txt"; failed=$((failed + 1)); }

step "unit tests"
make -s unit 2>&1 | tee "$log/unit.txt"
count "$log/unit.txt" unit

step "fuzz (savecore's dump parser, bounded)"
make -s -C tests/unit fuzz 2>&1 | tee "$log/fuzz.txt" | tail -3
count "$log/fuzz.txt" fuzz

step "diskdumpfmt on real signatures (host images, loop devices)"
make -s -C tests/unit host 2>&1 | tee "$log/host.txt" | grep -vE '^ok '
count "$log/host.txt" host

step "diskdumpctl and SAVECORE_OPTS (the shipped configuration)"
make -s -C tests/unit ctl 2>&1 | tee "$log/ctl.txt" | grep -vE '^ok '
count "$log/ctl.txt" ctl

step "Debian package (debhelper, lintian, dpkg on Debian 12)"
wait $debian_root || cat "$log/debian-root.txt"
tests/debs-check.sh 2>&1 | tee "$log/debs.txt" | grep -v '^ok - '
count "$log/debs.txt" debs

step "lint"
# The build of the series after each patch (make lint, make series-check)
# costs a kernel build and a half; make check leaves it out to stay within
# CI's time.  checkpatch of every series patch stays in.
LINT_SERIES_BUILD=${LINT_SERIES_BUILD:-0} scripts/lint.sh build/src build/obj 2>&1 | tee "$log/lint.txt" | grep -v '^ok - '
count "$log/lint.txt" lint

step "Debian 13's dump readers (debootstrap once, cached in build/)"
if ! wait $readers; then
	cat "$log/readers.txt"
	echo "check: no Debian 13 readers chroot; the scenarios that read dumps will fail"
fi

step "scenarios"
tests/run-scenarios.sh 2>&1 | tee "$log/scenarios.txt" | grep -E '^(---|PASS|FAIL|  - |scenarios:)'
count "$log/scenarios.txt" scenarios

step "done"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
