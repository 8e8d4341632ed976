#!/bin/bash
# diskdumpctl and SAVECORE_OPTS: the shipped configuration's example, taken
# as an administrator would take it, saves the dump and arms; options that
# savecore refuses are said before any save, left out of it, and cost
# neither the dump nor the arming; "add" refuses them.  The partition is an
# image file with a dump (test_savecore --seed), /proc/diskdump a plain
# file (DISKDUMP_PROC), so no root and no diskdump kernel are needed.
# Prints "ctl: N passed, N failed".
#   make -C tests/unit ctl      or      BIN=DIR bash tests/host/ctl-opts.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/unit}
ctl="sh $top/tools/diskdump/diskdumpctl"
work=$(mktemp -d /tmp/ctl-opts.XXXXXX)
trap 'rm -rf "$work"' EXIT
export PATH=$BIN:$PATH DISKDUMP_PROC=$work/proc DISKDUMP_CONFIG=$work/conf
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # WHAT COMMAND...: COMMAND succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

# fresh OPTS: a partition holding a dump, an empty crash dir, a config in
# the shipped file's form with SAVECORE_OPTS="OPTS"
fresh() {
	rm -rf "$work/crash" "$work/part"* "$work/proc"
	mkdir "$work/crash"
	"$BIN/test_savecore" --seed "$work/seed" >/dev/null || { bad "test_savecore --seed"; exit 1; }
	mv "$work/seed" "$work/part"
	rm -f "$work/seed"-*
	sed -e "s|^DISKDUMP_DEVICES=.*|DISKDUMP_DEVICES=\"$work/part\"|" \
		-e "s|^SAVECORE_DIR=.*|SAVECORE_DIR=$work/crash|" \
		-e "s|^DISKDUMP_WAIT=.*|DISKDUMP_WAIT=0|" \
		-e "s|^SAVECORE_OPTS=.*|SAVECORE_OPTS=\"$1\"|" \
		"$top/tools/diskdump/diskdump.default" >"$work/conf"
	: >"$work/proc"
}

# saved_magic N: the first N bytes of the one saved file (vmcore)
saved_magic() {
	local f
	f=$(find "$work/crash" -name vmcore -type f | head -n1)
	[ -n "$f" ] && head -c "$1" "$f" | od -An -c | tr -d ' '
}
armed() { [ "$(cat "$work/proc")" = "add $work/part" ]; }
state_empty() { savecore -c -q "$work/part" >/dev/null 2>&1; [ $? = 3 ]; }

# 1. The example of the shipped configuration, uncommented.
example=$(sed -n 's/^# More savecore[^,]* options, e\.g\. "\([^"]*\)".*/\1/p' "$top/tools/diskdump/diskdump.default")
[ -n "$example" ] || bad "no example in diskdump.default's SAVECORE_OPTS comment"
fresh "$example"
$ctl start >"$work/out" 2>&1
rc=$?
check "example '$example': start exits 0 (got $rc)" [ $rc = 0 ]
check "example: the dump is saved kdump-compressed" [ "$(saved_magic 8)" = KDUMP ]
check "example: the partition is formatted again" state_empty
check "example: the partition is armed" armed

# 2. Options savecore refuses: said first, left out, dump saved, armed.
for opts in "-F kdump-zstd" "-Z gzip" "--compress=lz4 -F kdump" "-c" "-n 0" "/dev/sdb1" \
	"--frobnicate" "--check-usage" "--check-u" "-v --"; do
	fresh "$opts"
	$ctl start >"$work/out" 2>&1
	rc=$?
	check "'$opts': start exits 1 (got $rc)" [ $rc = 1 ]
	first=$(head -n1 "$work/out")
	check "'$opts': said first: $first" \
		grep -q "^diskdumpctl: SAVECORE_OPTS=\"$opts\" in $work/conf: .*; saving with savecore's defaults$" <<<"$first"
	check "'$opts': the dump is saved as ELF all the same" [ "$(saved_magic 4)" = 177ELF ]
	check "'$opts': formatted again and armed" eval 'state_empty && armed'
done

# 3. arm says so too, and arms; add refuses and changes nothing.
fresh "-F kdump-zstd"
savecore -q "$work/part" "$work/crash" >/dev/null 2>&1	# an empty partition
: >"$work/proc"
$ctl arm >"$work/out" 2>&1
rc=$?
check "arm with bad options: exit 1 (got $rc)" [ $rc = 1 ]
check "arm with bad options: said" grep -q "kdump-zstd.*the save at boot will leave it out" "$work/out"
check "arm with bad options: armed all the same" armed
sed -i "s|^DISKDUMP_DEVICES=.*|DISKDUMP_DEVICES=\"\"|" "$work/conf"
cp "$work/conf" "$work/conf.before"
: >"$work/proc"
$ctl add "$work/part" >"$work/out" 2>&1
rc=$?
check "add with bad options: exit 1 (got $rc)" [ $rc = 1 ]
check "add with bad options: said" grep -q "correct it first" "$work/out"
# before anything else: the image file is no block device, which add
# would say next
check "add with bad options: said before the device is looked at" \
	eval '! grep -q "not a block device" "$work/out"'
check "add with bad options: nothing armed" [ ! -s "$work/proc" ]
check "add with bad options: the configuration unchanged" cmp -s "$work/conf" "$work/conf.before"

echo "ctl: $pass passed, $fail failed"
[ $fail = 0 ]
