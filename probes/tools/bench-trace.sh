#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Speed of `ipibench trace summary` against xenalyze's summary and against
# reading the file from the page cache (`cat FILE > /dev/null`): wall, user
# and system time of all three on the same files, in one run.
#   bench-trace.sh [FILE...]      (make bench-trace)
# Files: a 1 GiB file written by gentrace (16 CPUs, mixed mode, lost
# records; kept in build/trace-bench/; BENCH_NO_GEN=1 leaves it out), the
# real traces of probes/tests/data (recorded under QEMU; its *.xt.xz, the
# two 2 MB recordings and the HVM ones, are unpacked into
# build/trace-bench/), any other build/trace-bench/real-*.xt (e.g.
# record-qemu.sh's xentrace.xt and ipibench.xt copied there) and the FILEs
# given.  xenalyze runs with --svm-mode: the HVM fixtures come from QEMU's
# emulated SVM, and in its default VMX mode xenalyze stops at their first
# exit code (1.2 against 7.8 ms on hvm-pvh-ipbipi-kernel); the other files
# take the same time either way.
# Every command reads the file from the page cache (one warm-up run).
# Output: build/trace-bench/NAME.json (hyperfine's) and a Markdown table on
# stdout and in build/trace-bench/summary.md: per command the median wall
# time and the mean user and system time; xenalyze's time over ipibench's
# and ipibench's read rate over cat's, by wall time and by CPU time
# (user + system: on a loaded machine the steadier of the two), and
# ipibench's maximum resident size (one run under /usr/bin/time: memory
# stays flat).  Then the instructions each executes (valgrind's
# cachegrind, all threads: exact, whatever else the machine runs) and
# their ratio; xenalyze's only on files under BENCH_XA_INSN_MAX bytes
# (64 MB: it runs about 50 times slower under valgrind).  The first lines
# give the commit measured (`git describe --always --dirty`), the
# machine's CPUs, and the floor every process pays here:
# `ipibench --version`.
# BENCH_NO_INSN=1 leaves the instruction counts out.
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
# The real recordings committed xz-compressed, unpacked beside the others.
unpacked=()
for z in probes/tests/data/*.xt.xz; do
	[ -e "$z" ] || continue
	x=$out/$(basename "$z" .xz)
	[ "$x" -nt "$z" ] || xz -dc "$z" >"$x"
	unpacked+=("$x")
	files+=("$x")
done
for f in "$out"/real-*.xt; do
	[ -e "$f" ] || continue
	[[ " ${unpacked[*]} " == *" $f "* ]] || files+=("$f")
done
files+=("$@")
for f in "${files[@]}"; do
	[ -f "$f" ] || { echo "bench-trace: $f: no such file" >&2; exit 1; }
done
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
echo "bench-trace: commit $commit, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(hyperfine --version)" >&2
# Instructions of CMD... (cachegrind: all threads), or "-" without valgrind's count.
insns() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		awk '/I *refs:/ { gsub(",", "", $NF); n = $NF } END { print n ? n : "-" }'
}
hyperfine -N --warmup 3 --runs "$small_runs" --export-json "$out/start.json" \
	--command-name start "$ipb --version" >/dev/null
jsons=("$out/start.json")
for f in "${files[@]}"; do
	name=$(basename "$f" .xt)
	bytes=$(stat -L -c %s "$f")
	n=$runs
	[ "$bytes" -lt $((64 << 20)) ] && n=$small_runs
	echo "bench-trace: $f ($bytes bytes, $n runs)" >&2
	# xenalyze warns on stderr about events it does not know; -i: it
	# exits non-zero on some traces.  Its runs are capped at n, and at
	# BENCH_BIG_XA_RUNS (3) without a warm-up on big files (it takes about
	# a minute a GiB; the runs above left the file in the page cache).
	xn=$n xw=1
	[ "$bytes" -ge $((64 << 20)) ] && xn=${BENCH_BIG_XA_RUNS:-3} xw=0
	hyperfine -N -i --warmup 1 --runs "$n" --export-json "$out/$name.json" \
		--command-name ipibench "$ipb trace summary $f" \
		--command-name cat "cat $f" >/dev/null
	hyperfine -N -i --warmup "$xw" --runs "$xn" --export-json "$out/$name-xenalyze.json" \
		--command-name xenalyze "$xa --svm-mode --summary $f" >/dev/null
	rss=$(/usr/bin/time -f %M "$ipb" trace summary "$f" 2>&1 >/dev/null | tail -n 1)
	ii=- xi=-
	if [ -z "${BENCH_NO_INSN:-}" ]; then
		ii=$(insns "$ipb" trace summary "$f")
		[ "$bytes" -ge "${BENCH_XA_INSN_MAX:-$((64 << 20))}" ] ||
			xi=$(insns "$xa" --svm-mode --summary "$f")
	fi
	jsons+=("$f" "$bytes" "$out/$name.json" "$out/$name-xenalyze.json" "$rss" "$ii" "$xi")
done
python3 - "$commit" "$(nproc)" "${jsons[@]}" <<'PY' | tee "$out/summary.md"
import json, sys
commit, ncpu = sys.argv[1:3]
a = sys.argv[3:]
print("`make bench-trace` at commit %s, %s CPUs.\n" % (commit, ncpu))
start = json.load(open(a[0]))["results"][0]
ms = lambda s: "%.2f" % (s * 1e3)
cpu = lambda x: x["user"] + x["system"]
print("Process start (`ipibench --version`): %s ms wall (median), %s ms user + sys.\n" % (
    ms(start["median"]), ms(cpu(start))))
print("| file | MB | ipibench wall ms | user | sys | xenalyze wall ms | user | sys | "
      "cat wall ms | user | sys | xenalyze / ipibench wall | CPU | ipibench / cat rate wall | CPU "
      "| ipibench max RSS MB | ipibench instructions | xenalyze instructions | xenalyze / ipibench instructions |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
a = a[1:]
for i in range(0, len(a), 7):
    f, n = a[i], int(a[i + 1])
    r = {x["command"]: x for x in json.load(open(a[i + 2]))["results"]}
    r.update({x["command"]: x for x in json.load(open(a[i + 3]))["results"]})
    ip, xa, cat = r["ipibench"], r["xenalyze"], r["cat"]
    row = [f, "%.2f" % (n / 1e6)]
    for x in (ip, xa, cat):
        row += [ms(x["median"]), ms(x["user"]), ms(x["system"])]
    row += ["%.1fx" % (xa["median"] / ip["median"]), "%.1fx" % (cpu(xa) / cpu(ip)),
            "%.2f" % (cat["median"] / ip["median"]), "%.2f" % (cpu(cat) / cpu(ip)),
            "%.1f" % (int(a[i + 4]) / 1024)]
    ii, xi = a[i + 5], a[i + 6]
    row += [ii, xi, "%.1fx" % (int(xi) / int(ii)) if ii != "-" and xi != "-" else "-"]
    print("| " + " | ".join(row) + " |")
PY
