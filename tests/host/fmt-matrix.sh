#!/bin/bash
# diskdumpfmt and savecore -c against what is really found on disks: a
# GPT, an MBR, an LVM PV, an md member, ext4, XFS, btrfs, vfat, NTFS, swap
# and LUKS, made by their own tools on image files; a loop disk whose
# partition is mounted; a loop device whose page cache is stale.  Root only
# (losetup, mount).  The tools come from $BIN (default: build/unit, the
# sanitizer build).
#   make -C tests/unit host      or      BIN=DIR bash tests/host/fmt-matrix.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$top/build/unit}
fmt=$BIN/diskdumpfmt
sc=$BIN/savecore
export LVM_SUPPRESS_FD_WARNINGS=1
work=$(mktemp -d /tmp/fmt-matrix.XXXXXX)
loops=()
mounts=()
swaps=()
pass=0
fail=0

cleanup() {
	local x
	for x in "${swaps[@]}"; do swapoff "$x" 2>/dev/null || true; done
	for x in "${mounts[@]}"; do umount "$x" 2>/dev/null || true; done
	for x in "${loops[@]}"; do
		partx -d "$x" 2>/dev/null || true
		losetup -d "$x" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

# img NAME MIB: an empty (sparse, zero) image file of MIB MiB
img() {
	rm -f "$work/$1"
	truncate -s "$2M" "$work/$1"
}

# attach [-P] FILE: a loop device for FILE in $LOOP, detached at the end
attach() {
	LOOP=$(losetup -f --show "$@")
	loops+=("$LOOP")
}

# run_tool OUTVAR CMD...: CMD's output (both streams) into OUTVAR, exit into rc
run_tool() {
	local -n _out=$1
	shift
	rc=0
	_out=$("$@" 2>&1) || rc=$?
}

# blkid_type FILE: what blkid -p calls it (TYPE, else PTTYPE)
blkid_type() {
	local t
	t=$(blkid -p -o value -s TYPE "$1" 2>/dev/null || true)
	[ -n "$t" ] || t=$(blkid -p -o value -s PTTYPE "$1" 2>/dev/null || true)
	echo "$t"
}

# md_member FILE: an md v1.2 superblock at 4 KiB, sb_csum as the kernel's
# calc_sb_1_csum() computes it (this host has no md driver for mdadm --create)
md_member() {
	python3 - "$1" <<'EOF'
import struct, sys
path = sys.argv[1]
with open(path, 'rb') as f:
    f.seek(0, 2)
    sectors = f.tell() >> 9
max_dev = 2
sb = bytearray(256 + 2 * max_dev)
struct.pack_into('<IIII', sb, 0, 0xa92b4efc, 1, 0, 0)    # magic, major, features
sb[16:32] = bytes(range(1, 17))                           # set_uuid
sb[32:36] = b'dd:0'                                       # set_name
# ctime, level 1, layout, size, chunksize, raid_disks, bitmap_offset
struct.pack_into('<QiiQIII', sb, 64, 1700000000, 1, 0, sectors - 2048, 0, 2, 0)
# data_offset, data_size, super_offset (sectors), recovery_offset, dev_number
struct.pack_into('<QQQQII', sb, 128, 2048, sectors - 2048, 8, 0, 0, 0)
sb[168:184] = bytes(range(17, 33))                        # device_uuid
struct.pack_into('<QQQ', sb, 192, 1700000000, 1, (1 << 64) - 1)  # utime, events, resync
struct.pack_into('<I', sb, 220, max_dev)
struct.pack_into('<HH', sb, 256, 0, 1)                    # dev_roles
csum = sum(struct.unpack_from('<%dI' % (len(sb) // 4), sb))
csum = (csum & 0xffffffff) + (csum >> 32)
struct.pack_into('<I', sb, 216, csum & 0xffffffff)
with open(path, 'r+b') as f:
    f.seek(4096)
    f.write(sb)
EOF
}

# make_sig NAME: an image holding NAME, made by NAME's own tool
make_sig() {
	local f=$work/$1.img
	case $1 in
	gpt) img gpt.img 32; sgdisk -n 1:2048:+8M "$f" >/dev/null ;;
	dos) img dos.img 32; printf 'label: dos\n,8M,83\n' | sfdisk -q "$f" ;;
	LVM2_member)
		img LVM2_member.img 32
		attach "$f"
		pvcreate -q -y "$LOOP" >/dev/null
		losetup -d "$LOOP" ;;
	linux_raid_member) img linux_raid_member.img 32; md_member "$f" ;;
	ext4) img ext4.img 32; mkfs.ext4 -q -F "$f" ;;
	xfs) img xfs.img 64; TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f "$f" ;;
	btrfs) img btrfs.img 64; mkfs.btrfs -q -f -M "$f" >/dev/null ;;
	vfat) img vfat.img 32; mkfs.vfat "$f" >/dev/null ;;
	ntfs) img ntfs.img 32; mkntfs -F -Q -q "$f" >/dev/null 2>&1 ;;
	swap) img swap.img 32; mkswap "$f" >/dev/null 2>&1 ;;
	crypto_LUKS)
		img crypto_LUKS.img 32
		printf 'not a secret' >"$work/key"
		cryptsetup luksFormat --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
			--key-file "$work/key" "$f" ;;
	esac
}

