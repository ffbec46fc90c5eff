#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A stand-in for the installed `ipibench` of a real test host, for
# analysis/tests/ci_template_test.sh (installed on PATH as `ipibench`): the
# template's real-host jobs run their analysis/ci.sh steps against it
# under gitlab-ci-local.  What it replaces, and nothing else:
#   host check -c CONFIG   the preflight: prints the config's backend;
#                          STANDIN_REFUSE=1 refuses it (status 1)
#   host status            "  pending: none", or "  pending: DIR: ..." while
#                          the stand-in's matrix is pending (the line
#                          format of runner/cmd_host.c)
#   run -c CONFIG -o DIR   backend = local: DIR/results.json at once;
#                          backend = reboot: the matrix pending, then
#                          IPIBENCH_REBOOT_CMD run as the real one runs it
#                          (the test's reboot command starts `resume`
#                          detached: the boots), then waits at most 60 s
#                          to be stopped
#   resume                 the boots of the pending matrix: STANDIN_BOOT_S
#                          seconds (default 8), then DIR/results.json and
#                          nothing pending; STANDIN_HANG=1: never finishes
# Results: STANDIN_RESULTS (a results.json), with STANDIN_FAIL_RUN=1 its
# first run marked failed.  State and the calls' log: STANDIN_BOX/HOST_TAG.
set -euo pipefail
# One stand-in host per runner tag (the jobs of two hosts run at once).
box=${STANDIN_BOX:?STANDIN_BOX: the directory of the stand-in hosts}/${HOST_TAG:?HOST_TAG}
mkdir -p "$box"
echo "ipibench $*" >>"$box/calls"
results() {
	mkdir -p "$1"
	if [ "${STANDIN_FAIL_RUN:-}" = 1 ]; then
		jq '.runs[0].status = "failed"' "$STANDIN_RESULTS" >"$1/results.json"
	else
		cp "$STANDIN_RESULTS" "$1/results.json"
	fi
}
backend() { sed -n 's/^backend *= *//p' "$1" | head -1; }
case "${1:-} ${2:-}" in
"host check")
	[ "${3:-}" = -c ] && [ -f "${4:-}" ] || { echo "standin: host check -c CONFIG" >&2; exit 2; }
	if [ "${STANDIN_REFUSE:-}" = 1 ]; then
		echo "$4:1: this host cannot serve it (stand-in refusal)" >&2
		exit 1
	fi
	echo "host check: $4: backend = $(backend "$4"): can run (stand-in)"
	;;
"host status")
	echo "ipibench host: installed (stand-in)"
	if [ -f "$box/pending" ]; then
		echo "  pending: $(cat "$box/pending"): 0 of 6 runs ok; next physical-r0 (physical); last reboot for ipibench.run=physical-r0 (1 reboots)"
	else
		echo "  pending: none"
	fi
	;;
"run -c")
	[ "${4:-}" = -o ] && [ -n "${5:-}" ] || { echo "standin: run -c CONFIG -o DIR" >&2; exit 2; }
	case $(backend "$3") in
	local) results "$5" ;;
	reboot)
		mkdir -p "$5"
		echo "$5" >"$box/pending"
		echo "        reboot: rebooting: $IPIBENCH_REBOOT_CMD"
		sh -c "$IPIBENCH_REBOOT_CMD"
		# the real one waits to be stopped by the shutdown
		for _ in $(seq 60); do [ -f "$box/pending" ] || break; sleep 1; done
		;;
	*) echo "standin: $3: no backend" >&2; exit 1 ;;
	esac
	;;
"resume ")
	[ "${STANDIN_HANG:-}" != 1 ] || exit 0
	sleep "${STANDIN_BOOT_S:-8}"
	results "$(cat "$box/pending")"
	rm -f "$box/pending"
	echo "ipibench run: matrix finished (stand-in)" >>"$box/calls"
	;;
*) echo "standin: ipibench $*: not stood in for" >&2; exit 2 ;;
esac
