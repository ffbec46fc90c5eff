#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/doc/test_doc.sh BUILD (make doc-test, after make man and the
# generated docs): the documentation against the binary, as git's
# t/t0450-txt-doc-vs-help.sh holds its docs against -h:
#  - docs/commands.md and docs/configs.md are what the binary prints now;
#  - every manual page in BUILD/man renders without a warning (groff -ww,
#    man -l) and lexgrog finds its NAME;
#  - for every command (and trace subcommand), the options its --help
#    lists are the options of its manual page and of its section of
#    docs/commands.md, no more and no fewer; the options its synopsis
#    names are options it takes; `ipibench --help` shows each verb's
#    synopsis as the verb's --help does;
#  - the config keys of ipibench.ini(5) are those of docs/configs.md, and
#    the [host], [guest] and workload keys `ipibench run --list` prints are
#    all documented there and vice versa.
set -uo pipefail
B=${1:-build}
IPB=$B/bin/ipibench
AGENT=$B/bin/ipibench-agent
MAN=$B/man
GEN=$B/gen/docs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
bad() { echo "doc-test: FAILED: $*" >&2; fails=$((fails + 1)); }

for t in groff man lexgrog; do
	command -v "$t" >/dev/null || { echo "doc-test: FAILED: $t is not installed" >&2; exit 1; }
done
for f in "$IPB" "$AGENT" "$GEN/commands.md" "$GEN/configs.md"; do
	[ -e "$f" ] || { echo "doc-test: FAILED: $f missing (make doc-test builds it)" >&2; exit 1; }
done

# ---- the committed docs are the binary's ----------------------------------
for d in commands configs; do
	cmp -s "docs/$d.md" "$GEN/$d.md" ||
		bad "docs/$d.md differs from what the binary prints ($GEN/$d.md): run make docs"
done

# ---- every page renders and names itself ------------------------------------
pages=(ipibench.1 ipibench-run.1 ipibench-boot.1 ipibench-host.1 ipibench-trace.1
	ipibench-report.1 ipibench-history.1 ipibench-agent.8 ipibench.ini.5)
for p in "${pages[@]}"; do
	f=$MAN/$p
	[ -s "$f" ] || { bad "$f: missing"; continue; }
	w=$(groff -ww -z -man "$f" 2>&1)
	[ -z "$w" ] || bad "$p: groff -ww: $w"
	w=$(MANWIDTH=80 man -l "$f" 2>&1 >/dev/null)
	[ -z "$w" ] || bad "$p: man -l: $w"
	name=${p%.*}
	lexgrog "$f" 2>&1 | grep -F "\"$name - " >/dev/null || bad "$p: lexgrog finds no NAME for $name"
done

# ---- options: --help, the page, commands.md ---------------------------------
# The option names (-x and --xx) of a list of "-x, --xx ARG" terms on stdin.
names() { grep -oE '(^|[ ,(`])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ ,(`]//' | sort -u; }
# The options of a --help: lines "  -x, --xx", "  -x" or "      --xx".
help_opts() { grep -E '^  (-[A-Za-z0-9],? |-[A-Za-z0-9]$|    --[a-z0-9-]+)' | sed -E 's/^ +//' |
	sed -E 's/^((-[A-Za-z0-9], )?--?[A-Za-z0-9-]+).*/\1/' | names; }
# The rendered page's OPTIONS section: its tags, at 7 columns.
man_opts() { MANWIDTH=250 man -l "$1" 2>/dev/null | sed -n '/^OPTIONS$/,/^[A-Z]/p' |
	grep -E '^ {7}-' | sed -E 's/^ +//' | sed -E 's/^((-[A-Za-z0-9], )?--?[A-Za-z0-9-]+).*/\1/' | names; }
# The options of "## HEADING" in commands.md: its "- `...`" items.
# shellcheck disable=SC2016 # the backquotes are Markdown's
md_opts() { awk -v h="## $2" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$1" |
	grep -E '^- `-' | sed -E 's/^- `//; s/`.*//' | sed -E 's/^((-[A-Za-z0-9], )?--?[A-Za-z0-9-]+).*/\1/' | names; }