# refuses NAME WHAT: diskdumpfmt, plain and -n, refuses NAME.img, says it
# holds WHAT, and leaves every byte as it was
refuses() {
	local f=$work/$1.img sum out opt
	sum=$(sha256sum <"$f")
	for opt in -q -n; do
		run_tool out "$fmt" "$opt" "$f"
		if [ "$rc" != 1 ]; then
			bad "$1: diskdumpfmt $opt exited $rc, wanted 1: $out"
			return
		fi
		case $out in
		*"holds "*"$2"*"refusing (use -f"*) ;;
		*) bad "$1: diskdumpfmt $opt did not name $2: $out"; return ;;
		esac
	done
	if [ "$(sha256sum <"$f")" != "$sum" ]; then
		bad "$1: diskdumpfmt changed the image"
		return
	fi
	ok "$1: refused, '$2' named, the image byte for byte as it was"
}

signature_matrix() {
	local t what
	for t in gpt dos LVM2_member linux_raid_member ext4 xfs btrfs vfat ntfs swap crypto_LUKS; do
		make_sig "$t"
		if [ "$(blkid_type "$work/$t.img")" != "$t" ]; then
			bad "$t: blkid -p does not see $t on the image made for it: '$(blkid_type "$work/$t.img")'"
			continue
		fi
		case $t in
		gpt | dos) what="a $t partition table" ;;
		*) what="$t (" ;;
		esac
		refuses "$t" "$what"
	done
	if command -v mdadm >/dev/null; then
		mdadm --examine "$work/linux_raid_member.img" 2>/dev/null | grep -q 'Checksum : .* - correct' &&
			ok "md: mdadm --examine finds the crafted superblock's checksum correct" ||
			bad "md: mdadm --examine does not take the crafted superblock"
	fi
}

# An md superblock written over a formatted partition: block 0 still says
# formatted, the signature in block 1 must still stop diskdumpfmt.
md_over_format() {
	img mdfmt.img 32
	"$fmt" -q "$work/mdfmt.img"
	md_member "$work/mdfmt.img"
	refuses mdfmt "linux_raid_member ("
}

force_and_dry_run() {
	local f=$work/ext4.img sum out
	run_tool out "$fmt" -q -f "$f"
	[ "$rc" = 0 ] && ok "-f formats the ext4 image" || bad "-f on ext4: exit $rc: $out"
	run_tool out "$sc" -c "$f"
	[ "$rc" = 3 ] && [[ $out == *"state: empty"* ]] &&
		ok "after -f: savecore -c says empty (exit 3)" || bad "after -f: savecore -c exit $rc: $out"
	sum=$(sha256sum <"$f")
	run_tool out "$fmt" -n "$f"
	[ "$rc" = 0 ] && [[ $out == *"would write 8192 blocks"* ]] &&
		[ "$(sha256sum <"$f")" = "$sum" ] &&
		ok "-n on a formatted image: says what it would write, writes nothing" ||
		bad "-n on a formatted image: exit $rc, $out"
	sum=$(sha256sum <"$work/swap.img")
	run_tool out "$fmt" -n -f "$work/swap.img"
	[ "$rc" = 0 ] && [[ $out == *"swap (other)"*"would be overwritten"* ]] &&
		[ "$(sha256sum <"$work/swap.img")" = "$sum" ] &&
		ok "-n -f on swap: names it, writes nothing" || bad "-n -f on swap: exit $rc, $out"
}

