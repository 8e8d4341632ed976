#!/usr/bin/env python3
"""Tables of bench/kdump.sh from its run directories:
kdump-report.py OUTDIR "SIZES" CRASHKERNEL  (writes OUTDIR/plot.dat)"""
import glob
import os
import re
import sys

import serial_log

out, sizes, crashkernel = sys.argv[1], [int(s) for s in sys.argv[2].split()], sys.argv[3]


def serial(run):
    return serial_log.read(out, run)


def when(lines, pat):
    t = serial_log.first(lines, pat)
    if t is None:
        raise SystemExit('%s: no line matching %r' % (lines and 'run' or '', pat))
    return t


grab = serial_log.grab


def info(run):
    files = glob.glob(os.path.join(out, run, 'files', 'crash', '*', 'info'))
    d = {}
    if files:
        for line in open(files[0]):
            k, _, v = line.rstrip('\n').partition(': ')
            d[k] = v
    return d


def proc_value(run, key):
    path = os.path.join(out, run, 'files', 'proc-diskdump.txt')
    for line in open(path):
        if line.startswith('# %s:' % key):
            return int(line.split(':')[1])
    return None


def mdf_pages(path):
    text = open(path, errors='replace').read()
    m = re.search(r'Remaining pages\s*:\s*(0x[0-9a-f]+)', text)
    return int(m.group(1), 16) if m else None


MiB = 1 << 20
plot = []
print('## diskdump vs kdump, QEMU 7.2 TCG, 1 CPU, lsi53c895a + scsi-hd, 64 MiB of pattern in use\n')
print('### 1. Write rate: diskdump at panic vs the raw disk (O_DIRECT writes in the guest, same disk)\n')
print('diskdump writes up to 1 MiB (256 blocks) per SCSI command.\n')
print('| RAM | raw, 128 KiB writes | raw, 1 MiB writes | diskdump (level 0) | diskdump / raw 1 MiB | diskdump / raw 128 KiB |')
print('| --- | --- | --- | --- | --- | --- |')
for mem in sizes:
    s = serial('dd-0-%d' % mem)
    raw = {}
    for _, text in s:
        m = re.search(r'RAWRATE: \d+ MiB in (\d+) KiB writes, [\d.]+ s, ([\d.]+) MiB/s', text)
        if m:
            raw[int(m.group(1))] = float(m.group(2))
    pages, ms = map(int, grab(s, r'dump complete: (\d+) pages in (\d+) ms'))
    rate = pages * 4096 / MiB / (ms / 1000)
    print('| %d MiB | %.1f MiB/s | %.1f MiB/s | %.1f MiB/s (%d pages, %.1f s) | %.2f | %.2f |' %
          (mem, raw.get(128, 0), raw.get(1024, 0), rate, pages, ms / 1000,
           rate / raw[1024] if raw.get(1024) else 0, rate / raw[128] if raw.get(128) else 0))

print('\n### 2. Panic to dump saved (host clock, from the panic message on the console)\n')
print('| RAM | diskdump level 0, ELF | diskdump level 31, kdump zlib | kdump, makedumpfile -c -d 31 |')
print('| --- | --- | --- | --- |')
detail = []
for mem in sizes:
    row = [mem]
    for run, end in (('dd-0-%d', r'savecore: saved'), ('dd-31-%d', r'savecore: saved'),
                     ('kdump-31-%d', r'KDUMP: saved rc=0')):
        s = serial(run % mem)
        t0 = when(s, r'Kernel panic - not syncing')
        t1 = when(s, end)
        row.append(t1 - t0)
        if run.startswith('dd'):
            tdump = when(s, r'diskdump: dump complete')
            detail.append('%s: in the panic %.1f s (dump written), reboot + savecore %.1f s' %
                          (run % mem, tdump - t0, t1 - tdump))
        else:
            tup = when(s, r'KDUMP: capture kernel up')
            detail.append('%s: capture kernel up %.1f s after the panic, makedumpfile %.1f s' %
                          (run % mem, tup - t0, t1 - tup))
    plot.append(row)
    print('| %d MiB | %.1f s | %.1f s | %.1f s |' % tuple(row))
