# SPDX-License-Identifier: GPL-3.0-or-later
# What the QMP clients of the tests share (scripts/qmp-events.py,
# tests/integration/data/qemu-nmi.sh): waiting for the socket QEMU creates
# when it starts.
import socket
import sys
import time


def connect(path, who, tries=600):
    """A socket connected to QEMU's QMP socket PATH, waiting up to
    TRIES x 0.1 s for QEMU to create it; exits naming WHO otherwise."""
    for _ in range(tries):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    sys.exit(f"{who}: {path}: no QMP socket after {tries / 10:.0f} s")
