#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Debian's shellcheck on every tracked shell script: the *.sh
# files, the ones sourced by others (each says `# shellcheck shell=bash`),
# .ci/run, and every tracked file whose first line runs sh or bash (the
# package's maintainer scripts and autopkgtest, the host image's hooks).
# Warnings and errors fail; style notes (`A && B || C`, sed where ${//}
# would do) are not checked.  A finding that is wrong for a line is turned
# off on that line with a directive that says why.  First the checker on a
# sample, so that a shellcheck that finds nothing cannot pass for a clean
# tree.  Run by `make shell-lint` (a unit check of the tally).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
command -v shellcheck >/dev/null || { echo "FAIL shellcheck: not installed (make deps-test)"; exit 1; }

sample=$'#!/bin/bash\nx= y\nfor f in $(ls); do echo "$f"; done\n'
if shellcheck -S warning - <<<"$sample" >/dev/null 2>&1; then
	echo "FAIL sample: shellcheck passed a script with a warning in it"
	fails=$((fails + 1))
else
	echo "ok   sample: shellcheck -S warning fails on a warning"
fi

cd "$top" || exit 1
mapfile -t files < <({
	git ls-files '*.sh' .ci/run
	git ls-files -z | xargs -0 grep -lI -m1 -E '^#!(/usr/bin/env +)?(/bin/|/usr/bin/)?(ba)?sh\b' 2>/dev/null
} | sort -u)
if [ "${#files[@]}" -lt 40 ]; then
	echo "FAIL tree: only ${#files[@]} shell scripts found (git ls-files broken?)"
	exit 1
fi
for f in "${files[@]}"; do
	if out=$(shellcheck -x -P "$top" -S warning -f gcc "$f" 2>&1); then
		continue
	fi
	echo "FAIL $f:"
	sed 's/^/       /' <<<"$out"
	fails=$((fails + 1))
done
[ "$fails" -eq 0 ] && echo "ok   tree: shellcheck -S warning finds nothing in ${#files[@]} scripts"
exit $((fails > 0))
