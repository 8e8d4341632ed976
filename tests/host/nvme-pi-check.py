#!/usr/bin/env python3
"""Check the T10 protection information that a QEMU nvme-ns with ms=8 and
pi=1, 2 or 3 keeps for a range of blocks.

QEMU stores a namespace with metadata as all the logical blocks' data, then
all their metadata (8 bytes a block here: the PI tuple, big endian: guard =
CRC-16/T10-DIF of the block's 512 bytes, application tag, reference tag =
the block's LBA, low 32 bits).

usage: nvme-pi-check.py IMAGE FIRST_LBA NR_LBAS SAMPLES [PI_TYPE]

Reads the 4 KiB dump blocks [FIRST_LBA, FIRST_LBA + NR_LBAS) in whole
blocks of 8 LBAs: the first 64 and SAMPLES more chosen at random.  Each
LBA's tuple must be a valid one, with its own LBA as reference tag for
PI types 1 and 2 (the default is 1; type 3 does not tie the reference tag
to the LBA, so only the guard is checked); the escape
(application tag 0xffff, what the host wrote before the guest ran) counts
as a failure, since every block checked was written by the guest.  Prints
"pi: N lbas checked, N bad"; exit status 1 if any is bad.
"""
import os
import random
import struct
import sys

LBA = 512
MS = 8


def crc_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8BB7) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
        table.append(crc)
    return table


TABLE = crc_table()


def crc_t10dif(data):
    crc = 0
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ TABLE[(crc >> 8) ^ b]
    return crc


def main():
    image, first, count, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    pi_type = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    if pi_type not in (1, 2, 3):
        sys.exit(f"nvme-pi-check: PI type {pi_type}: 1, 2 or 3")
    size = os.path.getsize(image)
    nlbas = size // (LBA + MS)
    moff = nlbas * LBA
    blocks = count // 8
    if blocks < 1 or first + count > nlbas:
        sys.exit(f"nvme-pi-check: range [{first}, {first + count}) is not in the {nlbas} LBAs of {image}")
    chosen = set(range(min(64, blocks)))
    rng = random.Random(0)
    chosen.update(rng.randrange(blocks) for _ in range(samples))
    checked = bad = 0
    with open(image, "rb") as f:
        for blk in sorted(chosen):
            lba0 = first + blk * 8
            f.seek(lba0 * LBA)
            data = f.read(8 * LBA)
            f.seek(moff + lba0 * MS)
            meta = f.read(8 * MS)
            for i in range(8):
                guard, app, ref = struct.unpack(">HHI", meta[i * MS:(i + 1) * MS])
                lba = lba0 + i
                want = crc_t10dif(data[i * LBA:(i + 1) * LBA])
                checked += 1
                ref_ok = pi_type == 3 or ref == lba & 0xFFFFFFFF
                if app == 0xFFFF or guard != want or not ref_ok:
                    bad += 1
                    if bad <= 5:
                        print(f"lba {lba}: guard {guard:#06x} (want {want:#06x}) app {app:#06x} ref {ref:#x}")
    print(f"pi: {checked} lbas checked, {bad} bad")
    sys.exit(1 if bad else 0)


main()
