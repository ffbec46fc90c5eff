#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The parts' boundaries (tests/lint/layering.py says what it checks): first
# the checker on its fixture trees (tests/lint/data/layering: the findings
# each must give, or none), then the tracked tree against docs/design.md's
# Source layout table.  Run by `make layering-lint`, a unit check of the
# tally; exits 1 on any finding.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
command -v python3 >/dev/null || { echo "FAIL python3 not found (make deps)"; exit 1; }

python3 "$top/tests/lint/layering.py" --self-test "$top/tests/lint/data/layering" || fails=$((fails + 1))
if python3 "$top/tests/lint/layering.py" --tree "$top"; then
	echo "ok   tree: each part includes of another only its public headers"
else
	echo "FAIL tree: the findings above"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "test_layering: $fails failed"; exit 1; }
