"""The timestamped serial logs of bench/kdump.sh (bench/serial-ts.py writes
each console line as "SECONDS TEXT"), for the report scripts."""
import os
import re


def read(out, run):
    """The lines of OUT/RUN/serial.log as (host seconds, text)."""
    lines = []
    with open(os.path.join(out, run, 'serial.log'), errors='replace') as f:
        for line in f:
            t, _, text = line.rstrip('\n').partition(' ')
            lines.append((float(t), text))
    return lines


def first(lines, pat):
    """The time of the first line matching PAT, or None."""
    for t, text in lines:
        if re.search(pat, text):
            return t
    return None


def grab(lines, pat):
    """The groups of PAT in the first line it matches, or None."""
    for _, text in lines:
        m = re.search(pat, text)
        if m:
            return m.groups()
    return None
