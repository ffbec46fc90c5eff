#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The words test (tests/lint/words.py says what it refuses and why): first
# the checker on its fixture (each forbidden form flagged with its rule, the
# clean sample not at all) and on a folder of one bad manual page, then the
# tracked tree and the generated manual pages (MANDIR, the argument:
# build/man from `make man`).  Run by `make words-lint`, a unit check of the
# tally; exits 1 on any finding.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mandir=${1:-}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
command -v python3 >/dev/null || { echo "FAIL python3 not found (make deps)"; exit 1; }
words="python3 $top/tests/lint/words.py"

$words --self-test "$top/tests/lint/data/words" || fails=$((fails + 1))

# The folder mode, as the manual pages are checked: a finding names the
# file, the line and the rule, and the status is 1.
mkdir -p "$t/man/man1"
printf '.TH X 1 2026-12-06\n.SH NOTES\nSee issue 17.\n' >"$t/man/man1/x.1"
printf '.TH Y 1\n.SH NOTES\nSee docs/ci.md.\n' >"$t/man/man1/y.1"
out=$($words --dir "$t/man"); rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c ': issue-ref: ' <<<"$out")" -eq 1 ] &&
   grep -F "$t/man/man1/x.1:3: issue-ref: See issue 17." <<<"$out" >/dev/null; then
	echo "ok   folder: the bad page's line 3 found, the clean page not"
else
	echo "FAIL folder: status $rc, output:"
	sed 's/^/       /' <<<"$out"
	fails=$((fails + 1))
fi

# The tree, then the manual pages if they were generated.
dirs=()
if [ -n "$mandir" ]; then
	if [ -d "$mandir" ]; then
		dirs+=("$mandir")
	else
		echo "FAIL $mandir: no manual pages there (make man builds them)"
		fails=$((fails + 1))
	fi
fi
if $words --tree "$top" "${dirs[@]}"; then
	echo "ok   tree: no words about how the project was developed"
else
	echo "FAIL tree: the findings above (link a document in docs/ or a commit instead)"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "test_words: $fails failed"; exit 1; }
