#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Exercise .gitlab-ci.yml for real with gitlab-ci-local (shell executor) in a
# scratch clone of HEAD, on fixture results:
#   1. the whole pipeline: the emulated host's bench job (IPIBENCH_BENCH_CMD
#      copies a fixture instead of `make bench`), each real host's dom0,
#      matrix-start and matrix-collect jobs, pages, regressions -> all pass.
#      The real hosts' jobs run analysis/ci.sh's steps for real against
#      analysis/tests/ci_host_standin.sh as the installed `ipibench` (on
#      PATH: its host check, host status and run, with fixture results) and
#      the package's two configs (copies of configs/host-*.ini); the
#      reboots are the stand-in's too: IPIBENCH_REBOOT_CMD starts its
#      "boots" in the background (about 8 s), which end the matrix as
#      ipibench-resume.service would.  `make` and `qemu-system-x86_64` on
#      PATH fail: a real host has no build tree and no QEMU.  Checked: the
#      order of the host's calls, that collect waited for the matrix, the
#      artifacts, the reports of both result sets;
#   1b. the same host refusing the configs (host check), a matrix that
#      never ends (collect's bound), a run of the matrix failed -> each
#      fails the pipeline in the job that should;
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
# The stand-in test host (analysis/tests/ci_host_standin.sh): its installed
# binary and configs, its results directory, a make and a QEMU that fail.
box=$work/box
mkdir -p "$box/bin" "$box/usr/share/ipibench/configs"
ln -s "$top/analysis/tests/ci_host_standin.sh" "$box/bin/ipibench"
for t in make qemu-system-x86_64; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/forbidden"\necho "%s: not on a test host" >&2\nexit 1\n' "$t" "$box" "$t" >"$box/bin/$t"
	chmod +x "$box/bin/$t"
done
cp "$work/repo/configs/host-dom0.ini" "$work/repo/configs/host-matrix.ini" "$box/usr/share/ipibench/configs/" || exit 1
jq 'del(.runs[] | select(.status != "ok"))' "$top/analysis/tests/data/three-mode/results.json" >"$box/results.json"
gcl() { PATH=$box/bin:$PATH IPIBENCH_CI_CWD=$work/repo nice bash "$top/analysis/ci-local.sh" --shell-isolation \
	--variable "IPIBENCH=$bin" \
	--variable "IPIBENCH_DOM0_CONFIG=$box/usr/share/ipibench/configs/host-dom0.ini" \
	--variable "IPIBENCH_MATRIX_CONFIG=$box/usr/share/ipibench/configs/host-matrix.ini" \
	--variable "IPIBENCH_HOST_RESULTS=$box/\$HOST_TAG/results" --variable "STANDIN_BOX=$box" \
	--variable "STANDIN_RESULTS=$box/results.json" \
	--variable 'IPIBENCH_REBOOT_CMD=setsid ipibench resume </dev/null >/dev/null 2>&1 &' \
	"$@" >"$work/log" 2>&1; }
expect() {	# expect WHAT RC WANT
	if [ "$2" -eq "$3" ]; then echo "ok   $1"; else
		echo "FAIL $1 (status $2, wanted $3)"; tail -20 "$work/log"; fails=$((fails + 1)); fi
}
pub=$work/repo/.gitlab-ci-local/artifacts/pages/public

bench_cmd='echo "bench-config $HOST_TAG $IPIBENCH_CONFIG insn_counts=$(sed -n "s/^insn_counts *= *//p" "$IPIBENCH_CONFIG")" && mkdir -p results/fake-$HOST_TAG && cp analysis/tests/data/three-mode/results.json results/fake-$HOST_TAG/'
gcl --variable "IPIBENCH_BENCH_CMD=$bench_cmd" --variable CI_PIPELINE_ID=1001 --variable IPIBENCH_MATRIX_WAIT=120 \
	--needs regressions
expect "full pipeline (bench, the real hosts' jobs, pages, regressions) passes" $? 0
n=$(grep -c 'PASS  bench: \[' "$work/log")
expect "one bench job: the emulated host" "$n" 1
grep -q 'bench-config qemu-tcg configs/emu-insn16.ini insn_counts=true' "$work/log"
expect "the emulated host runs a config with insn_counts on" $? 0
for t in xen-x86-96cpu xen-x86-40cpu; do
	for j in dom0 matrix-start matrix-collect; do
		grep -q "PASS  $j:$t" "$work/log"
		expect "$j:$t passes" $? 0
	done
