#!/usr/bin/env bash
# Speed of `ipibench trace summary` against xenalyze's summary and against
# reading the file from the page cache (`cat FILE > /dev/null`), one
# hyperfine run per file with all three commands.
#   bench-trace.sh [FILE...]      (make bench-trace)
# Files: a 1 GiB file written by gentrace (16 CPUs, mixed mode, lost
# records; kept in build/trace-bench/; BENCH_NO_GEN=1 leaves it out), the
# real traces of probes/tests/data (recorded under QEMU), any
# build/trace-bench/real-*.xt and the FILEs given.
# Every command reads the file from the page cache (one warm-up run).
# Output: build/trace-bench/NAME.json (hyperfine's) and a Markdown table on
# stdout and in build/trace-bench/summary.md: wall (mean ± sd), user and
# system time of each command, xenalyze's time over ipibench's, and
# ipibench's read rate against cat's.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/trace-bench
mkdir -p "$out"
ipb=build/bin/ipibench
xa=build/bin/xenalyze
gen=build/bin/gentrace
big=$out/gen-1g.xt
runs=${BENCH_RUNS:-10}		# of ipibench and cat on big files
small_runs=${BENCH_SMALL_RUNS:-100}	# on files under 64 MB
files=()
if [ -z "${BENCH_NO_GEN:-}" ]; then
	[ -s "$big" ] || nice "$gen" --size 1G --cpus 16 --mode mixed --lost --seed 1 "$big"
	files+=("$big")
fi
files+=(probes/tests/data/*.xt)
for f in "$out"/real-*.xt; do [ -e "$f" ] && files+=("$f"); done
files+=("$@")
for f in "${files[@]}"; do
	[ -f "$f" ] || { echo "bench-trace: $f: no such file" >&2; exit 1; }
done
echo "bench-trace: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(hyperfine --version)" >&2
jsons=()
for f in "${files[@]}"; do
	name=$(basename "$f" .xt)
	bytes=$(stat -L -c %s "$f")
	n=$runs
	[ "$bytes" -lt $((64 << 20)) ] && n=$small_runs
	echo "bench-trace: $f ($bytes bytes, $n runs)" >&2
	# xenalyze warns on stderr about events it does not know; -i: it
	# exits non-zero on some traces.  Its runs are capped at n, and at 3
	# on big files (it takes about a minute a GiB).
	xn=$n
	[ "$bytes" -ge $((64 << 20)) ] && xn=3
	hyperfine -N -i --warmup 1 --runs "$n" --export-json "$out/$name.json" \
		--command-name ipibench "$ipb trace summary $f" \
		--command-name cat "cat $f" >/dev/null
	hyperfine -N -i --warmup 1 --runs "$xn" --export-json "$out/$name-xenalyze.json" \
		--command-name xenalyze "$xa --summary $f" >/dev/null
	jsons+=("$f" "$bytes" "$out/$name.json" "$out/$name-xenalyze.json")
done
python3 - "${jsons[@]}" <<'PY' | tee "$out/summary.md"
import json, sys
a = sys.argv[1:]
print("| file | MB | ipibench wall ms | user ms | sys ms | xenalyze wall ms | user+sys ms | "
      "xenalyze / ipibench (wall) | cat wall ms | ipibench GB/s | cat GB/s | ipibench / cat rate |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for i in range(0, len(a), 4):
    f, n = a[i], int(a[i + 1])
    r = {x["command"]: x for x in json.load(open(a[i + 2]))["results"]}
    r.update({x["command"]: x for x in json.load(open(a[i + 3]))["results"]})
    ip, xa, cat = r["ipibench"], r["xenalyze"], r["cat"]
    ms = lambda s: "%.2f" % (s * 1e3)
    print("| %s | %.2f | %s ± %s | %s | %s | %s ± %s | %s | %.1fx | %s | %.2f | %.2f | %.2f |" % (
        f, n / 1e6, ms(ip["mean"]), ms(ip["stddev"]), ms(ip["user"]), ms(ip["system"]),
        ms(xa["mean"]), ms(xa["stddev"]), ms(xa["user"] + xa["system"]),
        xa["mean"] / ip["mean"], ms(cat["mean"]), n / ip["mean"] / 1e9,
        n / cat["mean"] / 1e9, cat["mean"] / ip["mean"]))
PY
