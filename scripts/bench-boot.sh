#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make bench-boot: how long a config takes on its emulated host, phase by
# phase, printed with the commit and whether the machine was busy, the same way each
# time (docs/measurements.md keeps the figures).
#
#   scripts/bench-boot.sh IPIBENCH CONFIG OUT
#
# OUT is emptied first.  After ipibench run's own closing line (every run's
# time together), prints one line per run (dom0 up, each workload's wall
# time, the run's) from OUT/results.json.
set -euo pipefail
bin=${1:?usage: scripts/bench-boot.sh IPIBENCH CONFIG OUT}
cfg=${2:?usage: scripts/bench-boot.sh IPIBENCH CONFIG OUT}
out=${3:?usage: scripts/bench-boot.sh IPIBENCH CONFIG OUT}
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo "not a git tree")
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit with uncommitted changes"
fi
# Runnable tasks over the last minute against the CPUs: busy or idle.
busy=$(awk -v n="$(nproc)" '{ print ($1 >= n / 2 ? "busy" : "idle") }' /proc/loadavg)
rm -rf "$out"
rc=0
"$bin" run -c "$cfg" -o "$out" || rc=$?
echo
echo "bench-boot: $cfg at $commit; the machine $busy at the start ($(nproc) CPUs)"
if [ -f "$out/results.json" ]; then
	# python3 is make hv's already (make deps); ipibench validated the file.
	python3 - "$out/results.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    wl = ", ".join("%s %.1f s" % (w["name"], w.get("wall_ns", 0) / 1e9)
                   for w in r.get("workloads", []))
    print("bench-boot: %s %s: dom0 up %.0f s; %s; run %.0f s"
          % (r["id"], r["status"], r.get("boot_s", 0), wl, r.get("wall_s", 0)))
PY
fi
echo "bench-boot: results in $out/"
exit "$rc"
