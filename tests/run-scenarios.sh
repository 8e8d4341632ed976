#!/bin/bash
# Run QEMU scenarios: tests/run-scenarios.sh [NAME...] (default: all).
# Each scenario is tests/scenarios/NAME.sh, run in its own shell with
# KERNEL, VMLINUX, INITRD and a fresh WORK directory.  Prints PASS/FAIL per
# scenario and a closing "scenarios: N passed, N failed".
# A scenario that passes keeps its logs but not its disk images and dumps
# (about 1 GiB each); KEEP=1 keeps them.  A failed one keeps everything.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
: "${KERNEL:=$top/build/obj/arch/x86/boot/bzImage}"
: "${VMLINUX:=$top/build/obj/vmlinux}"
: "${INITRD:=$top/build/initramfs.cpio.gz}"
export KERNEL VMLINUX INITRD
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/scenarios/*.sh; do names+=("$(basename "$f" .sh)"); done
fi
pass=0 failed=0 failures=""
for n in "${names[@]}"; do
	f=tests/scenarios/$n.sh
	[ -f "$f" ] || { echo "no scenario $n" >&2; failed=$((failed + 1)); continue; }
	export WORK=$top/build/test/$n
	rm -rf "$WORK"
	mkdir -p "$WORK"
	start=$SECONDS
	echo "--- scenario $n"
	if bash -c "source tests/lib.sh; source $f" 2>&1 | tee "$WORK/result.txt"; then
		echo "PASS $n ($((SECONDS - start))s)"
		pass=$((pass + 1))
		[ "${KEEP:-0}" = 1 ] || find "$WORK" -type f -size +1M -delete
	else
		echo "FAIL $n ($((SECONDS - start))s); logs in $WORK"
		failed=$((failed + 1))
		failures="$failures $n"
	fi
done
[ -z "$failures" ] || echo "failed scenarios:$failures"
echo "scenarios: $pass passed, $failed failed"
[ "$failed" = 0 ]
