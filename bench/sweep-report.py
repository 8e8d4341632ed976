#!/usr/bin/env python3
"""The partition-size sweep of bench/kdump.sh, as a Markdown table:
sweep-report.py OUTDIR "PARTS" RUNS
Per partition size (MiB) and check mode: the blocks the panic-time check
read, its time, and the host-clock time from the panic message to the dump
written (in the panic) and to the dump saved (after reboot and savecore)."""
import os
import statistics
import sys

from serial_log import first as when, grab, read

out, parts, runs = sys.argv[1], [int(p) for p in sys.argv[2].split()], int(sys.argv[3])


def measure(run):
    if not os.path.exists(os.path.join(out, run, 'serial.log')):
        return None
    s = read(out, run)
    t0 = when(s, r'Kernel panic - not syncing')
    tdump = when(s, r'diskdump: dump complete')
    tsaved = when(s, r'savecore: saved')
    chk = grab(s, r'signature check: (\d+) of (\d+) blocks in (\d+) ms')
    quiesce = grab(s, r'quiesced in (\d+) ms')
    if None in (t0, tdump, tsaved) or not chk:
        raise SystemExit('%s: incomplete run (no panic, dump or save line)' % run)
    return {'written': tdump - t0, 'saved': tsaved - t0, 'checked': int(chk[0]),
            'blocks': int(chk[1]), 'check_s': int(chk[2]) / 1000.0,
            'quiesce_s': int(quiesce[0]) / 1000.0 if quiesce else 0.0}


def span(values):
    return '%.2f / %.2f' % (min(values), statistics.median(values))


print('\n### Partition-size sweep: level 31, 512 MiB guest, lsi53c895a (TCG)\n')
print('Times in seconds from the panic message (host clock), min / median of the runs.\n')
print('| partition | check | runs | blocks checked | check | quiesce | panic to dump written | panic to dump saved |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
written = {}
for p in parts:
    for mode, names in (('dump', ['sweep-dump-%d-%d' % (p, i + 1) for i in range(runs)]),
                        ('all', ['sweep-all-%d-1' % p])):
        ms = [m for m in (measure(n) for n in names) if m]
        if not ms:
            continue
        written[(p, mode)] = min(m['written'] for m in ms)
        print('| %d MiB | %s | %d | %d of %d | %s | %s | %s | %s |' % (
            p, mode, len(ms), ms[0]['checked'], ms[0]['blocks'],
            span([m['check_s'] for m in ms]), span([m['quiesce_s'] for m in ms]),
            span([m['written'] for m in ms]), span([m['saved'] for m in ms])))
base = [written[(p, 'dump')] for p in parts if (p, 'dump') in written]
if len(base) > 1:
    print('\nPanic to dump written, default check, largest partition against smallest: '
          '%.2f (goal: within 10%%, 0.90-1.10).' % (base[-1] / base[0]))
