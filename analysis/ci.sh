#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The steps of .gitlab-ci.yml, kept here so they run (and can be tried) the
# same way on GitLab, under gitlab-ci-local and by hand.
#
#   analysis/ci.sh collect MARKER DEST
#       after `make bench`: copy every result directory whose results.json
#       is newer than MARKER into DEST/ (the bench job's artifacts)
#   analysis/ci.sh publish OUT RESULTS...
#       merge the previous history (IPIBENCH_HISTORY_URL, by default
#       $CI_PAGES_URL/results.tar.gz; HTTP 404 means there is none yet, any
#       other failure to fetch it fails the job) with the result sets
#       found under RESULTS..., write a report per new set and the history
#       (index.html, plots) into OUT, and OUT/results.tar.gz for the next
#       pipeline.  Records the regression verdict in OUT/history-status.
#   analysis/ci.sh check OUT
#       exit 1 when OUT/history-status says the newest set of a series
#       regressed (rules: `ipibench history --help`: on an emulated host
#       only its exact counts, never its times)
#
# Environment: IPIBENCH (binary, default build/bin/ipibench),
# IPIBENCH_THRESHOLD (percent, default 5), IPIBENCH_INSN_THRESHOLD (percent,
# default 0.5: instruction counts of an emulated host, [host] insn_counts),
# IPIBENCH_FAIL_ON (any|latest,
# default latest), IPIBENCH_HISTORY_URL, IPIBENCH_HISTORY_DIR (a local
# directory of earlier result sets, e.g. a runner cache).
set -euo pipefail

ipibench=${IPIBENCH:-build/bin/ipibench}
die() { echo "ci.sh: $*" >&2; exit 1; }

collect() {
	local marker=$1 dest=$2 n=0 f d
	[ -e "$marker" ] || die "$marker: no such marker file"
	mkdir -p "$dest"
	while IFS= read -r f; do
		d=$(dirname "$f")
		case "$d" in "$dest"* | results/reference*) continue ;; esac
		cp -r "$d" "$dest/"
		echo "ci.sh: collected $d -> $dest/$(basename "$d")"
		n=$((n + 1))
	done < <(find results -name results.json -newer "$marker" 2>/dev/null | sort)
	[ "$n" -gt 0 ] || die "no results.json newer than $marker under results/: did the bench run?"
}

# Fetch URL into FILE.  Only HTTP 404 means "no history yet" (status 1);
# anything else that is not a whole 200 (no curl, DNS, refused, timeout,
# 5xx, a truncated body) fails the job with the reason: a silently reset
# history would make the regression check pass silently.
fetch_history() {
	local url=$1 file=$2 code rc=0
	command -v curl >/dev/null 2>&1 ||
		die "curl not found: cannot fetch the previous history from $url (apt-get install curl)"
	code=$(curl -sS -L --max-time 60 -o "$file" -w '%{http_code}' "$url" 2>"$file.err") || rc=$?
	if [ "$rc" -ne 0 ]; then
		die "cannot fetch the previous history from $url: $(tail -n 1 "$file.err") (curl status $rc)"
	fi
	case $code in
	200) return 0 ;;
	404) return 1 ;;
	000) case $url in file://*) return 0 ;; esac ;;	# not HTTP: curl's status said it
	esac
	die "cannot fetch the previous history from $url: HTTP $code"
}

# Unpack the previous history, refusing anything but plain files and
# directories with relative paths (the tarball is as untrusted as results).
unpack_history() {
	local url=$1 file=$2 dest=$3 bad
	tar -tzf "$file" >"$file.list" 2>"$file.err" ||
		die "previous history from $url is not a gzip'ed tarball: $(tail -n 1 "$file.err")"
	bad=$(grep -E -m 1 '(^/|(^|/)\.\.(/|$))' "$file.list") &&
		die "previous history from $url: member '$bad' is outside the archive"
	bad=$(tar -tvzf "$file" | grep -E -m 1 -v '^[-d]') &&
		die "previous history from $url: not a file or directory: $bad"
	tar -xzf "$file" -C "$dest" --no-same-owner --no-same-permissions ||
		die "previous history from $url: cannot unpack it"
}

