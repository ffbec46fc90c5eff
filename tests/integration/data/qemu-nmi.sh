#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# QEMU with a QMP socket and an injector (test_nmi.c): once the console
# log $NMI_CONSOLE shows the agent starting its workloads, an NMI to every
# CPU (QMP inject-nmi) every 250 ms until QEMU ends; how many were injected
# goes to $NMI_COUNT.
sock="$NMI_COUNT.sock"
rm -f "$sock"
python3 - "$sock" "$NMI_CONSOLE" "$NMI_COUNT" "$(cd "$(dirname "$0")/../../../scripts" && pwd)" <<'PY' &
import select, socket, sys, time
sock, console, countfile, mk = sys.argv[1:5]
sys.path.insert(0, mk)
import qmp
s = qmp.connect(sock, "qemu-nmi")
f = s.makefile("rwb", buffering=0)
f.readline()
f.write(b'{"execute": "qmp_capabilities"}\n')
f.readline()
def gone():
    # QEMU ended: the socket reads EOF.
    r, _, _ = select.select([s], [], [], 0)
    return bool(r) and s.recv(1, socket.MSG_PEEK) == b""
started = False
while not started:
    if gone():
        sys.exit(0)
    try:
        started = "ipibench: xen " in open(console, errors="replace").read()
    except OSError:
        pass
    time.sleep(0.2)
n = 0
try:
    while True:
        f.write(b'{"execute": "inject-nmi"}\n')
        while True:
            line = f.readline()
            if not line:
                raise EOFError
            if b'"return"' in line or b'"error"' in line:
                break
        n += 1
        open(countfile, "w").write("%d\n" % n)
        time.sleep(0.25)
except (EOFError, OSError):
    pass
PY
exec qemu-system-x86_64 "$@" -qmp "unix:$sock,server=on,wait=off"
