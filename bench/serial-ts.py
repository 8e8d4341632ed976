#!/usr/bin/env python3
"""Run a command (QEMU with -serial stdio) and log each output line with the
host's monotonic time since the start:  serial-ts.py LOG CMD...
"""
import subprocess
import sys
import time

with open(sys.argv[1], 'w') as out:
    t0 = time.monotonic()
    p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    for line in p.stdout:
        out.write('%.3f %s\n' % (time.monotonic() - t0,
                                 line.decode(errors='replace').rstrip('\r\n')))
        out.flush()
    sys.exit(p.wait())
