#!/usr/bin/env bash
# Speed of `ipibench trace summary` against xenalyze's summary, with hyperfine.
#   bench-trace.sh [REAL.xt...]      (make bench-trace)
# (a) >= 1 GiB files written by gentrace (16 CPUs, mixed mode, lost records),
#     kept in build/trace-bench/ between runs: one with vlapic_accept_pic_intr
#     records (xenalyze warns once for each: part of its time is that), one
#     without (--no-pic);
# (b) each REAL file given (traces recorded under QEMU), and any
#     build/trace-bench/real-*.xt.
# Both tools read the file from the page cache (hyperfine --warmup 1).  The
# figures go to build/trace-bench/*.md|json; probes/README.md quotes them.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/trace-bench
mkdir -p "$out"
ipb=build/bin/ipibench
xa=build/bin/xenalyze
gen=build/bin/gentrace
big=$out/gen-1g.xt
nopic=$out/gen-1g-nopic.xt
runs=${BENCH_RUNS:-5}
xa_runs=${BENCH_XA_RUNS:-2}
files=("$@")
if [ -z "${BENCH_NO_GEN:-}" ]; then	# BENCH_NO_GEN=1: only the real files
	[ -s "$big" ] || nice "$gen" --size 1G --cpus 16 --mode mixed --lost --seed 1 "$big"
	[ -s "$nopic" ] || nice "$gen" --size 1G --cpus 16 --mode mixed --lost --seed 1 --no-pic "$nopic"
	files=("$big" "$nopic" "$@")
fi
for f in "$out"/real-*.xt; do [ -e "$f" ] && files+=("$f"); done
for f in "${files[@]}"; do
	name=$(basename "$f" .xt)
	bytes=$(stat -c %s "$f")
	echo "== $f ($bytes bytes)"
	# xenalyze is much slower: fewer runs.  Its stderr (warnings about
	# events it does not know, e.g. vlapic_accept_pic_intr) is discarded.
	hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/$name-ipibench.json" \
		--command-name "ipibench trace summary" "$ipb trace summary $f" >/dev/null
	hyperfine -N --warmup 0 --runs "$xa_runs" -i --export-json "$out/$name-xenalyze.json" \
		--command-name "xenalyze --summary" "$xa --summary $f" >/dev/null
	python3 - "$out/$name-ipibench.json" "$out/$name-xenalyze.json" "$bytes" "$f" <<'PY' | tee "$out/$name.md"
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
b = json.load(open(sys.argv[2]))["results"][0]
n = int(sys.argv[3])
def row(r):
    return "| %s | %.3f ± %.3f | %.3f | %.3f | %.2f |" % (
        r["command"].split(" /")[0].split(" build")[0], r["mean"], r["stddev"],
        r["user"], r["system"], n / r["mean"] / 1e9)
print("file: %s, %.2f GB" % (sys.argv[4], n / 1e9))
print()
print("| command | wall s (mean ± sd) | user s | sys s | GB/s (wall) |")
print("|---|---|---|---|---|")
print(row(a)); print(row(b))
print()
print("ipibench trace summary is %.0fx faster than xenalyze --summary (wall); "
      "%.2f GB/s per CPU second (user+sys)" % (b["mean"] / a["mean"], n / (a["user"] + a["system"]) / 1e9))
PY
done
