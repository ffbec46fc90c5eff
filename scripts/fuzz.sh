#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One libFuzzer run (make fuzz, make fuzz-smoke; the Makefile's fuzz section).
#   scripts/fuzz.sh BIN SECONDS SEEDS [OPTION...]
# OPTIONs (a target's FUZZ_OPTS_<name>: a dictionary, tighter memory limits)
# come after the defaults, so they win.
# Starts from SEEDS (the committed corpus) and BIN's working corpus
# DIR/corpus-NAME (DIR, NAME: BIN's folder and name), which keeps what it
# finds; a crash, a leak, a timeout or a broken invariant fails with the
# input left in DIR/NAME-crash-* (-timeout-*, -oom-*, -leak-*).
set -euo pipefail
bin=${1:?usage: scripts/fuzz.sh BIN SECONDS SEEDS}
secs=${2:?usage: scripts/fuzz.sh BIN SECONDS SEEDS}
seeds=${3:-}
shift 3 || true
name=$(basename "$bin")
dir=$(dirname "$bin")
[ -n "$seeds" ] && [ -d "$seeds" ] || {
	echo "fuzz: $name: no seed corpus '$seeds' (set FUZZ_CORPUS_$name in its .mk)" >&2
	exit 1
}
mkdir -p "$dir/corpus-$name"
echo "fuzz: $secs s on $bin (corpus $dir/corpus-$name, seeds $seeds)"
set +e
nice "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$dir/$name-" "$@" "$dir/corpus-$name" "$seeds" 2>&1 |
	tail -n 30
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
	echo "fuzz: $name FAILED (status $rc); the input is in $dir/$name-* (crash-, timeout-, oom-, leak-)"
	exit 1
fi
