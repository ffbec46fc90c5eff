#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make test-versions' versions/matrix: `ipibench run` of CONFIG (a
# [matrix] xen of two builds) into OUT, its report, and the checks that each
# build ran and that the report compares them ("Between builds").
#   scripts/test-matrix-xen.sh CONFIG OUT
set -euo pipefail
usage="usage: scripts/test-matrix-xen.sh CONFIG OUT   (run CONFIG, report it, check the comparison between builds)"
case "${1:-}" in -h|--help) echo "$usage"; exit 0 ;; esac
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
config=$1 out=$2
ipibench=${IPIBENCH:-build/bin/ipibench}
fail() { echo "test-matrix-xen: FAILED: $*" >&2; exit 1; }

rm -rf "$out"
"$ipibench" run -c "$config" -o "$out" -q || fail "ipibench run -c $config"
sets=("$out"/xen-*/results.json)
[ ${#sets[@]} -eq 2 ] && [ -f "${sets[0]}" ] ||
	fail "$out: ${#sets[@]} result sets, not one per build (${sets[*]})"
for s in "${sets[@]}"; do
	grep -q '"status": *"ok"' "$s" || fail "$s: no run is ok"
done
"$ipibench" report "$out"/xen-* -o "$out/report" || fail "ipibench report"
md=$out/report/report.md
grep -q '^## Between builds' "$md" || fail "$md: no 'Between builds' section"
grep -q 'baseline build `4.17`' "$md" || fail "$md: 4.17 is not the baseline of the comparison"
grep -q 'src-4.20.4' "$md" || fail "$md: the 4.20 build is not compared"
echo "test-matrix-xen: ok: $out/report/report.md compares builds 4.17 and src-4.20.4"
sed -n '/^## Between builds/,/^## /p' "$md" | head -40
