# Memory that goes offline after arming.  As in hotadd, the host plugs a
# 256 MiB DIMM after the guest armed sda1 and the guest onlines its two
# memory blocks as movable; then it takes the second block offline again,
# fills memory and crashes.  The dump must leave the offline block out
# (its memory map is gone: reading it could fault or give garbage), and
# keep the rest: /proc/diskdump's RAM count falls by the block, no
# PT_LOAD of the saved vmcore touches it, every pattern page is there.
hotadd_run "ddtest=hotadd ddmib=64 ddoffline=1"
log=$WORK/serial.log
expect_log "$log" "GUEST: onlined 2 memory blocks" "the DIMM's memory did not come online"
expect_log "$log" "GUEST: offlined [0-9]+: offline" "the block did not go offline"
pages() { awk '/^# ram_pages:/ {print $3}' "$1"; }
before=$(pages "$WORK/out/ram-before.txt")
online=$(pages "$WORK/out/proc-online.txt")
after=$(pages "$WORK/out/proc-diskdump.txt")
read -r blk bsz <"$WORK/out/offline.txt"
bsz=$((16#$bsz))	# sysfs gives it in hex, without 0x
[ -n "$before" ] && [ -n "$online" ] && [ -n "$after" ] && [ "$bsz" -gt 0 ] || fail "no RAM counts or block size"
[ $((online - before)) = 65536 ] || fail "RAM $before pages before the DIMM, $online with it online (not 65536 more)"
[ $((online - after)) = $((bsz / 4096)) ] || fail "RAM $online pages with the DIMM, $after after block $blk went offline (not $((bsz / 4096)) fewer)"
check_saved_dump "sysrq triggered crash" 1
start=$((blk * bsz)) end=$(((blk + 1) * bsz))
python3 - "$(the_vmcore)" "$start" "$end" >"$WORK/loads.txt" <<'PY' || { cat "$WORK/loads.txt"; fail "a PT_LOAD covers the offline block"; }
import struct, sys
path, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, 'rb') as f:
    eh = f.read(64)
    phoff, = struct.unpack_from('<Q', eh, 32)
    phentsize, phnum = struct.unpack_from('<HH', eh, 54)
    f.seek(phoff)
    ph = f.read(phentsize * phnum)
bad = hot = 0
for i in range(phnum):
    p_type, _, _, _, paddr, _, memsz = struct.unpack_from('<IIQQQQQ', ph, i * phentsize)
    if p_type != 1 or paddr == 0xffffffffffffffff:
        continue
    if paddr < end and paddr + memsz > start:
        print(f'PT_LOAD {paddr:#x}-{paddr + memsz:#x} overlaps {start:#x}-{end:#x}')
        bad += 1
    if paddr >= 0x100000000:
        hot += memsz
print(f'{hot >> 20} MiB of PT_LOADs in the DIMM')
sys.exit(1 if bad or hot == 0 else 0)
PY
note "RAM $before -> $online -> $after pages; block $blk ($(printf '%#x-%#x' "$start" "$end")) left out; $(cat "$WORK/loads.txt")"
