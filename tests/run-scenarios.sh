#!/bin/bash
# Run QEMU scenarios: tests/run-scenarios.sh [NAME...] (default: all).
# Each scenario is the directory tests/scenarios/NAME: run.sh, run in its
# own shell with
# KERNEL, VMLINUX, INITRD and a fresh WORK directory.  Prints PASS/FAIL per
# scenario and a closing "scenarios: N passed, N failed".
# A scenario that passes keeps its logs but not its disk images and dumps
# (about 1 GiB each); KEEP=1 keeps them.  A failed one keeps everything.
#
# SCENARIO_JOBS scenarios run at once (default: the number of CPUs, at most
# 2).  A single-CPU TCG guest keeps one host CPU busy, and a scenario spends
# much of its time in one guest, so two at a time nearly halve the run on
# two cores.  Every scenario keeps its files, sockets and QEMU in its own
# WORK, and prints its lines in one block when it ends.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
: "${KERNEL:=$top/build/obj/arch/x86/boot/bzImage}"
: "${VMLINUX:=$top/build/obj/vmlinux}"
: "${INITRD:=$top/build/initramfs.cpio.gz}"
export KERNEL VMLINUX INITRD
jobs=${SCENARIO_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
[ -n "${SCENARIO_JOBS:-}" ] || [ "$jobs" -le 2 ] || jobs=2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/scenarios/*/run.sh; do names+=("$(basename "$(dirname "$f")")"); done
fi
status=$top/build/test/.status
rm -rf "$status"
mkdir -p "$status"

# run_one NAME: run a scenario, then print its block under a lock and
# leave PASS or FAIL in $status/NAME.
run_one() {
	local n=$1 start=$SECONDS work=$top/build/test/$1 r ok=0 aborted=""
	rm -rf "$work" "$work.qemu-abort"
	mkdir -p "$work"
	WORK=$work bash -c "source tests/lib.sh; source tests/scenarios/$n/run.sh" >"$work/result.txt" 2>&1 && ok=1
	# QEMU itself aborting (SIGABRT: an assertion in its device model, as
	# QEMU 7.2's AHCI behind its vIOMMU once did) is not the guest's
	# failure: the scenario runs once more, and the output says why, with
	# the first run's logs kept in NAME.qemu-abort.
	if [ "$ok" = 0 ] && grep -q "^FAIL: qemu exit 134 " "$work/result.txt"; then
		aborted=$(grep -m1 "Assertion" "$work/result.txt" || true)
		mv "$work" "$work.qemu-abort"
		mkdir -p "$work"
		WORK=$work bash -c "source tests/lib.sh; source tests/scenarios/$n/run.sh" >"$work/result.txt" 2>&1 && ok=1
		echo "  - run again after QEMU aborted (${aborted:-SIGABRT}); the first run's logs in $work.qemu-abort" >>"$work/result.txt"
	fi
	if [ "$ok" = 1 ]; then
		r="PASS $n ($((SECONDS - start))s)"
		[ "${KEEP:-0}" = 1 ] || find "$work" -type f -size +1M -delete
	else
		r="FAIL $n ($((SECONDS - start))s); logs in $work"
	fi
	{
		flock 9
		echo "--- scenario $n"
		cat "$work/result.txt"
		echo "$r"
	} 9>"$status/.lock"
	echo "${r%% *}" >"$status/$n"
}

running=0
for n in "${names[@]}"; do
	if [ ! -f "tests/scenarios/$n/run.sh" ]; then
		echo "no scenario $n" >&2
		echo FAIL >"$status/$n"
		continue
	fi
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$n" &
	running=$((running + 1))
done
wait

pass=0 failed=0 failures=""
for n in "${names[@]}"; do
	if [ "$(cat "$status/$n" 2>/dev/null)" = PASS ]; then
		pass=$((pass + 1))
	else
		failed=$((failed + 1))
		failures="$failures $n"
	fi
done
[ -z "$failures" ] || echo "failed scenarios:$failures"
echo "scenarios: $pass passed, $failed failed"
[ "$failed" = 0 ]
