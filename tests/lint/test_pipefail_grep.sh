#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Under `set -o pipefail`, `PRODUCER | grep -q PATTERN` fails when it
# matches: grep exits at the first match, the producer's next write gets
# SIGPIPE (exit 141), and pipefail makes that the pipeline's status.  It
# bites only when the producer still has output left after the match (a
# console log of many MB did, in CI at 6792b7e: "FAIL seed-004: ipibench
# run: IPB-RUN seed-004 rc=0").  The cure is `grep PATTERN >/dev/null`,
# which reads to the end.  This check refuses the pattern in every tracked
# shell script that sets pipefail, after showing on a sample that the
# pattern really fails and the cure really passes.  Run by `make
# shell-lint` (a unit check of the tally); exits 1 on any finding.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0

# The failure itself, so the rule below stays justified: 1 MiB after the match.
{ echo match; head -c 1048576 /dev/zero | tr '\0' x; echo; } >"$t/big"
if cat "$t/big" | grep -q match; then
	echo "FAIL sample: PRODUCER | grep -q passed under pipefail (the rule has no reason left)"
	fails=$((fails + 1))
else
	echo "ok   sample: PRODUCER | grep -q fails under pipefail though it matched (status ${PIPESTATUS[0]})"
fi
if cat "$t/big" | grep match >/dev/null; then
	echo "ok   sample: PRODUCER | grep >/dev/null passes"
else
	echo "FAIL sample: PRODUCER | grep >/dev/null failed"
	fails=$((fails + 1))
fi

# find FILE...: the offending lines, as FILE:LINE: TEXT.  A pipe, then grep
# (not ||) with -q somewhere in a cluster of short options, or --quiet or
# --silent.
find_bad() {
	grep -nE '(^|[^|])\|[[:space:]]*grep([[:space:]]+-[[:alnum:]-]+)*[[:space:]]+(-[[:alpha:]]*[qs][[:alpha:]]*|--quiet|--silent)([[:space:]]|$)' "$@" /dev/null
}

# The finder on a fixture: it must find the bad lines and only them.
cat >"$t/fixture.sh" <<'FIX'
set -uo pipefail
plain | grep -aq "IPB-RUN rc=0" && echo yes
x | grep -E -q foo
x | grep --quiet foo
x | grep -a foo >/dev/null
grep -qE -- "$4" <<<"$l"
x | grep -o -- '-q'
[ -n "$x" ] || grep -q foo bar
FIX
got=$(find_bad "$t/fixture.sh" | cut -d: -f2 | tr '\n' ' ')
if [ "$got" = "2 3 4 " ]; then
	echo "ok   finder: finds lines 2-4 of the fixture, not 5-8"
else
	echo "FAIL finder: found lines '$got' of the fixture, want '2 3 4 '"
	fails=$((fails + 1))
fi

# The tree: every tracked shell script that sets pipefail.
cd "$top" || exit 1
n=0
while IFS= read -r f; do
	[ "$f" = tests/lint/test_pipefail_grep.sh ] && continue	# its sample and fixture
	grep -qE '^[[:space:]]*set[[:space:]]+-[[:alpha:]]*o[[:space:]]+pipefail|set -o pipefail' "$f" || continue
	n=$((n + 1))
	bad=$(find_bad "$f")
	if [ -n "$bad" ]; then
		echo "FAIL $f: a pipe into grep -q under pipefail (use grep ... >/dev/null):"
		sed 's/^/       /' <<<"$bad"
		fails=$((fails + 1))
	fi
done < <(git ls-files '*.sh' .ci/run)
if [ "$n" -lt 10 ]; then
	echo "FAIL tree: only $n scripts with pipefail found (git ls-files broken?)"
	fails=$((fails + 1))
else
	echo "ok   tree: $n scripts that set pipefail checked"
fi
[ "$fails" -eq 0 ] || { echo "test_pipefail_grep: $fails failed"; exit 1; }
echo "test_pipefail_grep: all passed"