publish() {
	local out=$1
	shift
	[ $# -gt 0 ] || die "usage: ci.sh publish OUT RESULTS..."
	command -v "$ipibench" >/dev/null 2>&1 || die "$ipibench not built (make build/bin/ipibench)"
	ipibench=$(command -v "$ipibench")
	local work sets
	work=$(mktemp -d)
	trap 'rm -rf "$work"' RETURN
	sets=$work/sets
	mkdir -p "$sets" "$out"

	# 1. earlier result sets
	local url=${IPIBENCH_HISTORY_URL:-${CI_PAGES_URL:+$CI_PAGES_URL/results.tar.gz}}
	if [ -n "$url" ]; then
		if fetch_history "$url" "$work/prev.tar.gz"; then
			unpack_history "$url" "$work/prev.tar.gz" "$sets"
			echo "ci.sh: previous history from $url: $(ls "$sets" | wc -l) result sets"
		else
			echo "ci.sh: no previous history at $url (HTTP 404: first pipeline)"
		fi
	fi
	if [ -n "${IPIBENCH_HISTORY_DIR:-}" ] && [ -d "$IPIBENCH_HISTORY_DIR" ]; then
		cp -r "$IPIBENCH_HISTORY_DIR"/. "$sets"/
	fi

	# 2. this pipeline's result sets, one directory each
	local links=() new=0 r f rel name
	for r in "$@"; do
		[ -e "$r" ] || die "$r: no such results directory"
		while IFS= read -r f; do
			rel=$(dirname "${f#"$r"}")
			rel=${rel#/}
			name=$(echo "${CI_PIPELINE_ID:-local}-${rel:-$(basename "$r")}" | tr '/ ' '--')
			mkdir -p "$sets/$name"
			cp "$f" "$sets/$name/results.json"
			echo "ci.sh: result set $name <- $f"
			"$ipibench" report -q "$(dirname "$f")" -o "$out/reports/$name" >/dev/null
			links+=(--link "report $name=reports/$name/report.md")
			new=$((new + 1))
		done < <(find "$r" -name results.json | sort)
	done
	[ "$new" -gt 0 ] || die "no results.json under $*"

	# 3. history over everything; keep the verdict for the check job
	# Run from $work so the pages show sets/NAME/results.json, not /tmp paths.
	local rc=0 abs_bin abs_out
	abs_bin=$(cd "$(dirname "$ipibench")" && pwd)/$(basename "$ipibench")
	abs_out=$(cd "$out" && pwd)
	(cd "$work" && "$abs_bin" history -q sets -o "$abs_out" \
		--threshold "${IPIBENCH_THRESHOLD:-5}" \
		--insn-threshold "${IPIBENCH_INSN_THRESHOLD:-0.5}" \
		--fail-on-regression="${IPIBENCH_FAIL_ON:-latest}" "${links[@]}") || rc=$?
	case $rc in
	0 | 3) echo "$rc" >"$out/history-status" ;;
	*) die "ipibench history failed (status $rc)" ;;
	esac
	tar -czf "$out/results.tar.gz" -C "$sets" .
	echo "ci.sh: published $out/index.html ($new new result sets, history status $rc)"
}

check() {
	local out=$1 st
	st=$(cat "$out/history-status" 2>/dev/null) || die "$out/history-status missing: did publish run?"
	if [ "$st" != 0 ]; then
		echo "ci.sh: regression in the newest result set; see $out/history.md:" >&2
		grep -- '^- .* vs ' "$out/history.md" >&2 || true
		exit 1
	fi
	echo "ci.sh: no regression"
}

case "${1:-}" in
collect) shift; [ $# -eq 2 ] || die "usage: ci.sh collect MARKER DEST"; collect "$@" ;;
publish) shift; publish "$@" ;;
check) shift; [ $# -eq 1 ] || die "usage: ci.sh check OUT"; check "$@" ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
*) die "usage: ci.sh collect|publish|check ... (--help)" ;;
esac