# The usage: paragraph of a --help, one form per line, spaces squeezed.
usage_of() { awk 'NR == 1 && !/^usage:/ { exit } /^$/ { exit } { print }' | sed -E 's/^usage://; s/^ +//; s/ +/ /g'; }

check_cmd() {	# check_cmd PAGE HEADING HELP-COMMAND...
	local page=$1 head=$2 label
	shift 2
	label="$*"
	"$@" --help >"$TMP/help" 2>&1 || { bad "$label --help: exit $?"; return; }
	help_opts <"$TMP/help" >"$TMP/h"
	[ -s "$TMP/h" ] || { bad "$label --help lists no option"; return; }
	man_opts "$MAN/$page" >"$TMP/m"
	md_opts docs/commands.md "$head" >"$TMP/d"
	{
		comm -23 "$TMP/h" "$TMP/m" | sed "s|^|$label --help has |; s|$| but $page has not|"
		comm -13 "$TMP/h" "$TMP/m" | sed "s|^|$page has |; s|$| but $label --help has not|"
		comm -23 "$TMP/h" "$TMP/d" | sed "s|^|$label --help has |; s|$| but docs/commands.md ($head) has not|"
		comm -13 "$TMP/h" "$TMP/d" | sed "s|^|docs/commands.md ($head) has |; s|$| but $label --help has not|"
	} >"$TMP/x"
	while read -r l; do bad "$l"; done <"$TMP/x"
	# the synopsis names only options the command takes
	usage_of <"$TMP/help" | names | comm -23 - "$TMP/h" |
		while read -r o; do echo "$label: its synopsis names $o, which its --help does not list"; done >"$TMP/x"
	while read -r l; do bad "$l"; done <"$TMP/x"
}

for v in run boot report history; do
	check_cmd "ipibench-$v.1" "ipibench $v" "$IPB" "$v"
done
check_cmd ipibench-host.1 "ipibench host" "$IPB" host install
for s in summary diff ipi irq; do
	check_cmd ipibench-trace.1 "ipibench trace" "$IPB" trace "$s"
done
check_cmd ipibench-agent.8 "ipibench-agent" "$AGENT"

# One spelling per option: the old spellings are still taken (parsed before
# --help stops the command), the new ones too, a misspelling is not.
spell() {	# spell RC WORDS...
	local want=$1 rc
	shift
	"$@" >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || bad "$*: exit $rc, not $want"
}
for v in run boot; do
	for o in -o --output --out; do spell 0 "$IPB" "$v" "$o" x --help; done
	spell 2 "$IPB" "$v" --outt x --help
done
for o in -o --output --out; do spell 0 "$AGENT" "$o" x --help; done
for o in --guest-reference --reference; do spell 0 "$IPB" trace diff "$o" x --help; done
for v in report history; do spell 0 "$IPB" "$v" --output x --help; done
for v in run boot report history; do
	"$IPB" "$v" --help | grep -E -- '--out ' >/dev/null && bad "ipibench $v --help lists --out"
done
"$IPB" trace diff --help | grep -E -- ' --reference ' >/dev/null && bad "ipibench trace diff --help lists --reference"
"$AGENT" --help | grep -E -- '--out ' >/dev/null && bad "ipibench-agent --help lists --out"

# ipibench --help shows each verb's synopsis as the verb's own --help does.
"$IPB" --help >"$TMP/top"
for v in run boot host trace report history; do
	"$IPB" "$v" --help | usage_of >"$TMP/own"
	awk -v v="$v" '$1 == v && /^  [a-z]/ { on = 1; next } /^  [a-z]/ { on = 0 } /^$/ { on = 0 } on' \
		"$TMP/top" | sed -E 's/^ +//; s/ +/ /g' >"$TMP/listed"
	[ -s "$TMP/own" ] || bad "ipibench $v --help: no usage lines"
	cmp -s "$TMP/own" "$TMP/listed" || bad "ipibench --help's synopsis of $v is not its own:
$(diff "$TMP/own" "$TMP/listed")"
done

# ---- config keys: ipibench.ini(5), configs.md, run --list -------------------
# "SECTION [SCOPE] KEY" from configs.md's tables under "## [S]" / "### [S] with X".
awk '/^## \[/ { s = substr($2, 2, length($2) - 2); sc = ""; next }
     /^### \[/ { sc = $0; sub(/^### \[[^]]*\] with /, "", sc); next }
     /^\| `/ { k = $2; gsub(/`/, "", k); print s " [" sc "] " k }' docs/configs.md | sort >"$TMP/kmd"
MANWIDTH=250 man -l "$MAN/ipibench.ini.5" 2>/dev/null |
	awk '/^\[[^]]*\]$/ { s = substr($0, 2, length($0) - 2); sc = ""; next }
	     /^   \[[^]]*\] with / { sc = $0; sub(/^   \[[^]]*\] with /, "", sc); next }
	     /^[A-Z]/ { s = "" }
	     s != "" && /^       [a-z_0-9]+ \(/ { print s " [" sc "] " $1 }' | sort >"$TMP/kman"
[ "$(wc -l <"$TMP/kmd")" -gt 50 ] || bad "docs/configs.md: only $(wc -l <"$TMP/kmd") keys found"
diff "$TMP/kmd" "$TMP/kman" >"$TMP/x" || bad "the keys of docs/configs.md (<) and ipibench.ini(5) (>) differ:
$(cat "$TMP/x")"
# run --list: [host] keys, backend blocks, [guest] keys, workload types.
"$IPB" run --list | awk '
	/^\[host\]/ { s = "host"; next } /^backend / { s = "host"; next }
	/^\[guest\]/ { s = "guest"; next } /^workload types/ { s = "workload:NAME"; next }
	/^[a-z_]+: / { s = "workload:NAME"; next }
	/^    [a-z_0-9]+ / { print s " " $1 }' | sort -u >"$TMP/klist"
echo "workload:NAME type" >>"$TMP/klist"
sort -u -o "$TMP/klist" "$TMP/klist"
grep -v '^matrix ' "$TMP/kmd" | sed -E 's/ \[[^]]*\] / /' | sort -u >"$TMP/kdoc"
diff "$TMP/klist" "$TMP/kdoc" >"$TMP/x" || bad "the keys of ipibench run --list (<) and docs/configs.md (>) differ:
$(cat "$TMP/x")"

# ... and each under its own heading: a backend's keys under "### [host]
# with backend = NAME", a workload type's under "with type = TYPE", as run
# --list groups them ([guest]'s scopes are by type and NIC, not listed).
"$IPB" run --list | awk '
	/^\[host\]/ { s = "host"; sc = ""; next }
	/^backend [a-z]+:/ { s = "host"; sc = "backend = " substr($2, 1, length($2) - 1); next }
	/^\[guest\]/ { s = ""; next }
	/^workload types/ { s = "workload:NAME"; next }
	/^[a-z_]+: / { s = "workload:NAME"; sc = "type = " substr($1, 1, length($1) - 1); next }
	s != "" && /^    [a-z_0-9]+ / { print s " [" sc "] " $1 }' | sort -u >"$TMP/kscope"
grep -E '^(host|workload:NAME) ' "$TMP/kmd" | grep -v '^workload:NAME \[\] type$' |
	sort -u >"$TMP/kdocscope"
diff "$TMP/kscope" "$TMP/kdocscope" >"$TMP/x" || bad "the keys of ipibench run --list (<) and docs/configs.md (>) sit under different headings:
$(cat "$TMP/x")"

if [ "$fails" -ne 0 ]; then
	echo "doc-test: $fails failures" >&2
	exit 1
fi
echo "doc-test: ${#pages[@]} pages, the options of 12 commands, $(wc -l <"$TMP/kmd") config keys: ok"