# savecore -c on an image: exit status and state line
check_state() { # FILE RC STATE [TEXT] DESCRIPTION
	local out
	run_tool out "$sc" -c "$1"
	if [ "$rc" = "$2" ] && [[ $out == *"state: $3"* ]] && [[ $out == *"$4"* ]]; then
		ok "$5"
	else
		bad "$5: savecore -c exit $rc (wanted $2, state: $3, '$4'): $out"
	fi
}

empty_then_one_sector() {
	local f=$work/zero.img out
	img zero.img 32
	run_tool out "$fmt" -q "$f"
	[ "$rc" = 0 ] && ok "a zeroed image is formatted" || bad "zeroed image: exit $rc: $out"
	check_state "$f" 3 empty "" "formatted: savecore -c says empty (exit 3)"
	head -c 512 /dev/urandom | dd of="$f" bs=512 seek=$((1234 * 8 + 5)) conv=notrunc status=none
	check_state "$f" 6 damaged "block 1234 " "one sector of block 1234 overwritten: damaged (exit 6), block named"
	run_tool out "$sc" -q "$f" "$work/crash"
	[ "$rc" = 3 ] && ok "savecore at boot looks at block 0 only: exit 3" ||
		bad "savecore DEV DIR on the damaged image: exit $rc"
}

# A loop disk with a GPT; its partition ext4 and mounted.
mounted_partition() {
	local l out p
	img disk.img 64
	sgdisk -n 1:2048:+32M "$work/disk.img" >/dev/null
	attach -P "$work/disk.img"
	l=$LOOP
	p=${l}p1
	# a kernel without the GPT parser: partx adds it from user space
	[ -b "$p" ] || partx -a "$l"
	for _ in 1 2 3 4 5; do [ -b "$p" ] && break; sleep 0.2; done
	mkfs.ext4 -q -F "$p"
	mkdir -p "$work/mnt"
	mount "$p" "$work/mnt"
	mounts+=("$work/mnt")
	for args in "$l" "-f $l" "$p" "-f $p"; do
		# shellcheck disable=SC2086
		run_tool out "$fmt" $args
		[ "$rc" = 1 ] && [[ $out == *"is in use"* ]] &&
			ok "mounted: diskdumpfmt $args refused: in use" ||
			bad "mounted: diskdumpfmt $args: exit $rc: $out"
	done
	umount "$work/mnt"
	run_tool out "$fmt" "$l"
	[ "$rc" = 1 ] && [[ $out == *"a gpt partition table"*"partitions the kernel knows of"* ||
		$out == *"partitions the kernel knows of"*"a gpt partition table"* ]] &&
		ok "unmounted: the whole disk refused: a gpt table, partitions" ||
		bad "unmounted whole disk: exit $rc: $out"
	run_tool out "$fmt" "$p"
	[ "$rc" = 1 ] && [[ $out == *"ext4 (filesystem)"* ]] &&
		ok "unmounted: its partition refused: ext4" || bad "unmounted partition: exit $rc: $out"
	[ "$(blkid_type "$p")" = ext4 ] && ok "the partition is still ext4" ||
		bad "the partition lost its ext4"
}

active_swap() {
	local l out
	img aswap.img 32
	attach "$work/aswap.img"
	l=$LOOP
	mkswap "$l" >/dev/null 2>&1
	if ! swapon "$l" 2>/dev/null; then
		echo "# skip: swapon refused here"
		return
	fi
	swaps+=("$l")
	run_tool out "$fmt" -f "$l"
	[ "$rc" = 1 ] && [[ $out == *"is in use"* ]] && ok "active swap: refused even with -f" ||
		bad "active swap: exit $rc: $out"
	swapoff "$l"
}

