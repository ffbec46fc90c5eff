#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# scripts/test-host.sh TEST_HOST_QEMU_TRACE=1: the emulated host's QMP events,
# one JSON object a line with the host's time, into LOG:
#
#   scripts/qmp-events.py SOCKET LOG
#
# QEMU runs with -action shutdown=pause then: a SHUTDOWN (a guest's
# power-off, or with -no-reboot a reset: its "reason" says which,
# guest-shutdown or guest-reset) stops the machine instead of ending QEMU,
# and this dumps who was running on each CPU (HMP "info registers -a",
# "info cpus": CS 0xe008 is Xen, 0xe033 dom0's PV kernel, anything else an
# HVM guest's own code) into LOG, then quits QEMU.  Everything QEMU sends
# is untrusted: a line that is not JSON is logged as such, not trusted.
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qmp  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: qmp-events.py SOCKET LOG")
    path, logpath = sys.argv[1], sys.argv[2]
    s = qmp.connect(path, "qmp-events")
    f = s.makefile("rwb", buffering=0)
    log = open(logpath, "a", buffering=1)

    def put(kind, obj):
        log.write(json.dumps({"host_time": round(time.time(), 3), kind: obj}) + "\n")

    def send(cmd, **args):
        m = {"execute": cmd}
        if args:
            m["arguments"] = args
        f.write((json.dumps(m) + "\n").encode())

    def reply():
        # The next line that is not an event; events on the way are logged.
        while True:
            line = f.readline()
            if not line:
                return None
            try:
                m = json.loads(line)
            except ValueError:
                put("unparsed", line.decode("utf-8", "replace")[:200])
                continue
            if isinstance(m, dict) and "event" in m:
                put("event", m)
                continue
            return m

    put("greeting", reply())
    send("qmp_capabilities")
    put("reply", reply())
    send("query-status")
    put("status", reply())
    while True:
        line = f.readline()
        if not line:
            put("closed", "QEMU closed the QMP socket")
            return
        try:
            m = json.loads(line)
        except ValueError:
            put("unparsed", line.decode("utf-8", "replace")[:200])
            continue
        if not isinstance(m, dict):
            put("unparsed", str(m)[:200])
            continue
        put("event" if "event" in m else "other", m)
        if m.get("event") == "SHUTDOWN":
            # -action shutdown=pause: the machine is stopped as it was.
            for c in ("info cpus", "info registers -a"):
                send("human-monitor-command", **{"command-line": c})
                r = reply()
                put("hmp", {"command": c, "output": r.get("return") if isinstance(r, dict) else r})
            send("quit")
            put("reply", reply())


if __name__ == "__main__":
    main()