done
# The template's defaults: the package's configs, not a build tree's.
grep -q '^  IPIBENCH_DOM0_CONFIG: /usr/share/ipibench/configs/host-dom0.ini$' "$work/repo/.gitlab-ci.yml" &&
	grep -q '^  IPIBENCH_MATRIX_CONFIG: /usr/share/ipibench/configs/host-matrix.ini$' "$work/repo/.gitlab-ci.yml"
expect "the real hosts' configs default to the installed package's" $? 0
c=/usr/share/ipibench/configs
for t in xen-x86-96cpu xen-x86-40cpu; do
	R=$box/$t/results/ci-1001
	want="ipibench host check -c $box$c/host-dom0.ini
ipibench run -c $box$c/host-dom0.ini -o $R-dom0
ipibench host check -c $box$c/host-matrix.ini
ipibench run -c $box$c/host-matrix.ini -o $R-matrix
ipibench resume
ipibench run: matrix finished"
	got=$(grep -v 'host status' "$box/$t/calls" | sed 's/ (stand-in)$//')
	[ "$got" = "$want" ]
	expect "$t: host check, the dom0 run, host check, the matrix run, its boots, in that order" $? 0
	[ "$got" = "$want" ] || echo "$got" | sed 's/^/     /'
done
[ ! -e "$box/forbidden" ]
expect "... no make, no QEMU on the real hosts" $? 0
grep -q 'ci.sh: matrix pending in .*/results/ci-1001-matrix; the host reboots in 30 s' "$work/log"
expect "matrix-start ends with the matrix pending, its reboot delayed" $? 0
grep -qF 'systemd-run --on-active=${IPIBENCH_REBOOT_DELAY:-30} systemctl reboot' "$work/repo/analysis/ci.sh"
expect "... whose real reboot command is systemd's delayed one" $? 0
grep -q 'ci.sh: waiting for the matrix to finish (pending: ' "$work/log" &&
	grep -Eq 'ci.sh: no matrix pending after [1-9][0-9]* s' "$work/log"
expect "matrix-collect waited for the stand-in's boots, then collected" $? 0
# gitlab-ci-local names a job's artifact folder after the job, ':' encoded.
art() { find "$work/repo/.gitlab-ci-local/artifacts" -path "*$1*/ci-results/$2/results.json" | grep . >/dev/null; }
for t in xen-x86-96cpu xen-x86-40cpu; do
	art dom0 "$t/dom0" && art matrix-collect "$t/matrix"
	expect "artifacts: ci-results/$t/dom0 and ci-results/$t/matrix" $? 0
	[ -s "$pub/reports/1001-$t-dom0/report.md" ] && [ -s "$pub/reports/1001-$t-matrix/report.md" ]
	expect "pages: a report of each ($t)" $? 0
done
[ -s "$pub/index.html" ] && grep -q '<img src="history-' "$pub/index.html"
expect "pages published index.html with history plots" $? 0

# 1b. The real hosts' failures fail the pipeline where they happen.
rm -rf "$box"/xen-*
gcl --variable "IPIBENCH_BENCH_CMD=$bench_cmd" --variable CI_PIPELINE_ID=1002 --variable STANDIN_REFUSE=1 \
	--needs regressions
expect "host check refuses the config: the pipeline fails" $? 1
grep -q 'FAIL  dom0:xen-x86-96cpu' "$work/log" && grep -q 'ipibench host check refuses .*host-dom0.ini' "$work/log"
expect "... in the dom0 job, which says so" $? 0
grep -q '^ipibench run ' "$box"/xen-*/calls
expect "... before any run" $? 1
rm -rf "$box"/xen-*
gcl --variable CI_PIPELINE_ID=1003 --variable STANDIN_HANG=1 --variable IPIBENCH_MATRIX_WAIT=6 \
	matrix-start:xen-x86-96cpu matrix-collect:xen-x86-96cpu
expect "a matrix that never ends: the pipeline fails" $? 1
grep -q 'FAIL  matrix-collect:xen-x86-96cpu' "$work/log" &&
	grep -q 'the matrix is still pending after 6 s (IPIBENCH_MATRIX_WAIT)' "$work/log"
expect "... in matrix-collect, at its bound" $? 0
rm -rf "$box"/xen-*
gcl --variable CI_PIPELINE_ID=1004 --variable STANDIN_FAIL_RUN=1 \
	matrix-start:xen-x86-96cpu matrix-collect:xen-x86-96cpu
expect "a run of the matrix failed: the pipeline fails" $? 1
grep -q 'results.json: runs not ok: physical-r0: failed' "$work/log"
expect "... matrix-collect names the run" $? 0
art matrix-collect xen-x86-96cpu/matrix
expect "... and keeps its results as artifacts" $? 0
rm -rf "$box"/xen-*

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