# While something holds a loop device open, its page cache keeps the blocks
# read through it, even when the backing file changes underneath: a
# buffered reader is told the old contents.  savecore -c must read the disk.
stale_cache() {
	local f=$work/stale.img l out hold
	img stale.img 16
	attach "$f"
	l=$LOOP
	run_tool out "$fmt" -q "$l"
	[ "$rc" = 0 ] && ok "a free loop device is formatted" || bad "loop device: exit $rc: $out"
	exec {hold}<"$l"
	cat "$l" >/dev/null
	head -c 512 /dev/urandom | dd of="$f" bs=512 seek=$((777 * 8 + 3)) conv=notrunc status=none
	if cmp -s <(dd if="$l" bs=4096 skip=777 count=1 status=none) \
		<(dd if="$f" bs=4096 skip=777 count=1 status=none); then
		echo "# note: the loop device's cache is not stale here; the next two prove less"
	fi
	check_state "$l" 6 damaged "block 777 " "stale page cache: savecore -c reads the disk: block 777 damaged"
	dd if=/dev/zero of="$f" bs=4096 count=1 conv=notrunc status=none
	check_state "$l" 6 unformatted "" "stale page cache: block 0 zeroed underneath: unformatted"
	exec {hold}<&-
}

# savecore -c -M, what diskdumpctl reads: only "key: value" lines on
# stdout, state and exit first, the reason on one line, nothing on stderr.
machine_output() {
	local f=$work/mach.img out err
	img mach.img 32
	"$fmt" -q "$f"
	machine() { # FILE: stdout into out, stderr into err, exit into rc
		rc=0
		out=$("$sc" -c -M "$1" 2>"$work/mach.err") || rc=$?
		err=$(cat "$work/mach.err")
	}
	lines_ok() { # every line "key: value", state then exit first
		[ -z "$err" ] && ! printf '%s\n' "$out" | grep -qvE '^[a-z_]+: ' &&
			[ "$(printf '%s\n' "$out" | sed -n 1p)" = "state: $1" ] &&
			[ "$(printf '%s\n' "$out" | sed -n 2p)" = "exit: $rc" ]
	}
	machine "$f"
	[ "$rc" = 3 ] && lines_ok empty && [[ $out == *$'\nreason: no dump: '* ]] &&
		ok "-M, formatted: state: empty, exit: 3, reason: no dump" || bad "-M formatted: exit $rc: $out / $err"
	head -c 512 /dev/urandom | dd of="$f" bs=512 seek=$((4321 * 8 + 7)) conv=notrunc status=none
	machine "$f"
	[ "$rc" = 6 ] && lines_ok damaged &&
		[ "$(printf '%s\n' "$out" | grep -c '^reason: block 4321 is not what the diskdump format says')" = 1 ] &&
		ok "-M, one sector changed: state: damaged, the block in one reason line" ||
		bad "-M one sector: exit $rc: $out / $err"
	img mext4.img 32
	mkfs.ext4 -q -F "$work/mext4.img"
	machine "$work/mext4.img"
	[ "$rc" = 6 ] && lines_ok unformatted && [[ $out == *$'\nsignature: ext4 (filesystem)'* ]] &&
		ok "-M, ext4: state: unformatted, signature: ext4 (filesystem)" || bad "-M ext4: exit $rc: $out / $err"
	machine "$work/no-such.img"
	[ "$rc" = 1 ] && lines_ok error && [[ $out == *"reason: No such file or directory"* ]] &&
		ok "-M, no such file: state: error, exit: 1, the reason" || bad "-M missing: exit $rc: $out / $err"
	rc=0
	"$sc" -M "$f" "$work" >/dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] && ok "-M without -c: usage (exit 2)" || bad "-M without -c: exit $rc"
}

