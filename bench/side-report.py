#!/usr/bin/env python3
"""Tables of bench/side.sh from its run directories:
side-report.py OUTDIR "SIZES" "DISKS" RUNS ["RATE_DISKS"]
Each cell is the minimum / median of its runs; a ratio is of the medians."""
import os
import re
import statistics
import sys

from serial_log import first, grab, read

out, sizes, disks, runs = (sys.argv[1], [int(s) for s in sys.argv[2].split()],
                           sys.argv[3].split(), int(sys.argv[4]))
rate_disks = sys.argv[5].split() if len(sys.argv) > 5 else disks
MiB = 1 << 20


def runs_of(name):
    """The serial logs of the runs NAME-1..NAME-RUNS that exist."""
    logs = []
    for i in range(1, runs + 1):
        if os.path.exists(os.path.join(out, '%s-%d' % (name, i), 'serial.log')):
            logs.append(('%s-%d' % (name, i), read(out, '%s-%d' % (name, i))))
    return logs


def since_panic(run, lines, pat):
    """Seconds from the panic to PAT, or None (said on stderr) if either is missing."""
    t0 = first(lines, r'Kernel panic - not syncing')
    t1 = first(lines, pat)
    if t0 is None or t1 is None:
        print('side-report: %s: no panic line or no line matching %r: left out' % (run, pat),
              file=sys.stderr)
        return None
    return t1 - t0


def each(name, pat):
    """since_panic() over the runs of cell NAME, the runs that have both lines."""
    return [t for t in (since_panic(r, s, pat) for r, s in runs_of(name)) if t is not None]


def cell(values, fmt='%.2f'):
    """min / median (n runs, when fewer than asked)."""
    if not values:
        return 'n/a'
    text = (fmt + ' / ' + fmt) % (min(values), statistics.median(values))
    return text + (' (%d runs)' % len(values) if len(values) < runs else '')


def med(values):
    return statistics.median(values) if values else None


def goal(a, b, limit, below=True):
    """The ratio of the medians a / b and whether it meets LIMIT, as two cells."""
    if a is None or not b:
        return 'n/a | n/a'
    r = a / b
    return '%.3f | %s' % (r, 'met' if (r <= limit if below else r >= limit) else 'not met')


def rates(name):
    """diskdump's level-0 rate and the raw rates, MiB/s, per run.  The dump's
    from its "writing N pages" line to "dump complete", on the host clock:
    the pages, the headers and the flush (the console's own "in M ms" leaves
    out the flush), as rawrate's time includes its fsync."""
    dd, raw1m, raw128 = [], [], []
    for run, s in runs_of(name):
        pages = grab(s, r'writing (\d+) pages, interrupts')
        t0 = first(s, r'diskdump: writing \d+ pages, interrupts')
        t1 = first(s, r'diskdump: dump complete')
        if pages and t0 is not None and t1 is not None and t1 > t0:
            dd.append(int(pages[0]) * 4096 / MiB / (t1 - t0))
        else:
            print('side-report: %s: no dump write to time: left out' % run, file=sys.stderr)
        for _, text in s:
            m = re.search(r'RAWRATE: \d+ MiB in (\d+) KiB writes, [\d.]+ s, ([\d.]+) MiB/s', text)
            if m:
                (raw1m if m.group(1) == '1024' else raw128).append(float(m.group(2)))
    return dd, raw1m, raw128


cpus = int(os.environ.get('BENCH_SMP', '2'))
print('## diskdump and kdump side by side (`make bench-side`), QEMU TCG, %d CPU%s'
      ' (the kdump capture kernel: 1)\n' % (cpus, '' if cpus == 1 else 's'))
print('Minimum / median of %d runs a cell; ratios of the medians.  Times in seconds' % runs)
print('from the panic message, on the host clock.\n')

print('### 1. Panic to the dump safe on disk, level 31\n')
print('diskdump: "dump complete" (written and flushed, in the panicking kernel).  kdump, on')
print('the same machine (the same dump disk attached, its controller probed by every kernel):')
print('makedumpfile -c -d 31 done in the capture kernel.  Goal: diskdump <= 0.1 of kdump.\n')
print('| RAM | dump disk | diskdump | kdump (capture kernel up) | kdump, saved | ratio | goal |')
print('| --- | --- | --- | --- | --- | --- | --- |')
kd = {}
for mem in sizes:
    for disk in disks:
        name = 'kdump-%s-%d' % (disk, mem)
        ck = [grab(s, r'crashkernel reservation (\d+) bytes') for _, s in runs_of(name)]
        kd[mem, disk] = {
            'up': each(name, r'KDUMP: capture kernel up'),
            'saved': each(name, r'KDUMP: saved rc=0'),
            'back': each(name, r'BENCH: back in service'),
            'ck': [int(c[0]) for c in ck if c],
        }
        safe = each('dd31-%s-%d' % (disk, mem), r'diskdump: dump complete')
        print('| %d MiB | %s | %s | %s | %s | %s |' %
              (mem, disk, cell(safe), cell(kd[mem, disk]['up']), cell(kd[mem, disk]['saved']),
               goal(med(safe), med(kd[mem, disk]['saved']), 0.1)))

