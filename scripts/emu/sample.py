#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/emu/sample.py PID OUT: while process PID (an `ipibench run` or `boot`)
lives, every 0.25 s append one JSON line per QEMU child of PID to OUT:

  t            host time (s since the epoch)
  age          seconds since that QEMU started (ipibench's progress clock)
  pid          QEMU's pid; console: its workdir's console.log
  last         the last "ipibench: workload ..." line of that console
  load         /proc/loadavg's three averages
  cpu          /proc/stat's first line (all CPUs, clock ticks)
  other_qemus  QEMU processes on the machine that are not this one
  threads      {tid: [name, utime, stime, voluntary_ctxt_switches,
                nonvoluntary_ctxt_switches, processor, on-CPU ns,
                run-queue wait ns, timeslices]}  (stat, status, schedstat)

QEMU names its vCPU threads "CPU N/TCG" (multi-threaded TCG) or
"ALL CPUs/TCG" (single) when started with -name ...,debug-threads=on, as
the qemu backend does.  Used for docs/measurements.md, "What an emulated time is made of".
"""
import glob
import json
import os
import sys
import time


def stat_fields(path):
    s = open(path).read()
    return s[s.index('(') + 1:s.rindex(')')], s[s.rindex(')') + 2:].split()


def children(ppid):
    for p in glob.glob('/proc/[0-9]*'):
        try:
            comm, f = stat_fields(p + '/stat')
        except OSError:
            continue
        if f[1] == ppid and comm.startswith('qemu'):
            yield p


def last_workload_line(console):
    last = ''
    try:
        with open(console, errors='replace') as f:
            for line in f:
                if 'ipibench: workload' in line:
                    last = line.strip()
    except OSError:
        pass
    return last


def thread(t):
    comm, f = stat_fields(t + '/stat')
    vcs = nvcs = 0
    for line in open(t + '/status'):
        if line.startswith('voluntary_ctxt_switches'):
            vcs = int(line.split()[1])
        elif line.startswith('nonvoluntary_ctxt_switches'):
            nvcs = int(line.split()[1])
    sched = [int(x) for x in open(t + '/schedstat').read().split()]
    return [comm, int(f[11]), int(f[12]), vcs, nvcs, int(f[36])] + sched


def record(p, hz):
    cmd = open(p + '/cmdline').read().split('\0')
    share = [a for a in cmd if a.startswith('local,path=')]
    console = share[0].split('=', 1)[1].split(',')[0] + '/console.log' if share else None
    _, f = stat_fields(p + '/stat')
    age = float(open('/proc/uptime').read().split()[0]) - int(f[19]) / hz
    threads = {}
    for t in glob.glob(p + '/task/*'):
        try:
            threads[t.rsplit('/', 1)[1]] = thread(t)
        except OSError:    # a thread that ended meanwhile
            pass
    others = 0
    for c in glob.glob('/proc/[0-9]*/comm'):
        try:
            if open(c).read().startswith('qemu-system') and c.split('/')[2] != p[6:]:
                others += 1
        except OSError:
            pass
    return {'t': time.time(), 'age': age, 'pid': p[6:], 'console': console,
            'last': last_workload_line(console) if console else '',
            'load': open('/proc/loadavg').read().split()[:3],
            'cpu': [int(x) for x in open('/proc/stat').readline().split()[1:]],
            'other_qemus': others, 'threads': threads}


def main():
    ppid, out = sys.argv[1], sys.argv[2]
    hz = os.sysconf('SC_CLK_TCK')
    with open(out, 'a') as f:
        while os.path.exists('/proc/' + ppid):
            for p in children(ppid):
                try:
                    f.write(json.dumps(record(p, hz)) + '\n')
                except OSError:    # QEMU ended meanwhile
                    pass
            f.flush()
            time.sleep(0.25)


if __name__ == '__main__':
    main()
