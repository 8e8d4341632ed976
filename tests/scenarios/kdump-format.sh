# savecore -F kdump: the kdump-compressed format ('KDUMP   ', version 6,
# zlib pages, one shared zero page).  The same dump saved on the host as ELF
# must hold the same bytes for every page; makedumpfile and crash read it.
dump_scenario ddtest=kdumpfmt ddmib=16 ddtrigger=sysrq
check_saved_dump "sysrq triggered crash" 1
info=$(dirname "$(the_vmcore)")/info
info_is "$info" format "kdump-compressed zlib"
head -c 8 "$(the_vmcore)" | grep -q '^KDUMP   $' || fail "the vmcore is not kdump-compressed"
bytes=$(stat -c %s "$(the_vmcore)")
# the partition was kept (-k): save it again on the host, as ELF
part_out "$WORK/dump.img" 1 "$WORK/part.img"
mkdir -p "$WORK/host" "$WORK/hostkd"
# savecore against a plain dd of the same partition, both to a file with
# fsync, on the host (the partition image is in the page cache for all).
t0=$(date +%s.%N)
dd if="$WORK/part.img" of="$WORK/dd.out" bs=1M conv=fsync status=none
t1=$(date +%s.%N)
tools/savecore/savecore -q -k "$WORK/part.img" "$WORK/host" || fail "host savecore (ELF) failed"
t2=$(date +%s.%N)
tools/savecore/savecore -q -k -F kdump "$WORK/part.img" "$WORK/hostkd" || fail "host savecore (kdump) failed"
t3=$(date +%s.%N)
rm -f "$WORK/dd.out"
mb=$(($(stat -c %s "$WORK/part.img") >> 20))
note "$(python3 -c "import sys; a,b,c,d=map(float,sys.argv[1:5]); m=float(sys.argv[5]); print(f'host, {m:.0f} MiB partition: dd {m/(b-a):.0f} MiB/s, savecore ELF {m/(c-b):.0f} MiB/s ({(b-a)/(c-b):.2f} of dd), savecore kdump zlib {m/(d-c):.0f} MiB/s ({(b-a)/(d-c):.2f} of dd)')" "$t0" "$t1" "$t2" "$t3" "$mb")"
elf=$(find "$WORK/host" -name vmcore)
python3 tests/check-vmcore.py "$(the_vmcore)" --same-as "$elf" >"$WORK/same.txt" ||
	{ cat "$WORK/same.txt"; fail "the kdump file and the ELF file differ"; }
note "$(grep '^same' "$WORK/same.txt"); kdump $((bytes >> 20)) MiB vs ELF $(($(stat -c %s "$elf") >> 20)) MiB"
check_dmesg "sysrq triggered crash"
check_crash ddpattern
