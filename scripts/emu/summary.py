#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/emu/summary.py DIR...: result sets measured with scripts/emu/measure.sh.

Per boot (run): the median, mean and p95 of the per-call 'flush' samples
(us), ICR writes per call, and what the host gave that QEMU while the
workload ran (its window comes from run.log's progress stamps, on the
clock of QEMU's start, as the samples' 'age'): the host's 1-minute load
(/proc/loadavg) at the start, QEMU's host CPU time per second (cores), the busiest vCPU thread's
(the sender's) cores, and of the sender's wall time the share on a host
CPU, waiting for one (run queue) and neither (asleep: blocked in QEMU),
and how many vCPU threads were waiting for a host CPU on average.
Then per TCG threading and mode: the boots' medians, their spread and the
ratio of their mean to physical mode's.  The replicated unit is the boot.
"""
import json
import os
import re
import statistics as st
import sys

HZ = os.sysconf('SC_CLK_TCK')


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]


def windows(d):
    """run id -> {workload: [start, done], 'dom0': t}; the last attempt wins."""
    win, cur = {}, None
    for line in open(d + '/run.log'):
        m = re.match(r'\[\d+/\d+\] (\S+): \S+ mode', line)
        if m:
            cur = m.group(1)
            win[cur] = {}
            continue
        m = re.match(r'\[\s*([\d.]+)s\] agent: workload (\S+) .*start', line)
        if m and cur:
            win[cur][m.group(2)] = [float(m.group(1)), None]
        m = re.match(r'\[\s*([\d.]+)s\] agent: workload (\S+) done', line)
        if m and cur and m.group(2) in win[cur]:
            win[cur][m.group(2)][1] = float(m.group(1))
        m = re.match(r'\[\s*([\d.]+)s\] dom0: up', line)
        if m and cur:
            win[cur]['dom0'] = float(m.group(1))
    return win


def host_side(samples, rid, t0, t1):
    cons = f'/runs/{rid}/console.log'
    mine = [s for s in samples if (s.get('console') or '').endswith(cons)]
    if not mine:
        return None
    pid = mine[-1]['pid']                  # the last boot of that run
    mine = [s for s in mine if s['pid'] == pid]
    a = [s for s in mine if s['age'] >= t0]
    b = [s for s in mine if s['age'] >= t1]
    if not a or not b or b[0]['age'] <= a[0]['age']:
        return None
    A, B = a[0], b[0]
    dt = B['age'] - A['age']
    th = []
    for tid, v in B['threads'].items():
        u = A['threads'].get(tid)
        if not u:
            continue
        sched = len(v) > 7 and len(u) > 7   # early samplers kept no schedstat
        th.append({'name': v[0], 'cores': (v[1] + v[2] - u[1] - u[2]) / HZ / dt,
                   'on': (v[6] - u[6]) / 1e9 / dt if sched else None,
                   'runq': (v[7] - u[7]) / 1e9 / dt if sched else None})
    # unnamed threads (no debug-threads): the busiest thread is the sender
    vcpus = sorted([x for x in th if 'CPU' in x['name']] or th, key=lambda x: -x['cores'])
    busy = None
    if 'cpu' in A:
        ca, cb = A['cpu'], B['cpu']
        idle = (cb[3] + cb[4]) - (ca[3] + ca[4])
        busy = (sum(cb) - sum(ca) - idle) / HZ / dt
    waiting = (sum(x['runq'] for x in vcpus) if vcpus and vcpus[0]['runq'] is not None
               else None)
    return {'load': float(A['load'][0]), 'qemu': sum(x['cores'] for x in th), 'waiting': waiting,
            'sender': vcpus[0] if vcpus else None, 'busy': busy,
            'others': A.get('other_qemus')}


def main(dirs):
    rows = []
    for d in dirs:
        res = json.load(open(d + '/results.json'))
        tcg = res['host'].get('tcg_threading') or 'multi'
        win = windows(d)
        samples = [json.loads(x) for x in open(d + '/samples.jsonl')]
        for run in res['runs']:
            if run.get('status') != 'ok':
                continue
            rid = run['id']
            w = [x for x in run['workloads'] if x['name'] == 'flush'][0]
            ns, c = w['samples']['ns'], w['counters']
            t0, t1 = win[rid]['flush']
            r = {'dir': d, 'tcg': tcg, 'id': rid, 'mode': run['mode'],
                 'median': st.median(ns) / 1e3, 'mean': st.mean(ns) / 1e3,
                 'p95': pct(ns, 95) / 1e3, 'icr': c['icr_writes'] / c['operations'],
                 'dom0': win[rid].get('dom0'), 'host': host_side(samples, rid, t0, t1)}
            rows.append(r)
            h = r['host']
            line = (f"{d} {tcg:6s} {rid:12s} median {r['median']:7.1f} mean {r['mean']:7.1f} "
                    f"p95 {r['p95']:8.1f} us, ICR/call {r['icr']:5.2f}")
            if h:
                s = h['sender']
                line += (f"; load1 {h['load']:5.2f}, other QEMUs {h['others']}, host busy "
                         f"{'?' if h['busy'] is None else round(h['busy'], 2)}, QEMU "
                         f"{h['qemu']:.2f} cores, sender {s['name']} {s['cores']:.2f} cores")
                if s['on'] is not None:
                    line += (f" (on a CPU {s['on']:.2f}, run queue {s['runq']:.2f}, "
                             f"asleep {max(0, 1 - s['on'] - s['runq']):.2f}); vCPU threads "
                             f"waiting for a CPU {h['waiting']:.2f} on average")
            print(line)
    print()
    for tcg in sorted({r['tcg'] for r in rows}):
        base = None
        for mode in ('physical', 'cluster', 'mixed'):
            v = [r['median'] for r in rows if r['tcg'] == tcg and r['mode'] == mode]
            if not v:
                continue
            if mode == 'physical':
                base = st.mean(v)
            print(f"{tcg:6s} {mode:8s} {len(v)} boots: medians "
                  f"{' '.join(f'{x:.0f}' for x in v)} us; mean {st.mean(v):.0f}"
                  + (f", sd {st.stdev(v):.0f}" if len(v) > 1 else '')
                  + f", max/min {max(v) / min(v):.2f}"
                  + (f"; mean / physical's {st.mean(v) / base:.3f}"
                     if base and mode != 'physical' else ''))


if __name__ == '__main__':
    main(sys.argv[1:])
