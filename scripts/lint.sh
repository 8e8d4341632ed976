#!/bin/bash
# checkpatch.pl --strict on our kernel files and patches, and sparse (C=2)
# plus W=1 on our objects.  Prints "lint: N passed, N failed".
#   scripts/lint.sh SRCDIR OBJDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$(cd "$1" && pwd)
obj=$(cd "$2" && pwd)
pass=0 failed=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
bad() { echo "not ok - $1"; failed=$((failed + 1)); }

kfiles=$(cd "$top" && find drivers include kernel -name '*.[ch]' 2>/dev/null | sort)
# Run inside the tree, so that checkpatch knows the kernel's own CamelCase
# names (Scsi_Host).  AVOID_BUG is ignored for the one BUG(): the
# DISKDUMP_TEST hook whose job is to BUG() in process context.
cp_args=(--strict --terse --show-types --ignore FILE_PATH_CHANGES,AVOID_BUG)
for f in $kfiles; do
	args=("${cp_args[@]}")
	# mpt3sas_dump.c fills the MPI headers' CamelCase frames
	case $f in drivers/scsi/mpt3sas/*) args+=(--ignore CAMELCASE) ;; esac
	if out=$(cd "$src" && scripts/checkpatch.pl "${args[@]}" -f "$f" 2>&1); then
		ok "checkpatch $f"
	else
		echo "$out" | head -20
		bad "checkpatch $f"
	fi
done
# camel_ok PATCH: a patch whose new lines must use upstream's CamelCase
# names, which checkpatch learns from include/ only: the tools' PRIu64 and
# Elf64_* (<inttypes.h>, <elf.h>), vmw_pvscsi.h's PVSCSI* ring fields,
# the Fusion-MPT headers' MPT_ADAPTER, SCSIIORequest_t and registers, the
# MPI 2 headers' of mpt3sas.
camel_ok() {
	case $1 in *-tools-* | *pvscsi* | *mptsas* | *mpt3sas*) return 0 ;; esac
	return 1
}
for p in $(grep -v '^#' "$top/patches/series"); do
	# the context of a patch is upstream code: only what we add is judged
	ign=FILE_PATH_CHANGES
	camel_ok "$p" && ign=$ign,CAMELCASE
	if out=$(cd "$src" && scripts/checkpatch.pl --strict --terse --show-types \
		--ignore "$ign" "$top/patches/$p" 2>&1); then
		ok "checkpatch patches/$p"
	else
		echo "$out" | head -20
		bad "checkpatch patches/$p"
	fi
done

# patches/ is what quilt refresh writes, patches/files places every new
# file, and the mailed series gives the same tree as quilt.
if out=$("$top/scripts/series.sh" check 2>&1); then
	ok "$(echo "$out" | tail -1)"
else
	echo "$out" | tail -30
	bad "series.sh check: patches/, patches/files and the mailed series agree"
fi

# The upstream series (make series): checkpatch --strict on each patch as
# it would be mailed.  Ignored: AVOID_BUG (the DISKDUMP_TEST hook that must
# BUG()) and, in the patches camel_ok names, CAMELCASE.
series=$top/build/series/out
if out=$("$top/scripts/series.sh" mail "$series" 2>&1); then
	ok "make series: $(echo "$out" | tail -1)"
	for p in "$series"/0*.patch; do
		ign=AVOID_BUG
		camel_ok "$p" && ign=$ign,CAMELCASE
		if out=$(cd "$src" && scripts/checkpatch.pl --strict --terse --show-types --ignore "$ign" "$p" 2>&1); then
			ok "checkpatch series/$(basename "$p")"
		else
			echo "$out" | head -20
			bad "checkpatch series/$(basename "$p")"
		fi
	done
	if [ "${LINT_SERIES_BUILD:-1}" = 1 ]; then
		if out=$("$top/scripts/series.sh" mail "$series" --build 2>&1); then
			echo "$out" | grep -E '^(  builds after|not ok - )'
			ok "every patch of the series builds on its own"
		else
			echo "$out" | grep -vE '^(  builds after|not ok - )' | tail -30
			echo "$out" | grep -E '^(  builds after|not ok - )'
			bad "every patch of the series builds on its own"
		fi
	fi
else
	echo "$out" | tail -20
	bad "make series"
fi

# The tools' scripts parse, and their man pages render without warnings.
for f in tools/diskdump/diskdumpctl tools/diskdump/diskdump.init; do
	if out=$(sh -n "$top/$f" 2>&1); then ok "sh -n $f"; else echo "$out"; bad "sh -n $f"; fi
done
# The systemd unit: systemd-analyze verify, where the only complaint may be
# that diskdumpctl is not installed on this build machine.
if command -v systemd-analyze >/dev/null; then
	for u in diskdump.service diskdump-verify.service diskdump-verify.timer; do
		out=$(systemd-analyze verify --man=no "$top/tools/diskdump/$u" 2>&1 |
			grep -v 'Command /usr/sbin/diskdumpctl is not executable')
		if [ -z "$out" ]; then ok "systemd-analyze verify $u"; else echo "$out"; bad "systemd-analyze verify $u"; fi
	done
fi
for m in "$top"/tools/diskdump/man/*.8; do
	if out=$(groff -man -Tutf8 -ww -z "$m" 2>&1) && [ -z "$out" ]; then
		ok "groff -ww $(basename "$m")"
	else
		echo "$out" | head -5
		bad "groff -ww $(basename "$m")"
	fi
done

# Every savecore command line and option string that the conffile, the man
# pages, the README and Documentation quote goes through savecore's parser:
# an example that savecore refuses would switch dumping off for whoever
# copies it.
sc=$top/build/lint-tools
if make -s -C "$top/tools/diskdump" O="$sc" >/dev/null 2>&1 &&
	out=$(cd "$top" && python3 scripts/doc-opts.py "$sc/savecore" 2>&1); then
	ok "savecore takes the $(echo "$out" | grep -c '^ok - ') command lines and options the documentation quotes"
else
	echo "$out" | grep -v '^ok - '
	bad "savecore refuses a command line or option string the documentation quotes"
fi

# Kconfig says where diskdump works: x86_64 without PREEMPT_RT.  DISKDUMP=y
# must not survive olddefconfig in an RT x86_64 config, nor in arm64's or
# i386's defconfig, and must in x86_64's (configuration only: nothing is
# compiled).
kconfig_case() { # NAME ARCH WANT(y|n) [MORE CONFIG LINES...]
	local name=$1 d=$top/build/kconfig-check/$1 arch=$2 want=$3 got=n
	shift 3
	rm -rf "$d" && mkdir -p "$d"
	printf '%s\n' "$@" CONFIG_CRASH_DUMP=y CONFIG_KALLSYMS=y CONFIG_PROC_FS=y CONFIG_DISKDUMP=y >"$d/frag"
	if ! { make -s -C "$src" O="$d" ARCH="$arch" defconfig &&
		(cd "$d" && ARCH=$arch "$src/scripts/kconfig/merge_config.sh" -m -O "$d" "$d/.config" "$d/frag") &&
		make -s -C "$src" O="$d" ARCH="$arch" olddefconfig; } >/dev/null 2>&1; then
		bad "Kconfig: could not configure $name"
		return
	fi
	grep -q '^CONFIG_DISKDUMP=y' "$d/.config" && got=y
	if [ "$got" = "$want" ]; then ok "Kconfig: DISKDUMP=$want in $name"; else bad "Kconfig: DISKDUMP=$got in $name, wanted $want"; fi
}
kconfig_case x86_64 x86_64 y
kconfig_case x86_64-preempt-rt x86_64 n CONFIG_EXPERT=y CONFIG_PREEMPT_RT=y
kconfig_case arm64 arm64 n
kconfig_case i386 i386 n

# sparse and W=1: rebuild our objects with checks and look for warnings in our files
objs="drivers/block/diskdump.o drivers/block/diskdump_mode.o drivers/block/diskdump_testhooks.o
      drivers/scsi/scsi_dump.o drivers/scsi/scsi_dump_test.o drivers/ata/libata-dump.o drivers/nvme/host/pci-dump.o
      drivers/scsi/aic7xxx/aic7xxx_dump.o drivers/scsi/aic7xxx/aic79xx_dump.o drivers/block/virtio_blk_dump.o
      drivers/scsi/mpt3sas/mpt3sas_dump.o"
for o in $objs; do
	rm -f "$obj/$o"
	# any warning counts: the output is that of this one object, and a
	# format warning names only the header the printk macro lives in
	# (a host tool rebuilt on the way, genksyms' parser, says its own)
	if out=$(make -s -C "$src" O="$obj" C=2 W=1 CC="${CC:-gcc}" "$o" 2>&1) &&
	   ! grep -E "warning|error" <<<"$out" | grep -qv '/scripts/'; then
		ok "sparse+W=1 $o"
	else
		echo "$out" | grep -E "warning|error|${o%.o}.c" | head -20
		bad "sparse+W=1 $o"
	fi
done
# No static key or static call site in the panic-path code: the kernel
# would rewrite code that the self check compares with a checksum taken at
# init or arming (the test kernel has static keys, as Debian's).
if out=$(python3 "$top/scripts/panic-text-check.py" \
	--require scsi_mod,libata,nvme,sym53c8xx,aic7xxx,aic79xx,mpt3sas "$obj/vmlinux" \
	$(find "$obj" \( -path "$obj/modroot" -o -path "$obj/debian" \) -prune -o -name '*.ko' -print) 2>&1); then
	ok "$(echo "$out" | tail -1)"
else
	echo "$out" | head -20
	bad "no static key or static call site in .diskdump.text"
fi
# aic7xxx, aic79xx and mpt3sas cannot run under QEMU: the test kernel
# builds them (as modules, as Debian does), and their dump hooks must be
# panic-path code, in the section that the self check covers and kprobes
# refuse.
for m in aic7xxx/aic7xxx:ahc_linux_dump_quiesce aic7xxx/aic79xx:ahd_linux_dump_quiesce \
	 mpt3sas/mpt3sas:mpt3sas_dump_quiesce mpt3sas/mpt3sas:mpt3sas_dump_poll \
	 mpt3sas/mpt3sas:mpt3sas_dump_queue mpt3sas/mpt3sas:mpt3sas_dump_sanity_check; do
	ko=$obj/drivers/scsi/${m%%:*}.ko
	fn=${m#*:}
	sec=$(objdump -t "$ko" 2>/dev/null | awk -v f="$fn" '$NF == f { print $(NF - 2) }')
	if [ "$sec" = .diskdump.text ]; then
		ok "${ko##*/} has $fn in .diskdump.text"
	else
		echo "${ko#"$obj"/}: $fn is in '${sec:-nowhere}'"
		bad "${ko##*/} has $fn in .diskdump.text"
	fi
done
echo "lint: $pass passed, $failed failed"
[ "$failed" = 0 ]
