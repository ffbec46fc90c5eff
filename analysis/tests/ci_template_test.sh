#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Exercise .gitlab-ci.yml for real with gitlab-ci-local (shell executor) in a
# scratch clone of HEAD, on fixture results:
#   1. the whole pipeline: bench x 3 host tags (IPIBENCH_BENCH_CMD copies a
#      fixture instead of `make bench`), pages, regressions -> all pass;
#   2. pages + regressions on history sets 1-2 -> no regression;
#   3. pages + regressions on set 3 with sets 1-2 fetched back as the
#      previous pipeline's public/results.tar.gz -> the injected slowdown is
#      the newest set: regressions must FAIL, pages must pass;
#   4. the same with instruction counts: the emulated host's results of the
#      base build, then of the build with extra send-loop work
#      (analysis/tests/data/history-insn/) -> regressions must FAIL on the
#      send path's counts (its per-call minimum, exact);
#   5. an A/A pair on the emulated host: the base build's results, then the
#      same results with every timed loop 2.2 times slower (the boot-to-boot
#      spread of one build under load) -> the pipeline passes: emulated
#      times never gate.
# Needs a built ipibench (IPIBENCH, default build/bin/ipibench).
#   analysis/tests/ci_template_test.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${IPIBENCH:-$top/build/bin/ipibench}
[ -x "$bin" ] || { echo "ci_template_test: $bin not built" >&2; exit 1; }
bash "$top/analysis/ci-local.sh" install >/dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$top" "$work/repo" || exit 1
H=analysis/tests/data/history
fails=0
gcl() { IPIBENCH_CI_CWD=$work/repo nice bash "$top/analysis/ci-local.sh" --shell-isolation \
	--variable "IPIBENCH=$bin" "$@" >"$work/log" 2>&1; }
expect() {	# expect WHAT RC WANT
	if [ "$2" -eq "$3" ]; then echo "ok   $1"; else
		echo "FAIL $1 (status $2, wanted $3)"; tail -20 "$work/log"; fails=$((fails + 1)); fi
}
pub=$work/repo/.gitlab-ci-local/artifacts/pages/public

gcl --variable 'IPIBENCH_BENCH_CMD=echo "bench-config $HOST_TAG $IPIBENCH_CONFIG insn_counts=$(sed -n "s/^insn_counts *= *//p" "$IPIBENCH_CONFIG")" && mkdir -p results/fake-$HOST_TAG && cp analysis/tests/data/three-mode/results.json results/fake-$HOST_TAG/' \
	--needs regressions
expect "full pipeline (bench x3, pages, regressions) passes" $? 0
n=$(grep -c 'PASS  bench: \[' "$work/log")
expect "three bench jobs from the host tag matrix" "$n" 3
grep -q 'bench-config qemu-tcg configs/emu-insn16.ini insn_counts=true' "$work/log"
expect "the emulated host runs a config with insn_counts on" $? 0
grep -q 'bench-config xen-x86-96cpu configs/seed-96cpu.ini insn_counts=$' "$work/log"
expect "... the others the seed's config, without" $? 0
[ -s "$pub/index.html" ] && grep -q '<img src="history-' "$pub/index.html"
expect "pages published index.html with history plots" $? 0

gcl --variable "IPIBENCH_CI_RESULTS=$H/set1 $H/set2" --variable CI_PIPELINE_ID=2001 pages regressions
expect "sets 1-2: pages and regressions pass" $? 0
cp "$pub/results.tar.gz" "$work/prev.tar.gz"

gcl --variable "IPIBENCH_CI_RESULTS=$H/set3" --variable CI_PIPELINE_ID=2002 \
	--variable "IPIBENCH_HISTORY_URL=file://$work/prev.tar.gz" pages regressions
expect "set 3 (injected slowdown) fails the pipeline" $? 1
grep -q 'PASS  pages' "$work/log"
expect "... pages still published" $? 0
grep -q 'FAIL  regressions' "$work/log"
expect "... the regressions job is the one that failed" $? 0
grep -q 'previous history from file://.*: 2 result sets' "$work/log"
expect "... history merged with the previous pipeline's 2 sets" $? 0
grep -q 'flush, mixed: sets/2002-set3/results.json' "$pub/history.md"
expect "... and flags set3 flush/mixed" $? 0

# 4. The emulated host's instruction counts: the results of make hv's build
#    and of make hv-inject's (extra work per destination in the send loops;
#    test_insn_inject's config, kept as fixtures) in two pipelines: the
#    second fails on the send path's instruction counts.
I=analysis/tests/data/history-insn
gcl --variable "IPIBENCH_CI_RESULTS=$I/base" --variable CI_PIPELINE_ID=3001 pages regressions
expect "insn counts, base build: pages and regressions pass" $? 0
cp "$pub/results.tar.gz" "$work/prev-insn.tar.gz"
gcl --variable "IPIBENCH_CI_RESULTS=$I/injected" --variable CI_PIPELINE_ID=3002 \
	--variable "IPIBENCH_HISTORY_URL=file://$work/prev-insn.tar.gz" pages regressions
expect "insn counts, injected build: the pipeline fails" $? 1
grep -q 'FAIL  regressions' "$work/log"
expect "... in the regressions job" $? 0
for m in physical mixed; do
	grep -q "^- qemu-tcg-itest-inject, 16 CPUs, flush, $m: sets/3002-injected/results.json .*send path instructions (minimum per operation) 10[48][14] (was 9[37][96], +105)" "$pub/history.md"
	expect "... which names the flush send path's instruction counts ($m)" $? 0
done
grep -q '^Instruction counts (6 series): ' "$pub/history.md"
expect "... in the history's instruction-count table" $? 0

# 5. A/A on the emulated host: one build, the second boot's loops 2.2x slower.
mkdir -p "$work/aa"
jq '(.runs[].workloads[].loops[]?.ns) |= (. * 2.2 | floor)' "$I/base/results.json" >"$work/aa/results.json"
gcl --variable "IPIBENCH_CI_RESULTS=$I/base" --variable CI_PIPELINE_ID=4001 pages regressions
expect "A/A emulated, first pipeline passes" $? 0
cp "$pub/results.tar.gz" "$work/prev-aa.tar.gz"
gcl --variable "IPIBENCH_CI_RESULTS=$work/aa" --variable CI_PIPELINE_ID=4002 \
	--variable "IPIBENCH_HISTORY_URL=file://$work/prev-aa.tar.gz" pages regressions
expect "A/A emulated, loops 2.2x slower: the pipeline passes" $? 0
grep -q 'emulated: no verdict' "$pub/history.md"
expect "... the times shown without a verdict" $? 0

echo "ci_template_test: $fails failed"
[ "$fails" -eq 0 ]
