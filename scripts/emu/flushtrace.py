#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/emu/flushtrace.py FILE.xtrace...: per traced flush (send_ipi_mask of vector 0xfd to all
other CPUs, from CPU 0): the send's own cost (ICR writes), the delay to the first and
to the last target's ipi_recv, from the start of the send.
Medians and p90 over the flushes of the file, in us.  A send record is
written after its ICR writes, so the send began 'cycles' (its 4th word)
earlier.  Traced times are longer than untraced ones (each ICR write and
receive writes a record, and dom0 drains the buffers meanwhile): read them
for their shape (the order and spacing of the receives), not as figures."""
import struct
import sys
SEND, RECV = 0x00804001, 0x00804006   # apic:send_ipi_mask, apic:ipi_recv
def recs(path):
    b = open(path, 'rb').read(); i = 0; cpu = None
    while i + 4 <= len(b):
        h, = struct.unpack_from('<I', b, i); i += 4
        ev, n, tin = h & 0x0fffffff, (h >> 28) & 7, h >> 31
        tsc = None
        if tin:
            tsc, = struct.unpack_from('<Q', b, i); i += 8
        ex = struct.unpack_from('<%dI' % n, b, i); i += 4 * n
        if ev == 0x0001f003:
            cpu = ex[0]; continue
        yield cpu, ev, tsc, ex
def main(path):
    khz = None; ev = []
    for cpu, e, tsc, ex in recs(path):
        if e == 0x008040ff and ex:   # apic:tsc_khz, written by ipibench's collector
            khz = ex[0]
        if tsc is not None and e in (SEND, RECV):
            ev.append((tsc, cpu, e, ex))
    ev.sort()
    if not khz:
        sys.exit(f"{path}: no apic:tsc_khz record (not recorded by ipibench's agent?)")
    sends = [k for k, x in enumerate(ev) if x[2] == SEND and (x[3][0] & 0xff) == 0xfd and x[3][1] >= 8]
    cost, first, last, period = [], [], [], []
    for j, k in enumerate(sends):
        t, cpu, _, ex = ev[k]
        ncpus = ex[1]
        end = ev[sends[j + 1]][0] if j + 1 < len(sends) else None
        r = [x[0] for x in ev[k + 1:(sends[j + 1] if j + 1 < len(sends) else len(ev))]
             if x[2] == RECV and (x[3][0] & 0xff) == 0xfd]
        cost.append(ex[3] / khz * 1e3)
        t -= ex[3]   # the record is written after the ICR writes: the send began cycles earlier
        if len(r) >= ncpus:
            first.append((r[0] - t) / khz * 1e3); last.append((r[ncpus - 1] - t) / khz * 1e3)
        if end:
            period.append((end - t) / khz * 1e3)
    q = lambda v, p: sorted(v)[int(p * (len(v) - 1))] if v else float('nan')
    print(f"{path}: {len(sends)} flushes; us (median / p90): send {q(cost,.5):.1f} / {q(cost,.9):.1f}, "
          f"first recv {q(first,.5):.1f} / {q(first,.9):.1f}, last recv {q(last,.5):.1f} / {q(last,.9):.1f} "
          f"(from the send's start; {len(last)} with all receives)")
for p in sys.argv[1:]:
    main(p)
