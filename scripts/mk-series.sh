#!/bin/bash
# Turn the project into an upstream-style patch series against pristine 6.12.
#
#   scripts/mk-series.sh OUTDIR              git format-patch series + cover letter
#   scripts/mk-series.sh OUTDIR --build      ... and build the kernel after each
#                                            patch (tools: make; docs: applies)
#
# The series is made in a scratch git repository that holds only the files
# the series touches, at their pristine content (so "index" lines name the
# real upstream blobs and `git am` works on a 6.12 tree).  Logical split:
#   1 timers, softirq: crashdump mode      patches/0001 + diskdump.h (first half)
#   2 block: diskdump core                 patches/0002 + core, headers, KUnit
#   3 scsi: dump hooks and scsi_dump       patches/0003 + scsi_dump.[ch]
#   4 scsi: sym53c8xx_2                    patches/0004
#   5 ata: libata dump hooks               patches/0006 + libata-dump.c
#   6 nvme-pci: dump queue pair            patches/0007 + pci-dump.[ch]
#   7 scsi: aic7xxx                        patches/0008 + aic7xxx_dump.c
#   8 scsi: aic79xx                        patches/0009 + aic79xx_dump.c
#   9 tools/diskdump                       tools/savecore/*
#  10 Documentation                        Documentation/diskdump.txt
# and each patch that adds files adds them to the MAINTAINERS entry of
# patches/0005, which the first patch creates.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mk-series.sh OUTDIR [--build]}
build=${2:-}
tarball=/usr/src/linux-source-6.12.tar.xz
work=$top/build/series
repo=$work/repo
die() { echo "mk-series: $*" >&2; exit 1; }
mkdir -p "$work" "$out"
out=$(cd "$out" && pwd)

# Every project file that goes into the kernel tree must be in some commit.
mapfile -t overlay < <(cd "$top" && git ls-files drivers include Documentation tools/savecore)
declare -A placed=()

files_of_patch() { grep -E '^\+\+\+ b/' "$top/patches/$1" | sed 's|^+++ b/||; s|\t.*||'; }

# The pristine content of every touched upstream file.
touched=()
for p in $(grep -v '^#' "$top/patches/series"); do
	mapfile -t -O "${#touched[@]}" touched < <(files_of_patch "$p")
done
rm -rf "$repo" && mkdir -p "$repo"
tar -xf "$tarball" -C "$repo" --strip-components=1 --wildcards \
	$(printf 'linux-source-6.12/%s\n' "${touched[@]}" | sort -u)
git -C "$repo" init -q
export GIT_AUTHOR_NAME="diskdump developers" GIT_AUTHOR_EMAIL="diskdump@lists.example.org"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-12-03T12:00:00Z" GIT_COMMITTER_DATE="2026-12-03T12:00:00Z"
git -C "$repo" add -A
git -C "$repo" commit -qm "pristine linux-source-6.12 files touched by the series"
base=$(git -C "$repo" rev-parse HEAD)

