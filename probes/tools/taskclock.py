#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare commands by CPU time (perf stat task-clock), runs interleaved.

usage: taskclock.py [--runs N] [-i] 'LABEL|CMD ARGS...' ...

-i: a command exiting non-zero is measured all the same (xenalyze does on
some traces); otherwise it stops the comparison.
Runs each command N times (default 100), one run of each in turn, so that
the load of a shared machine falls on all of them alike, and prints per
command the minimum, first quartile and median task-clock in ms.  On this
2-core machine shared with other builds, wall times of a few-ms process
are 3-5x its CPU time and swing with the load; task-clock is the CPU time
the process got (it still includes time stolen by the hypervisor, so the
median of interleaved runs is the figure to compare).  Commands are split
on spaces (no shell).  Used for docs/measurements.md, "The trace reader's speed".
"""
import statistics
import subprocess
import sys


def main(argv):
    runs, specs, ignore = 100, [], False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a == "-i":
            ignore = True
            i += 1
            continue
        if a == "--runs":
            if i + 1 >= len(argv) or not argv[i + 1].isdigit() or int(argv[i + 1]) < 1:
                print("taskclock.py: --runs wants a whole number above 0", file=sys.stderr)
                return 2
            runs = int(argv[i + 1])
            i += 2
            continue
        if "|" not in a:
            print("taskclock.py: '%s': want LABEL|COMMAND (see --help)" % a, file=sys.stderr)
            return 2
        label, cmd = a.split("|", 1)
        specs.append((label, cmd.split()))
        i += 1
    if not specs:
        print("usage: taskclock.py [--runs N] [-i] 'LABEL|CMD ARGS...' ...", file=sys.stderr)
        return 2
    res = {label: [] for label, _ in specs}
    for _ in range(runs):
        for label, cmd in specs:
            p = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", "--"] + cmd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            got = [float(f[0]) for f in (l.split(",") for l in p.stderr.splitlines())
                   if len(f) > 2 and f[2].startswith("task-clock")]
            if (p.returncode and not ignore) or not got:
                print("taskclock.py: %s: exit %d, %s" % (" ".join(cmd), p.returncode,
                      "measured" if got else "no task-clock from perf"), file=sys.stderr)
                return 1
            res[label].append(got[0])
    for label, _ in specs:
        r = sorted(res[label])
        print("%-24s n=%d min %.3f p25 %.3f median %.3f ms" % (
            label, len(r), r[0], r[len(r) // 4], statistics.median(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
