#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerate the analysis/ test fixtures (deterministic: fixed seeds).

    python3 analysis/tests/data/gen_fixtures.py

Writes, next to this script:
  three-mode/results.json   16 CPUs, emulated, physical|cluster|mixed, four
                            workloads (flush_tlb_all, ipi_mask,
                            vector_capacity, irq_delivery), one failed run
  sweep-8/results.json, sweep-32/results.json   flush only, for the CPU sweep
  history/setN/results.json five result sets of one real host (flush with
                            10 timed loops per boot: the time rule judges
                            real hosts only); set3 carries an injected
                            +20% slowdown in flush/mixed only
  hyperfine.json, perf-stat.csv, invalid.json, schema2.json
  loops/results.json        one boot per mode (16 CPUs, emulated): flush with
                            8 timed loops per boot, a paired sender workload
                            (senders = physical, cluster; cluster ~12%
                            cheaper per IPI) and its A/A control (senders =
                            cluster, cluster); see docs/results-schema.md
  boots/results.json        3 boots per mode, 6 loops each: boots differ by
                            ~4%, loops inside a boot by ~0.3%, mixed is 1.5%
                            slower than physical: pooled loops would call
                            that certain, boots as the unit cannot tell
  ministat/seed512-{mixed,physical,cluster}.txt   samples reconstructed
                            from the seed's committed 512-CPU ministat table
                            (docs/statistics.md): ministat prints exactly its figures
