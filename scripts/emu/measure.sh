#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# scripts/emu/measure.sh CONFIG OUTDIR: `ipibench run -c CONFIG -o OUTDIR` (or
# `--resume OUTDIR` when OUTDIR has results) with scripts/emu/sample.py sampling
# its QEMU's threads into OUTDIR/samples.jsonl; ipibench's progress goes to
# OUTDIR/run.log, the host's uptime before and after to OUTDIR/host-*.txt.
# Then: scripts/emu/summary.py OUTDIR...
set -u
here=$(dirname "$0")
C=$1 O=$2
mkdir -p "$O"
{ uptime; date -u; } >> "$O/host-before.txt"
if [ -f "$O/results.json" ]; then
	build/bin/ipibench run --resume "$O" >> "$O/run.log" 2>&1 &
else
	build/bin/ipibench run -c "$C" -o "$O" >> "$O/run.log" 2>&1 &
fi
P=$!
python3 "$here/sample.py" "$P" "$O/samples.jsonl" &
S=$!
wait "$P"; rc=$?
echo "rc=$rc" >> "$O/run.log"
wait "$S"
{ uptime; date -u; } >> "$O/host-after.txt"
exit "$rc"
