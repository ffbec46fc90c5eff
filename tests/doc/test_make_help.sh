#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/doc/test_make_help.sh (make make-help-test): `make help` against
# the Makefile.  Every .PHONY target that is not internal (the Makefile's
# INTERNAL_TARGETS, or a per-test run with a '/' in its name) is named in
# `make help` as "make TARGET", and every target `make help` names is one
# the Makefile has.
set -uo pipefail
MAKE=${MAKE:-make}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
bad() { echo "make-help-test: FAILED: $*" >&2; fails=$((fails + 1)); }

# make's database, without running anything (-q: question mode; -n too).
$MAKE -pRrqn -f Makefile : >"$TMP/db" 2>/dev/null
grep -q '^\.PHONY:' "$TMP/db" || { echo "make-help-test: FAILED: no .PHONY in make -p's database" >&2; exit 1; }
sed -n 's/^\.PHONY: //p' "$TMP/db" | tr ' ' '\n' | grep -v '^$' | grep -v / | sort -u >"$TMP/phony"
internal=$(sed -n 's/^INTERNAL_TARGETS := //p' "$TMP/db")
[ -n "$internal" ] || { echo "make-help-test: FAILED: no INTERNAL_TARGETS in the Makefile" >&2; exit 1; }
# shellcheck disable=SC2086 # one target a word
printf '%s\n' $internal | sort -u >"$TMP/internal"
comm -23 "$TMP/phony" "$TMP/internal" >"$TMP/public"
# Every target of the database: "NAME:" lines that are not variables.
grep -E '^[A-Za-z0-9_./%-]+:([^=]|$)' "$TMP/db" | sed 's/:.*//' | sort -u >"$TMP/targets"

# Its stdout alone: under a parallel make, make's own warnings on stderr
# ("... Add '+' to parent make rule.") would read as a target it names.
$MAKE --no-print-directory help >"$TMP/help" 2>"$TMP/help.err" ||
	{ echo "make-help-test: FAILED: make help: exit $?: $(head -1 "$TMP/help.err")" >&2; exit 1; }
grep -oE '(^|[ ;:(])make [a-z][a-z0-9-]*' "$TMP/help" | sed -E 's/.*make //' | sort -u >"$TMP/named"
[ "$(wc -l <"$TMP/named")" -gt 10 ] || bad "make help names only $(wc -l <"$TMP/named") targets"

comm -23 "$TMP/public" "$TMP/named" | while read -r t; do
	echo "make help does not name the public target $t (or add it to INTERNAL_TARGETS)"
done >"$TMP/x"
comm -13 "$TMP/targets" "$TMP/named" | while read -r t; do
	echo "make help names $t, which the Makefile has not"
done >>"$TMP/x"
comm -12 "$TMP/internal" "$TMP/named" | while read -r t; do
	echo "make help names $t, which INTERNAL_TARGETS says is internal"
done >>"$TMP/x"
while read -r l; do bad "$l"; done <"$TMP/x"
[ "$fails" -eq 0 ] || { echo "make-help-test: $fails failures" >&2; exit 1; }
echo "make-help-test: $(wc -l <"$TMP/public") public targets, all in make help: ok"