print()
for d in detail:
    print('- ' + d)

print('\n### 3. Memory set aside\n')
print('| RAM | kdump (crashkernel=%s) | diskdump buffers (/proc/diskdump buffer_bytes) |' % crashkernel)
print('| --- | --- | --- |')
for mem in sizes:
    ck = grab(serial('kdump-31-%d' % mem), r'crashkernel reservation (\d+) bytes')
    bb = proc_value('dd-0-%d' % mem, 'buffer_bytes')
    print('| %d MiB | %.0f MiB, reserved at boot | %.0f KiB, vmalloc\'d when a partition is armed, plus a 1 MiB DMA buffer per disk in scsi_dump |' %
          (mem, int(ck[0]) / MiB if ck else 0, (bb or 0) / 1024))

first = sizes[0]


def kernel_image_pages(elf):
    """Pages of the ELF's kernel-image PT_LOAD (the RAM under it is dumped too)."""
    import struct
    with open(elf, 'rb') as f:
        eh = f.read(64)
        phoff, = struct.unpack_from('<Q', eh, 32)
        phnum, = struct.unpack_from('<H', eh, 56)
        f.seek(phoff)
        for _ in range(phnum):
            ph = f.read(56)
            ptype, = struct.unpack_from('<I', ph, 0)
            vaddr, = struct.unpack_from('<Q', ph, 16)
            filesz, = struct.unpack_from('<Q', ph, 32)
            if ptype == 1 and vaddr >= 0xffffffff80000000:
                return filesz // 4096
    return 0


kimg = kernel_image_pages(glob.glob(os.path.join(out, 'dd-0-%d' % first, 'files', 'crash', '*', 'vmcore'))[0])
print('\n### 4. Dump size per level, %d MiB guest\n' % first)
print('diskdump: pages written at panic (its own run at that level) and the size of savecore -F kdump (zlib).')
print('makedumpfile: `makedumpfile -c -d N` on the host over the level-0 diskdump ELF of the same size')
print('(another boot with the same workload, so counts differ a little); makedumpfile also counts the')
print('%d pages of the ELF\'s kernel-image PT_LOAD, which are RAM pages dumped once more: the last' % kimg)
print('column but one takes them off.  Last row: the real kdump run, in the capture kernel.\n')
print('| level | diskdump pages | savecore -F kdump | makedumpfile pages | less the kernel image | makedumpfile -c |')
print('| --- | --- | --- | --- | --- | --- |')
for level in (0, 1, 2, 4, 8, 16, 31):
    i = info('dd-%d-%d' % (level, first))
    dpages = int(i.get('dump_pages', 0))
    size = ''
    if i.get('format', '').startswith('kdump'):
        size = '%.1f MiB' % (int(i['vmcore_bytes']) / MiB)
    else:
        size = '(ELF %.0f MiB)' % (int(i['vmcore_bytes']) / MiB)
    mp = mdf_pages(os.path.join(out, 'mdf-%d.txt' % level))
    ms = os.path.getsize(os.path.join(out, 'mdf-%d.out' % level)) / MiB
    print('| %d | %d | %s | %s | %s | %.1f MiB |' % (level, dpages, size, mp, mp - kimg, ms))
kr = os.path.join(out, 'kdump-31-%d' % first, 'files', 'kdump-report.txt')
kv = os.path.join(out, 'kdump-31-%d' % first, 'files', 'vmcore-kdump')
print('| 31, kdump in the capture kernel | | | %s | | %.1f MiB |' %
      (mdf_pages(kr), os.path.getsize(kv) / MiB))
with open(os.path.join(out, 'plot.dat'), 'w') as f:
    for row in plot:
        f.write('%d %.2f %.2f %.2f\n' % tuple(row))
