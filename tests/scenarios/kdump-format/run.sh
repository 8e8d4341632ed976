# savecore -F kdump: the kdump-compressed format ('KDUMP   ', version 6,
# zlib pages, one shared zero page).  The same dump saved on the host as ELF
# must hold the same bytes for every page; makedumpfile and crash read it.
dump_scenario ddtest=kdump-format ddmib=16 ddtrigger=sysrq
KEPT=1 check_saved_dump "sysrq triggered crash" 1
info=$(dirname "$(the_vmcore)")/info
info_is "$info" format "kdump-compressed zlib"
head -c 8 "$(the_vmcore)" | grep -q '^KDUMP   $' || fail "the vmcore is not kdump-compressed"
bytes=$(stat -c %s "$(the_vmcore)")
# the partition was kept (-k): save it again on the host, as ELF
part_out "$WORK/dump.img" 1 "$WORK/part.img"
# what diskdumpctl reads of a dump: savecore -c -M, key: value lines only
rc=0
tools/diskdump/savecore -c -M "$WORK/part.img" >"$WORK/machine.txt" 2>"$WORK/machine.err" || rc=$?
{ [ "$rc" = 0 ] && [ ! -s "$WORK/machine.err" ] && ! grep -qvE '^[a-z_]+: ' "$WORK/machine.txt" &&
	[ "$(sed -n 1p "$WORK/machine.txt")" = "state: dump" ] && [ "$(sed -n 2p "$WORK/machine.txt")" = "exit: 0" ]; } ||
	{ cat "$WORK/machine.txt" "$WORK/machine.err"; fail "savecore -c -M on the kept dump: exit $rc"; }
info_is "$WORK/machine.txt" status complete
info_is "$WORK/machine.txt" flags none
info_is "$WORK/machine.txt" device "$WORK/part.img"
note "savecore -c -M on the kept dump: state: dump, exit: 0, $(wc -l <"$WORK/machine.txt") key: value lines"
mkdir -p "$WORK/host" "$WORK/hostkd"
# savecore against a plain dd of the same partition, both to a file with
# fsync, on the host (the partition image is in the page cache for all).
t0=$(date +%s.%N)
dd if="$WORK/part.img" of="$WORK/dd.out" bs=1M conv=fsync status=none
t1=$(date +%s.%N)
tools/diskdump/savecore -q -k "$WORK/part.img" "$WORK/host" || fail "host savecore (ELF) failed"
t2=$(date +%s.%N)
tools/diskdump/savecore -q -k -F kdump "$WORK/part.img" "$WORK/hostkd" || fail "host savecore (kdump) failed"
t3=$(date +%s.%N)
rm -f "$WORK/dd.out"
mb=$(($(stat -c %s "$WORK/part.img") >> 20))
note "$(python3 -c "import sys; a,b,c,d=map(float,sys.argv[1:5]); m=float(sys.argv[5]); print(f'host, {m:.0f} MiB partition: dd {m/(b-a):.0f} MiB/s, savecore ELF {m/(c-b):.0f} MiB/s ({(b-a)/(c-b):.2f} of dd), savecore kdump zlib {m/(d-c):.0f} MiB/s ({(b-a)/(d-c):.2f} of dd)')" "$t0" "$t1" "$t2" "$t3" "$mb")"
elf=$(find "$WORK/host" -name vmcore)
python3 tests/check-vmcore.py "$(the_vmcore)" --same-as "$elf" >"$WORK/same.txt" ||
	{ cat "$WORK/same.txt"; fail "the kdump file and the ELF file differ"; }
note "$(grep '^same' "$WORK/same.txt"); kdump $((bytes >> 20)) MiB vs ELF $(($(stat -c %s "$elf") >> 20)) MiB"
check_dmesg "sysrq triggered crash"
check_readers "sysrq triggered crash" ddpattern 1 "__handle_sysrq|sysrq_handle_crash"
# LZO and zstd pages (-Z lzo|zstd, saved on the host from the same
# partition): makedumpfile reads the LZO file's kernel log, crash the zstd
# file's tasks (the unit tests check every page of both).
for z in lzo zstd; do
	mkdir -p "$WORK/host-$z"
	tools/diskdump/savecore -q -k -F kdump -Z "$z" "$WORK/part.img" "$WORK/host-$z" ||
		fail "host savecore -F kdump -Z $z failed"
done
lzo=$(find "$WORK/host-lzo" -name vmcore)
zstd=$(find "$WORK/host-zstd" -name vmcore)
timeout 120 makedumpfile --dump-dmesg "$lzo" "$WORK/dmesg-lzo.txt" >"$WORK/mdf-lzo.txt" 2>&1 ||
	{ cat "$WORK/mdf-lzo.txt"; fail "makedumpfile cannot read the LZO kdump file"; }
grep -q "Kernel panic - not syncing: sysrq triggered crash" "$WORK/dmesg-lzo.txt" ||
	fail "the panic message is not in the LZO file's log"
# This is the host's crash (Debian 12's 8.0.2, built with zstd), which
# predates 6.4's module memory layout and stops at the guest's loaded
# modules (nvme): --no_modules, as the pages are what is checked here.
printf 'quit\n' | timeout 180 crash -s --no_modules "$VMLINUX" "$zstd" >"$WORK/crash-zstd.txt" 2>&1 || true
grep -Eq "^PID: +[0-9]+ +TASK: |active task ffff[0-9a-f]+ on cpu [0-9]+" "$WORK/crash-zstd.txt" ||
	{ cat "$WORK/crash-zstd.txt"; fail "crash did not read the zstd kdump file"; }
note "-Z lzo: $(($(stat -c %s "$lzo") >> 20)) MiB, makedumpfile reads its log; -Z zstd: $(($(stat -c %s "$zstd") >> 20)) MiB, crash finds the active task"
