#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The CODING_STYLE check of the hypervisor series (tests/lint/xen_style.py
# says what it checks) on its fixture, tests/lint/data/xen_style: the good
# patch (every construct Xen's style allows, a file in Linux's tab style,
# a non-C file) has no finding; the bad one has exactly the findings of
# bad.expect, one or more of each rule; the same two patches as commits of
# a git tree (--git) give the same findings, named by the bad commit.  Run
# by `make xen-style-test`, a unit check of the tally; exits 1 on a
# failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
data=$top/tests/lint/data/xen_style
style="python3 $top/tests/lint/xen_style.py"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "FAIL python3 not found (make deps)"; exit 1; }

cd "$data" || exit 1
out=$($style good.patch); rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
	ok "good.patch: no finding, status 0"
else
	bad "good.patch: status $rc, findings:"; sed 's/^/       /' <<<"$out"
fi

$style bad.patch >"$t/bad.out"; rc=$?
if [ "$rc" -eq 1 ] && diff -u bad.expect "$t/bad.out" >"$t/diff"; then
	ok "bad.patch: status 1, the $(wc -l <bad.expect) findings of bad.expect"
else
	bad "bad.patch: status $rc, against bad.expect:"; sed 's/^/       /' "$t/diff"
fi
# Every rule of the checker is in the bad sample's findings.
rules=$(sed -n 's/^  \([a-z-]\{1,\}\) .*/\1/p' "$top/tests/lint/xen_style.py" | sort -u)
missing=$(comm -23 <(echo "$rules") <(awk -F': ' '{print $3}' bad.expect | sort -u) | grep -v '^tab-file$')
if [ -n "$rules" ] && [ -z "$missing" ]; then
	ok "bad.expect has every rule: $(echo $rules)"
else
	bad "rules no bad sample shows: ${missing:-(no rule list in xen_style.py)}"
fi

# A file in tab style with a space-indented added line: tab-file.
sed -e 's/^+\t\ta++;$/+        a++;/' good.patch >"$t/tabfile.patch"
out=$($style "$t/tabfile.patch"); rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q 'genapic/linux.c:[0-9]*: tab-file: ' <<<"$out"; then
	ok "a space-indented line in a tab-indented file: tab-file"
else
	bad "tab-file: status $rc, findings:"; sed 's/^/       /' <<<"$out"
fi

# The git mode: the new files of each patch as a commit of a tree (all
# of bad.expect's findings are in new files).
newfiles() { # PATCH DIR: write the patch's new files under DIR
	awk -v d="$2" '/^diff --git /{f=""; n=0} /^new file mode/{n=1}
		n && /^\+\+\+ b\//{f=d "/" substr($0, 7); system("mkdir -p \"$(dirname \"" f "\")\""); printf "" >f; next}
		f && /^\+/{print substr($0, 2) >>f}' "$1"
}
git init -q "$t/tree" && git -C "$t/tree" -c user.name=t -c user.email=t@t commit -q --allow-empty -m base &&
	newfiles "$data/good.patch" "$t/tree" &&
	git -C "$t/tree" add -A && git -C "$t/tree" -c user.name=t -c user.email=t@t commit -qm good &&
	newfiles "$data/bad.patch" "$t/tree" && git -C "$t/tree" add -A &&
	git -C "$t/tree" -c user.name=t -c user.email=t@t commit -qm bad || bad "the fixture's tree: git failed"
badc=$(git -C "$t/tree" rev-parse --short=12 HEAD 2>/dev/null)
$style --git "$t/tree" HEAD~2..HEAD >"$t/git.out"; rc=$?
if [ "$rc" -eq 1 ] && [ -n "$badc" ] &&
   [ "$(cut -d: -f1 "$t/git.out" | sort -u)" = "$badc" ] &&
   diff -u <(cut -d' ' -f2- bad.expect) <(cut -d' ' -f2- "$t/git.out") >"$t/diff"; then
	ok "--git: the bad commit ($badc) alone, with bad.expect's findings"
else
	bad "--git: status $rc, output:"; sed 's/^/       /' "$t/git.out" "$t/diff"
fi
$style --git "$t/tree" HEAD~2..HEAD~1 >"$t/git.out"; rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$t/git.out" ] && ok "--git of the good commit: no finding" ||
	bad "--git of the good commit: status $rc, output: $(cat "$t/git.out")"
$style --git "$t/tree" no-such-ref.. >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] && ok "--git of a bad range: status 2" || bad "--git of a bad range: status $rc, not 2"
[ "$fails" -eq 0 ] || { echo "test_xen_style: $fails failed"; exit 1; }