print('\n### 2. Panic to back in service, the dump saved as a file\n')
print('diskdump: reboot into the production kernel, savecore -F kdump done at boot.')
print('kdump: makedumpfile done, then the reboot into the production kernel, up.')
print('Goal: diskdump <= 0.7 of kdump.\n')
print('| RAM | dump disk | diskdump | kdump | ratio | goal |')
print('| --- | --- | --- | --- | --- | --- |')
plot = []
for mem in sizes:
    row = [mem]
    for disk in disks:
        safe = each('dd31-%s-%d' % (disk, mem), r'diskdump: dump complete')
        back = each('dd31-%s-%d' % (disk, mem), r'savecore: saved')
        print('| %d MiB | %s | %s | %s | %s |' %
              (mem, disk, cell(back), cell(kd[mem, disk]['back']),
               goal(med(back), med(kd[mem, disk]['back']), 0.7)))
        row += [med(safe), med(kd[mem, disk]['saved']), med(back), med(kd[mem, disk]['back'])]
    plot.append(row)
with open(os.path.join(out, 'plot.dat'), 'w') as f:
    f.write('# RAM, then per disk (%s): diskdump safe, kdump saved, diskdump back, kdump back\n'
            % ' '.join(disks))
    for row in plot:
        f.write(' '.join('?' if v is None else '%g' % v for v in row) + '\n')

print('\n### 3. Write rate at panic, level 0, against the raw disk\n')
print('raw: O_DIRECT writes of zeroes to the same disk\'s other partition, in the guest')
print('just before the panic (rawrate, its time including the fsync).  diskdump: the')
print('pages, headers and flush, from its "writing" line to "dump complete" on the host')
print('clock.  Goal: diskdump >= 0.9 of raw with 1 MiB writes.\n')
print('| RAM | dump disk | raw, 128 KiB writes | raw, 1 MiB writes | diskdump | diskdump / raw 1 MiB | goal |')
print('| --- | --- | --- | --- | --- | --- | --- |')
for mem in sizes:
    for disk in rate_disks:
        dd, raw1m, raw128 = rates('rate-%s-%d' % (disk, mem))
        if not dd and not raw1m:
            continue
        print('| %d MiB | %s | %s | %s | %s | %s |' %
              (mem, disk, cell(raw128, '%.0f'), cell(raw1m, '%.0f'), cell(dd, '%.0f'),
               goal(med(dd), med(raw1m), 0.9, below=False)))

print('\n### 4. Memory set aside\n')
print('| RAM | kdump: crashkernel= reservation | diskdump: core buffers (/proc/diskdump buffer_bytes) | diskdump: driver buffers |')
print('| --- | --- | --- | --- |')
for mem in sizes:
    bb = []
    drv = []
    for disk in disks:
        for i in range(1, runs + 1):
            path = os.path.join(out, 'dd31-%s-%d-%d' % (disk, mem, i), 'files', 'proc-diskdump.txt')
            if os.path.exists(path):
                m = re.search(r'^# buffer_bytes: (\d+)', open(path).read(), re.M)
                if m:
                    bb.append(int(m.group(1)))
                break
        dm = os.path.join(out, 'dd31-%s-%d-1' % (disk, mem), 'files', 'dmesg-boot1.txt')
        if disk == 'nvme' and os.path.exists(dm):
            m = re.search(r'dump queue \d+, \d+ entries, (\d+) KiB per command', open(dm).read())
            if m:
                drv.append('NVMe: %s KiB data buffer, 9 PRP list pages, 2 queue pages' % m.group(1))
        elif disk == 'virtio-blk' and os.path.exists(dm):
            m = re.search(r'dump queue \S+, (\d+) entries, (\d+) KiB per request', open(dm).read())
            if m:
                drv.append('virtio-blk: a virtqueue of %s entries from probe; a %s KiB data buffer and a page of request headers' %
                           (m.group(1), m.group(2)))
        elif disk == 'virtio-scsi' and os.path.exists(dm):
            m = re.search(r'dump queue set aside, (\d+) entries', open(dm).read())
            if m:
                drv.append('virtio-scsi: a virtqueue of %s entries and its command headers from probe; 1 MiB DMA buffer per disk' %
                           m.group(1))
        elif disk == 'pvscsi':
            drv.append('pvscsi: one request context and a page from probe; 1 MiB DMA buffer per disk')
        elif disk == 'megaraid':
            drv.append('megaraid_sas: one MFI command (frame and sense) from initialisation; 1 MiB DMA buffer per disk')
        elif disk != 'nvme':
            drv.append('SCSI: 1 MiB DMA buffer per disk')
    print('| %d MiB | %.0f MiB, from boot | %.0f KiB, when a partition is armed | %s |' %
          (mem, (med(kd[mem, disks[0]]['ck']) or 0) / MiB, max(bb) / 1024 if bb else 0,
           '; '.join(drv)))
