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
# On a real test host, with the installed package (no build tree, no QEMU):
#   analysis/ci.sh host-local CONFIG NAME DEST
#       `ipibench host check -c CONFIG`, `ipibench run -c CONFIG -o DIR`
#       (a backend = local config), DIR copied to DEST/NAME
#   analysis/ci.sh matrix-start CONFIG NAME
#       `ipibench host check -c CONFIG`, then the backend = reboot config's
#       `ipibench run -c CONFIG -o DIR` in the background with the reboot
#       delayed by IPIBENCH_REBOOT_DELAY seconds (default 30): returns once
#       the matrix is pending and its first reboot is asked for, so the job
#       ends before the host goes down; ipibench-resume.service continues
#       the matrix after each boot
#   analysis/ci.sh matrix-collect NAME DEST
#       waits at most IPIBENCH_MATRIX_WAIT seconds (default 1800) until
#       `ipibench host status` says no matrix is pending, then copies DIR
#       to DEST/NAME and fails unless every run of its results.json is ok
# DIR is IPIBENCH_HOST_RESULTS/ci-PIPELINE-NAME (IPIBENCH_HOST_RESULTS
# default /var/lib/ipibench/results: it survives the reboots).
#
# Environment: IPIBENCH (binary, default build/bin/ipibench),
# IPIBENCH_THRESHOLD (percent, default 5), IPIBENCH_INSN_THRESHOLD (percent,
# default 0.5: instruction counts of an emulated host, [host] insn_counts),
# IPIBENCH_FAIL_ON (any|latest,
# default latest), IPIBENCH_HISTORY_URL, IPIBENCH_HISTORY_DIR (a local
# directory of earlier result sets, e.g. a runner cache); on a test host
# IPIBENCH_HOST (the installed binary, default ipibench from PATH).
set -euo pipefail

ipibench=${IPIBENCH:-build/bin/ipibench}
host_bin=${IPIBENCH_HOST:-ipibench}
host_results=${IPIBENCH_HOST_RESULTS:-/var/lib/ipibench/results}
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

# The result directory of this pipeline's NAME on the test host.
host_dir() {
	case $1 in '' | *[!A-Za-z0-9._-]*) die "'$1': a result name of letters, digits, '.', '_', '-'" ;; esac
	echo "$host_results/ci-${CI_PIPELINE_ID:-local}-$1"
}

host_check() {
	[ -f "$1" ] || die "$1: no such config (is the ipibench package installed?)"
	command -v "$host_bin" >/dev/null 2>&1 || die "$host_bin not found: install the ipibench package on this host"
	echo "ci.sh: $host_bin host check -c $1"
	"$host_bin" host check -c "$1" || die "ipibench host check refuses $1 on this host (above)"
}

# A run's results copied out, and every run ok.
host_copy() {
	local dir=$1 dest=$2 bad
	[ -f "$dir/results.json" ] || die "$dir/results.json missing: the run wrote no results"
	mkdir -p "$(dirname "$dest")"
	rm -rf "$dest"
	cp -r "$dir" "$dest"
	echo "ci.sh: collected $dir -> $dest"
	bad=$(jq -r '[.runs[]? | select(.status != "ok") | "\(.id): \(.status)"] | join(", ")' "$dest/results.json") ||
		die "$dest/results.json: not a results file"
	[ -z "$bad" ] || die "$dest/results.json: runs not ok: $bad"
}

host_local() {
	local cfg=$1 dir
	dir=$(host_dir "$2")
	host_check "$cfg"
	echo "ci.sh: $host_bin run -c $cfg -o $dir"
	"$host_bin" run -c "$cfg" -o "$dir" || echo "ci.sh: ipibench run failed (status $?): collecting what it wrote" >&2
	host_copy "$dir" "$3/$2"
}

# Whether `ipibench host status` says no matrix is pending.
matrix_idle() {
	local st
	st=$("$host_bin" host status 2>&1) || die "ipibench host status failed: is the host installed (ipibench host install)? $st"
	grep -q '^  pending: none$' <<<"$st"
}

matrix_start() {
	local cfg=$1 dir log n=0
	dir=$(host_dir "$2")
	host_check "$cfg"
	matrix_idle || die "a matrix is already pending on this host ($("$host_bin" host status | grep '^  pending:')): one at a time"
	[ ! -e "$dir" ] || die "$dir exists: a result directory per pipeline"
	mkdir -p "$host_results"
	log=$host_results/ci-${CI_PIPELINE_ID:-local}-$2.log
	# The reboot is delayed so this job ends (and reports) first; the
	# timer is systemd's, outside the job's processes.
	export IPIBENCH_REBOOT_CMD=${IPIBENCH_REBOOT_CMD:-systemd-run --on-active=${IPIBENCH_REBOOT_DELAY:-30} systemctl reboot}
	echo "ci.sh: $host_bin run -c $cfg -o $dir (reboot: $IPIBENCH_REBOOT_CMD; log $log)"
	setsid "$host_bin" run -c "$cfg" -o "$dir" </dev/null >"$log" 2>&1 &
	until grep -q 'rebooting: ' "$log"; do
		if ! kill -0 $! 2>/dev/null; then
			cat "$log" >&2
			die "ipibench run ended before its first reboot (above)"
		fi
		n=$((n + 1))
		[ "$n" -le 600 ] || { kill $! 2>/dev/null; cat "$log" >&2; die "no reboot asked for within 600 s"; }
		sleep 1
	done
	cat "$log"
	! matrix_idle || die "ipibench run asked for a reboot but no matrix is pending"
	echo "ci.sh: matrix pending in $dir; the host reboots in ${IPIBENCH_REBOOT_DELAY:-30} s"
}

matrix_collect() {
	local dir wait=${IPIBENCH_MATRIX_WAIT:-1800} t=0
	dir=$(host_dir "$1")
	case $wait in '' | *[!0-9]*) die "IPIBENCH_MATRIX_WAIT=$wait: seconds" ;; esac
	until matrix_idle; do
		[ "$t" -lt "$wait" ] || {
			"$host_bin" host status >&2 || true
			[ ! -d "$dir" ] || { mkdir -p "$2"; rm -rf "${2:?}/$1"; cp -r "$dir" "$2/$1"; }
			die "the matrix is still pending after ${wait} s (IPIBENCH_MATRIX_WAIT): what it has is in $2/$1"
		}
		[ $((t % 60)) -ne 0 ] || echo "ci.sh: waiting for the matrix to finish ($( ("$host_bin" host status || true) | grep '^  pending:' | sed 's/^ *//'))"
		sleep 5
		t=$((t + 5))
	done
	echo "ci.sh: no matrix pending after ${t} s"
	host_copy "$dir" "$2/$1"
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
host-local) shift; [ $# -eq 3 ] || die "usage: ci.sh host-local CONFIG NAME DEST"; host_local "$@" ;;
matrix-start) shift; [ $# -eq 2 ] || die "usage: ci.sh matrix-start CONFIG NAME"; matrix_start "$@" ;;
matrix-collect) shift; [ $# -eq 2 ] || die "usage: ci.sh matrix-collect NAME DEST"; matrix_collect "$@" ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
*) die "usage: ci.sh collect|publish|check|host-local|matrix-start|matrix-collect ... (--help)" ;;
esac