# Review 12: a name that udev re-points while a tool runs (a by-partlabel
# link, a second disk with the same label).  The shim (repoint.c) moves link
# S from loop device A to loop device B right after the tool's first open
# of S: what the tool checks through the name must be what it writes to.
repointed_link() {
	local shim=$work/repoint.so a b s=$work/by-label out sum
	gcc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$shim" "$top/tests/host/repoint.c" -ldl
	# the sanitizer runtime must come first; this shim only wraps open()
	local run=(env ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD="$shim"
		REPOINT_LINK="$s")
	img rp-a.img 16
	mkfs.ext4 -q -F "$work/rp-a.img"
	attach "$work/rp-a.img"
	a=$LOOP
	img rp-b.img 16
	attach "$work/rp-b.img"
	b=$LOOP
	ln -sfn "$a" "$s"
	sum=$(md5sum <"$a")
	local force
	for force in "" -f; do
		ln -sfn "$a" "$s"
		run_tool out "${run[@]}" REPOINT_TO="$b" "$fmt" -q ${force:+"$force"} "$s"
		[ "$(readlink "$s")" = "$b" ] || bad "repoint shim: the link was not moved ($(readlink "$s"))"
		if [ "$rc" != 0 ] && [ "$(md5sum <"$a")" = "$sum" ] && [ "$(blkid_type "$a")" = ext4 ] &&
			[ -z "$(blkid_type "$b")" ] && [[ $out == *"leads to another device"* ]]; then
			ok "diskdumpfmt${force:+ $force}: a link re-pointed after the open: refused, the ext4 it opened intact"
		else
			bad "diskdumpfmt${force:+ $force} through a re-pointed link: exit $rc, $a: $(blkid_type "$a"), $b: $(blkid_type "$b"): $out"
		fi
	done
	# savecore: a dump on A is saved; the claim before the format must be
	# on A, not on what the name leads to by then
	"$BIN/test_savecore" --seed "$work/rp-dump.img" >/dev/null
	attach "$work/rp-dump.img"
	a=$LOOP
	ln -sfn "$a" "$s"
	"$fmt" -q -f "$b"
	sum=$(md5sum <"$b")
	mkdir -p "$work/rp-crash"
	run_tool out "${run[@]}" REPOINT_TO="$b" "$sc" -q "$s" "$work/rp-crash"
	local st
	st=$("$sc" -c -M "$a" 2>/dev/null | sed -n 's/^state: //p' || true)
	if [ "$rc" != 0 ] && [[ $out == *"leads to another device"* ]] && [ "$st" != empty ] &&
		[ "$(md5sum <"$b")" = "$sum" ]; then
		ok "savecore: a link re-pointed before the format: not formatted, the dump kept ($st)"
	else
		bad "savecore through a re-pointed link: exit $rc, $a: $st: $out"
	fi
	# diskdumpctl add: the kernel is given the number of the device that
	# savecore checked, not a name to look up a third time
	"$fmt" -q -f "$a"
	ln -sfn "$a" "$s"
	: >"$work/rp-proc"
	echo 'DISKDUMP_DEVICES=""' >"$work/rp-conf"
	run_tool out env PATH="$BIN:$PATH" DISKDUMP_PROC="$work/rp-proc" \
		DISKDUMP_CONFIG="$work/rp-conf" sh "$top/tools/diskdump/diskdumpctl" add "$s"
	local want
	want="add $((0x$(stat -c %t "$a"))):$((0x$(stat -c %T "$a")))"
	[ "$rc" = 0 ] && [ "$(cat "$work/rp-proc")" = "$want" ] &&
		ok "diskdumpctl add: armed by the number savecore checked ($want)" ||
		bad "diskdumpctl add: exit $rc, wrote '$(cat "$work/rp-proc")', not '$want': $out"
}

[ "$(id -u)" = 0 ] || { echo "fmt-matrix: needs root"; echo "fmt-matrix: 0 passed, 1 failed"; exit 1; }
for t in "$fmt" "$sc"; do
	[ -x "$t" ] || { echo "fmt-matrix: no $t"; echo "fmt-matrix: 0 passed, 1 failed"; exit 1; }
done
signature_matrix
md_over_format
force_and_dry_run
empty_then_one_sector
machine_output
mounted_partition
active_swap
stale_cache
repointed_link
echo "fmt-matrix: $pass passed, $fail failed"
[ "$fail" = 0 ]
