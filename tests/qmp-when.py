#!/usr/bin/env python3
"""qmp-when.py LOG REGEX SOCKET COMMAND [TIMEOUT]

Wait until REGEX appears in the serial LOG, then run the QMP COMMAND on
the QEMU whose QMP server listens on SOCKET.  COMMAND is a command without
arguments (e.g. inject-nmi) or a JSON list of commands with their
arguments, [{"execute": "object-add", "arguments": {...}}, ...], run in
order.  Exits 0 once QEMU acknowledged every command, 1 on timeout or
error."""
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
    if command.startswith('['):
        commands = json.loads(command)
    else:
        commands = [{'execute': command}]
    for cmd in [{'execute': 'qmp_capabilities'}] + commands:
        f.write(json.dumps(cmd) + '\n')
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if 'return' in reply:
                break
            if 'error' in reply:
                raise RuntimeError(f'{cmd["execute"]}: {reply["error"]}')
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