# message_of PATCH: subject line, blank, body (without the Signed-off-by).
message_of() {
	sed -n '/^Subject: /{s/^Subject: \[PATCH\] //;p;q}' "$top/patches/$1"
	echo
	sed -n '/^Subject: /,/^---$/p' "$top/patches/$1" | sed '1d;$d' | sed '/^Signed-off-by:/d' |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

apply_quilt() { patch -d "$repo" -p1 --fuzz=0 -s --no-backup-if-mismatch <"$top/patches/$1"; }

add_new() {	# add_new SRC [DEST]: a project file into the tree
	local src=$1 dest=${2:-$1}
	mkdir -p "$(dirname "$repo/$dest")"
	cp "$top/$src" "$repo/$dest"
	placed[$src]=1
}

# The MAINTAINERS entry of patches/0005 grows with the series: each commit
# lists the files that exist so far, so every patch that adds files also
# updates MAINTAINERS.  The last commit has the whole entry.
maintainers() {
	git -C "$repo" show "$base:MAINTAINERS" >"$work/MAINTAINERS.full"
	patch -s -p1 --fuzz=0 -o "$work/MAINTAINERS.new" "$work/MAINTAINERS.full" \
		<"$top/patches/0005-maintainers-diskdump.patch" >/dev/null
	python3 - "$work/MAINTAINERS.new" "$repo" >"$repo/MAINTAINERS" <<'PY'
import os, sys
lines = open(sys.argv[1]).read().split('\n')
start = lines.index('DISKDUMP CRASH DUMPS TO A DISK PARTITION')
end = lines.index('', start)
keep = [l for l in lines[start:end]
        if not l.startswith('F:\t') or os.path.exists(os.path.join(sys.argv[2], l[3:]))]
if not any(l.startswith('F:\t') for l in keep):
    keep = []
else:
    keep.append('')
print('\n'.join(lines[:start] + keep + lines[end + 1:]), end='')
PY
}

commit() {	# commit MESSAGE
	maintainers
	git -C "$repo" add -A
	printf '%s\n\nSigned-off-by: %s <%s>\n' "$1" "$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL" |
		git -C "$repo" commit -q -F -
}

# 1: crashdump mode.  Only the first half of diskdump.h: the driver
# contract after "/* Dump devices" comes with the core.
apply_quilt 0001-timers-tasklets-crashdump-mode.patch
mkdir -p "$repo/include/linux"
awk '/^\/\* Dump devices: the driver contract \*\//{cut=1} !cut' "$top/include/linux/diskdump.h" \
	| sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$repo/include/linux/diskdump.h"
printf '\n#endif /* _LINUX_DISKDUMP_H */\n' >>"$repo/include/linux/diskdump.h"
grep -q 'crashdump_mode' "$repo/include/linux/diskdump.h" || die "diskdump.h has no crashdump-mode half"
commit "$(message_of 0001-timers-tasklets-crashdump-mode.patch)"

# 2: the core.
apply_quilt 0002-diskdump-core.patch
for f in include/linux/diskdump.h include/uapi/linux/diskdump.h drivers/block/diskdump.c \
	drivers/block/diskdump_test.c; do
	add_new "$f"
done
commit "$(message_of 0002-diskdump-core.patch)"

# 3: the SCSI shim.
apply_quilt 0003-scsi-dump-hooks.patch
add_new drivers/scsi/scsi_dump.c
add_new include/scsi/scsi_dump.h
commit "$(message_of 0003-scsi-dump-hooks.patch)"

# 4: sym53c8xx_2.
apply_quilt 0004-sym53c8xx-dump-hooks.patch
commit "$(message_of 0004-sym53c8xx-dump-hooks.patch)"

# 5-8: the other dump drivers: libata, nvme-pci, aic7xxx, aic79xx.
apply_quilt 0006-libata-dump-hooks.patch
add_new drivers/ata/libata-dump.c
commit "$(message_of 0006-libata-dump-hooks.patch)"
apply_quilt 0007-nvme-dump-queue.patch
add_new drivers/nvme/host/pci-dump.c
add_new drivers/nvme/host/pci-dump.h
commit "$(message_of 0007-nvme-dump-queue.patch)"
apply_quilt 0008-aic7xxx-dump-hooks.patch
add_new drivers/scsi/aic7xxx/aic7xxx_dump.c
commit "$(message_of 0008-aic7xxx-dump-hooks.patch)"
apply_quilt 0009-aic79xx-dump-hooks.patch
add_new drivers/scsi/aic7xxx/aic79xx_dump.c
commit "$(message_of 0009-aic79xx-dump-hooks.patch)"

# 9: the tools.
for f in $(cd "$top" && git ls-files tools/savecore); do
	add_new "$f" "tools/diskdump/${f#tools/savecore/}"
done
commit "tools/diskdump: savecore, diskdumpfmt and a boot script

savecore(8) reads a dump partition after the reboot and writes an ELF
vmcore that gdb, crash and makedumpfile read: PT_NOTE with the CPUs'
NT_PRSTATUS notes and VMCOREINFO, the kernel image and the direct map as
PT_LOADs, and optionally the CPUs' vmalloc'd stacks found by walking the
dumped page tables.  It checks the header, the bitmaps and the notes
before trusting them, writes vmcore.incomplete, fsyncs and renames it,
and formats the partition again only then.

diskdumpfmt writes the format signature into every block of a partition,
refusing a mounted device, a swap area or a known filesystem signature
unless forced.  diskdump.init saves any dump at boot and arms the
configured partitions through /proc/diskdump.

Build with 'make -C tools/diskdump'."

# 10: documentation and MAINTAINERS.
add_new Documentation/diskdump.txt
commit "Documentation: diskdump

What diskdump is and how it differs from kdump, configuring and
formatting a partition, the /proc/diskdump syntax, the on-disk format,
savecore, the interface for writing a dump driver, limits and the safety
rules the panic path keeps."

cmp -s "$work/MAINTAINERS.new" "$repo/MAINTAINERS" || die "the series does not end with the whole MAINTAINERS entry"
for f in "${overlay[@]}"; do
	[ -n "${placed[$f]:-}" ] || die "$f is in no patch of the series"
done

rm -f "$out"/*.patch
git -C "$repo" format-patch -q --cover-letter --thread=shallow -o "$out" "$base..HEAD"
nr=$(git -C "$repo" rev-list --count "$base..HEAD")
python3 - "$out/0000-cover-letter.patch" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('*** SUBJECT HERE ***', 'diskdump: crash dumps to a disk partition, no reserved memory')
s = s.replace('*** BLURB HERE ***', '''\
diskdump writes the memory of a panicking kernel straight to a dedicated
disk partition, by polling the disk controller with interrupts off and
the other CPUs stopped, and a user-space savecore turns the partition
into an ELF vmcore after the reboot.  Unlike kdump it reserves no memory
(no crashkernel=, no second kernel): it needs only the buffers it
preallocates when a partition is configured, about 200 KiB.

At panic it stops the other CPUs with kdump's NMI shootdown and keeps
their registers in crash_notes, checks a CRC of its own code and data
taken at configuration time, and then tries each configured partition in
order: the driver's sanity check, quiesce, a read of every block to
check the format signature (so it never writes over a filesystem), then
the header, the notes, the bitmaps and the pages.  Any failure moves on
to the next partition, and in the end to the normal panic path.

Drivers keep calling add_timer() and tasklet_schedule(): patch 1 makes
those calls go to diskdump's own lists while it dumps, at the cost of one
predictable branch otherwise.  Patch 3 adds polling hooks to the SCSI
host template and a shim that implements the dump operations for SCSI
disks; patch 4 wires up sym53c8xx_2, the HBA that QEMU emulates.
Patch 5 gives every libata host the SCSI hooks (poll runs the port's
interrupt handler); patch 6 sets an NVMe queue pair aside for dumps, so
that in-flight normal I/O does not matter; patches 7 and 8 add aic7xxx
and aic79xx, which are compile-tested only.

Tested in QEMU (TCG, 1-4 CPUs, 256 MiB; lsi53c895a, PIIX IDE, AHCI
and NVMe disks): panics from sysrq, BUG() with
panic_on_oops, a hard interrupt, an external NMI and a second panic
during the dump; an I/O error mid-dump (blkdebug), a host lock held by a
stopped CPU, a corrupted diskdump image, foreign and ext4 partitions in
the list, a partition smaller than memory.  In each case the pattern
that the guest wrote before the panic is checked in the saved vmcore,
and the partitions that must not be touched are byte-identical.  gdb and
makedumpfile read the dumps; crash 8.0.2 opens them but predates 6.12.

The design is the 2004 diskdump for 2.6, ported to 6.12.''')
open(p, 'w').write(s)
PY
echo "mk-series: $nr patches and a cover letter in $out"

[ "$build" = --build ] || exit 0

# Build after each patch: a pristine tree, the patches applied one by one,
# an incremental build each time, configured like the test kernel (options
# that do not exist yet are dropped by olddefconfig).
src=$work/src obj=$work/obj
rm -rf "$src" && mkdir -p "$src" "$obj"
tar -xf "$tarball" -C "$src" --strip-components=1
config=$top/build/obj/.config
[ -f "$config" ] || die "build the test kernel first (make kernel): its .config is the template"
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
kmake() { make -s -C "$src" O="$obj" CC="$cc" HOSTCC="$cc" -j"$(nproc)" "$@"; }
fails=0
for p in "$out"/00[0-9][1-9]-*.patch "$out"/00[1-9][0-9]-*.patch; do
	[ -f "$p" ] || continue
	name=$(basename "$p")
	start=$SECONDS
	if ! patch -d "$src" -p1 --fuzz=0 -s --no-backup-if-mismatch <"$p"; then
		echo "not ok - $name does not apply"; fails=$((fails + 1)); break
	fi
	cp "$config" "$obj/.config"
	if ! kmake olddefconfig >/dev/null 2>&1 || ! kmake vmlinux >"$work/build.log" 2>&1; then
		tail -20 "$work/build.log"
		echo "not ok - kernel build after $name"; fails=$((fails + 1)); continue
	fi
	if [ -d "$src/tools/diskdump" ] && ! make -s -C "$src/tools/diskdump" >"$work/tools.log" 2>&1; then
		tail -20 "$work/tools.log"
		echo "not ok - tools/diskdump build after $name"; fails=$((fails + 1)); continue
	fi
	echo "  builds after $name ($((SECONDS - start))s; $(grep -c '^CONFIG_.*DUMP.*=y' "$obj/.config") *DUMP* options on)"
done
[ "$fails" = 0 ]
