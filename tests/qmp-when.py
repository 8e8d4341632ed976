#!/usr/bin/env python3
"""qmp-when.py LOG REGEX SOCKET COMMAND [TIMEOUT]

Wait until REGEX appears in the serial LOG, then run the QMP COMMAND
(e.g. inject-nmi) on the QEMU whose QMP server listens on SOCKET.  Exits
0 once QEMU acknowledged the command, 1 on timeout or error."""
import json
import re
import socket
import sys
import time


def wait_for(log, regex, deadline):
    pat = re.compile(regex)
    while time.time() < deadline:
        try:
            with open(log, errors='replace') as f:
                if pat.search(f.read()):
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.2)
    return False


def qmp(sock_path, command):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock_path)
    f = s.makefile('rw')
    json.loads(f.readline())  # the greeting
    for cmd in ('qmp_capabilities', command):
        f.write(json.dumps({'execute': cmd}) + '\n')
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if 'return' in reply:
                break
            if 'error' in reply:
                raise RuntimeError(f'{cmd}: {reply["error"]}')
    s.close()


def main():
    log, regex, sock_path, command = sys.argv[1:5]
    timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 240
    if not wait_for(log, regex, time.time() + timeout):
        print(f'qmp-when: /{regex}/ never appeared in {log}', file=sys.stderr)
        return 1
    time.sleep(0.5)
    qmp(sock_path, command)
    print(f'qmp-when: sent {command}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