"""
import json, math, os, random
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))


def lat(rng, base, n, spread=0.04):
    # Log-normal noise around base, a few slow outliers, integer ns.
    out = []
    for _ in range(n):
        v = base * math.exp(rng.gauss(0, spread))
        if rng.random() < 0.01:
            v *= 1.5
        out.append(int(round(v)))
    return out


def clusters(cpus):
    return (cpus + 15) // 16


def workload_flush(rng, mode, cpus, n, scale=1.0, name="flush"):
    # Emulated per-call cost: physical pays one ICR write per target CPU.
    per_icr = 9000.0
    icr = cpus - 1 if mode == "physical" else clusters(cpus)
    base = (600000.0 + 32000.0 * cpus + per_icr * icr) * scale
    return {
        "name": name, "type": "flush_tlb_all",
        "params": {"iterations": n, "mask": "all-but-self", "shorthand": False},
        "status": "ok", "path": "genapic",
        "samples": {"ns": lat(rng, base, n), "cycles": []},
        "counters": {"operations": n, "icr_writes": icr * n,
                     "ipis_sent": (cpus - 1) * n, "ipis_received": (cpus - 1) * n},
    }


def workload_ipi(rng, mode, cpus, n):
    icr = 7 if mode == "physical" else 1
    base = 300000.0 + 9000.0 * icr
    return {
        "name": "ipi8", "type": "ipi_mask",
        "params": {"iterations": n, "mask": "1-8"},
        "status": "ok", "path": "genapic",
        "samples": {"ns": lat(rng, base, n)},
        "counters": {"operations": n, "icr_writes": icr * n, "ipis_sent": 8 * n},
    }


def workload_vectors(mode, cpus):
    # Physical and mixed allocate vectors per CPU; cluster shares them.
    per_cpu = 188
    total = per_cpu * cpus if mode != "cluster" else per_cpu * clusters(cpus)
    return {
        "name": "vectors", "type": "vector_capacity", "params": {},
        "status": "ok", "path": "genapic", "samples": {"ns": []},
        "counters": {"vectors": total,
                     "vectors_per_cpu": [total // cpus] * cpus},
    }


def workload_irq(rng, mode, cpus, n):
    if mode == "cluster":
        # Logical delivery lands on the lowest CPU of the cluster mostly.
        irqs = [0] * cpus
        for _ in range(n):
            irqs[0 if rng.random() < 0.8 else rng.randrange(cpus)] += 1
    else:
        irqs = [0] * cpus
        for i in range(n):
            irqs[i % cpus] += 1
    return {
        "name": "irq", "type": "irq_delivery", "params": {"iterations": n},
        "status": "ok", "path": "genapic",
        "samples": {"ns": lat(rng, 50000.0, n)},
        "counters": {"operations": n, "irqs_per_cpu": irqs},
    }


def statistics_median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2


def timed_loops(rng, per_call, runs, calls, sender="genapic", spread=0.003):
    """runs loops of calls calls, timed as a whole (results.json "loops")."""
    out = []
    for _ in range(runs):
        ns = per_call * calls * math.exp(rng.gauss(0, spread))
        out.append({"ns": int(round(ns)), "cycles": int(round(ns * 2)),
                    "calls": calls, "chunks": 1, "sender": sender})
    return out


def paired_loops(rng, cost, senders, pairs, calls, drift=0.02, noise=0.004):
    """senders = (A, B): per pair one loop of each, order randomized; a
    common per-pair factor (host state drifting through the boot)."""
    out = []
    for p in range(pairs):
        common = math.exp(rng.gauss(0, drift))
        arms = [0, 1]
        rng.shuffle(arms)
        for arm in arms:
            s = senders[arm]
            ns = cost[s] * calls * common * math.exp(rng.gauss(0, noise))
            out.append({"ns": int(round(ns)), "cycles": int(round(ns * 2)),
                        "calls": calls, "chunks": 1, "sender": s, "pair": p})
    return out


def workload_loops_flush(rng, lrng, mode, cpus, runs, boot_factor=1.0, slow=1.0):
    w = workload_flush(rng, mode, cpus, 100)
    base = (600000.0 + 32000.0 * cpus + 9000.0 * (cpus - 1 if mode == "physical" else 1))
    w["params"]["runs"] = runs
    w["loops"] = timed_loops(lrng, base * boot_factor * slow, runs, 1000)
    return w


def workload_paired(lrng, name, senders, pairs):
    # ns per IPI to 8 CPUs: physical writes the ICR 8 times, cluster once.
    cost = {"physical": 372000.0, "cluster": 327000.0, "genapic": 372000.0}
    return {
        "name": name, "type": "ipi_mask",
        "params": {"iterations": 1000, "mask": "1-8", "runs": pairs * 2,
                   "senders": ", ".join(senders)},
        "status": "ok", "path": "genapic", "samples": {"ns": []},
        "counters": {"operations": pairs * 2 * 1000},
        "loops": paired_loops(lrng, cost, senders, pairs, 1000),
    }


def resultset(name, cpus, runs, commit="abc1234", created="2026-11-30T09:00:00Z",
              host="qemu-tcg", emulated=True):
    return {
        "schema_version": 1,
        "tool": {"name": "ipibench", "version": "0.1.0", "commit": commit},
        "created": created,
        "config_file": "configs/%s.ini" % name,
        "config": {"host": {"backend": "qemu", "cpus": str(cpus)}},
        "host": {
            "backend": "qemu" if emulated else "reboot", "name": host, "emulated": emulated,
            "cpu_model": "QEMU Virtual CPU version 2.5+",
            "cpus": cpus, "maxcpus": cpus + 4,
            "xen_version": "4.17.5+72-g01140da4e8-1",
            "series_hash": "0" * 64,
            "xen_cmdline": "console=com1 dom0_max_vcpus=1",
            "qemu_version": "10.0.2", "tsc_khz": 2000000,
        },
        "runs": runs,
        "future_key_ignored": {"x": 1},
    }


def run(mode, rep, workloads, status="ok", error=None):
    return {
        "id": "%s-r%d" % (mode, rep), "mode": mode,
        "genapic": "x2apic_" + {"physical": "phys"}.get(mode, mode),
        "repetition": rep, "status": status, "error": error,
        "started": "2026-11-30T09:00:00Z", "finished": "2026-11-30T09:01:00Z",
        "workloads": workloads,
    }


def write(rel, obj):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")


# The seed's committed table (Xen commit e3c409d59a, AMD EPYC 9754, 512
# CPUs; ns for 10000 flush_tlb_all() calls): N, Min, Max, Median, Avg, Stddev.
SEED512 = {
    "mixed": (25, 3.5131328e+08, 3.5716441e+08, 3.5410987e+08, 3.5432659e+08, 1566737.4),
    "physical": (12, 1.231082e+09, 1.238824e+09, 1.2370528e+09, 1.2357981e+09, 2853892.9),
    "cluster": (11, 3.5099276e+08, 3.5561459e+08, 3.5461234e+08, 3.5415668e+08, 1415071.9),
}


def reconstruct(n, mn, mx, med, avg, sd):
    """n values whose ministat vitals are exactly these (Debian's ministat:
    median = sorted[n // 2]): min, median and max themselves, the others in
    two evenly spread groups below and above the median, whose centres solve
    the sum and sum-of-squares equations (in deviations from avg)."""
    kl, kh = n // 2 - 1, n - n // 2 - 2
    umin, umax, umed = (Fraction(v) - Fraction(avg) for v in (mn, mx, med))
    S = -(umin + umax + umed)
    Q = Fraction(sd) ** 2 * (n - 1) - (umin ** 2 + umax ** 2 + umed ** 2)

    def offs(k, w):
        return [w * Fraction(2 * j - (k - 1), 2 * max(k, 1)) for j in range(k)]
    ol, oh = offs(kl, (umed - umin) / 4), offs(kh, (umax - umed) / 4)
    R = Q - sum(o * o for o in ol) - sum(o * o for o in oh)
    a = kl + Fraction(kl * kl, kh)
    b = -2 * S * Fraction(kl, kh)
    c = S * S / kh - R
    root = math.sqrt(float(b * b - 4 * a * c))
    for sign in (-1, 1):
        L = (-float(b) + sign * root) / (2 * float(a))
        H = (float(S) - kl * L) / kh
        lo, hi = [L + float(o) for o in ol], [H + float(o) for o in oh]
        if all(umin < v < umed for v in lo) and all(umed < v < umax for v in hi):
            return [avg + float(u) for u in [umin] + lo + [umed] + hi + [umax]]
    raise ValueError("no sample with these figures")


def main():
    rng = random.Random(6)
    modes = ["physical", "cluster", "mixed"]
    cpus = 16
    runs = []
    for rep in range(2):
        for m in modes:
            runs.append(run(m, rep, [
                workload_flush(rng, m, cpus, 150),
                workload_ipi(rng, m, cpus, 150),
                workload_vectors(m, cpus),
                workload_irq(rng, m, cpus, 400),
            ]))
    runs.append(run("mixed", 2, [], status="failed",
                    error="boot: timeout after 600 s waiting for dom0"))
    write("three-mode/results.json", resultset("smoke", cpus, runs))

    for c in (8, 32):
        runs = [run(m, 0, [workload_flush(rng, m, c, 150)]) for m in modes]
        write("sweep-%d/results.json" % c, resultset("sweep", c, runs))

    hrng = random.Random(1130)
    for i in range(1, 6):
        runs = []
        for m in modes:
            scale = 1.2 if (i == 3 and m == "mixed") else 1.0
            fl = workload_flush(rng, m, cpus, 200, scale)
            # 10 timed loops per boot: the run-level figures history compares
            per_call = statistics_median(fl["samples"]["ns"]) * math.exp(hrng.gauss(0, 0.01))
            fl["params"]["runs"] = 10
            fl["loops"] = timed_loops(hrng, per_call, 10, 1000, spread=0.005)
            runs.append(run(m, 0, [fl, workload_ipi(rng, m, cpus, 200)]))
        write("history/set%d/results.json" % i,
              resultset("smoke", cpus, runs, commit="c0ffee%d" % i,
                        created="2026-11-%02dT08:00:00Z" % (20 + i),
                        host="xen-x86-16cpu", emulated=False))

    # Loop timings and paired senders, one boot per mode.
    lrng = random.Random(1201)
    runs = []
    for m in modes:
        runs.append(run(m, 0, [
            workload_loops_flush(lrng, lrng, m, cpus, 8, math.exp(lrng.gauss(0, 0.04))),
            workload_paired(lrng, "ipi-senders", ("physical", "cluster"), 10),
            workload_paired(lrng, "ipi-aa", ("cluster", "cluster"), 10),
        ]))
    write("loops/results.json", resultset("smoke", cpus, runs))

    # Several boots per mode: the boot is the unit.
    runs = []
    for rep in range(3):
        for m in modes:
            runs.append(run(m, rep, [workload_loops_flush(
                lrng, lrng, m, cpus, 6, math.exp(lrng.gauss(0, 0.04)),
                1.015 * 1247000.0 / 1121000.0 if m == "mixed" else 1.0)]))
    write("boots/results.json", resultset("smoke", cpus, runs))

    hf = {"results": []}
    for cmd, base in (("ab -n 2000 http://guest/ (physical)", 0.52),
                      ("ab -n 2000 http://guest/ (mixed)", 0.47)):
        times = [base * math.exp(rng.gauss(0, 0.03)) for _ in range(20)]
        st = sorted(times)
        mean = sum(times) / len(times)
        sd = math.sqrt(sum((t - mean) ** 2 for t in times) / (len(times) - 1))
        hf["results"].append({
            "command": cmd, "mean": mean, "stddev": sd,
            "median": (st[9] + st[10]) / 2, "user": 0.1, "system": 0.2,
            "min": st[0], "max": st[-1], "times": times,
            "exit_codes": [0] * len(times)})
    with open(os.path.join(HERE, "hyperfine.json"), "w") as f:
        json.dump(hf, f, indent=2)
        f.write("\n")

    with open(os.path.join(HERE, "perf-stat.csv"), "w") as f:
        f.write("# started on Mon Nov 30 09:00:00 2026\n\n")
        f.write("1234.56,msec,task-clock,1234560000,100.00,0.998,CPUs utilized\n")
        f.write("5678,,context-switches,1234560000,100.00,4.599,K/sec\n")
        f.write("3456789012,,cycles,1234560000,100.00,2.800,GHz\n")
        f.write("<not counted>,,instructions,0,0.00,,\n")

    os.makedirs(os.path.join(HERE, "ministat"), exist_ok=True)
    for mode, figures in SEED512.items():
        pts = reconstruct(*figures)
        random.Random(512).shuffle(pts)
        with open(os.path.join(HERE, "ministat", "seed512-%s.txt" % mode), "w") as f:
            f.write("# reconstructed from the seed's 512-CPU table: ns for 10000 calls\n")
            for v in pts:
                f.write("%.3f\n" % v)

    with open(os.path.join(HERE, "invalid.json"), "w") as f:
        f.write('{\n  "schema_version": 1,\n  "runs": [ oops ]\n}\n')
    write("schema2.json", {"schema_version": 2, "runs": []})


if __name__ == "__main__":
    main()
