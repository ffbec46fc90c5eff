#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Per-event record counts of a xentrace file as xenalyze sees them:
#   xenalyze-counts.sh [XENALYZE] FILE    -> lines "0x<event> <count>", sorted
# From `xenalyze --dump-raw-process` (one "* <event> ..." line per record it
# processes).  cpu_change records are not processed as events by xenalyze,
# and 0x1f032 is its own synthetic lost_records_end (not in the file): both
# are left out.  Used to make/refresh probes/tests/data/*.xenalyze, which
# test_xenalyze.c compares with `trace summary`.
# --svm-mode: the HVM fixtures come from an emulated AMD host (QEMU TCG's
# SVM); in its default VMX mode xenalyze stops at the first SVM exit code
# above VMX's highest.  Files without HVM records count the same either way.
set -euo pipefail
xa=build/bin/xenalyze
[ $# -eq 2 ] && { xa=$1; shift; }
[ $# -eq 1 ] || { echo "usage: xenalyze-counts.sh [XENALYZE] FILE" >&2; exit 2; }
"$xa" --svm-mode --dump-raw-process "$1" 2>/dev/null |
	awk '$1 == "*" && $2 != "1f032" { c[$2]++ }
	     END { for (k in c) printf "0x%s %d\n", substr("00000000" k, length(k) + 1), c[k] }' |
	sort
