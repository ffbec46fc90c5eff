#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The test host's board (scripts/test-host-board.sh) against the ICH9 TCO
# watchdog reset that took the emulated host down under HVM guests
# (docs/guests.md): a multiboot stub (tco-stub.S) does what dom0's iTCO_wdt
# does at probe (NO_REBOOT cleared, the timer running, here 1.2 s) and
# then never pets it.
#  - QEMU's default board (TEST_HOST_TCO_RESET=1): QEMU exits by itself
#    with status 0 within seconds, QMP having said WATCHDOG action reset
#    and SHUTDOWN reason guest-reset (so the stub does arm it, and the
#    check below can fail);
#  - the test host's board: QEMU still running 8 s after the timer was
#    armed (the reset is due at 2.4 s), no WATCHDOG event.
# Run by `make host-board-test` (a unit check of the tally), about 15 s.
# Every QEMU it starts is killed on the way out.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
qpid=
cleanup() {
	[ -z "$qpid" ] || { kill -KILL "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; }
	[ -z "${lpid:-}" ] || kill "$lpid" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fails=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

gcc -m32 -c -o "$t/stub.o" "$top/tests/host/tco-stub.S" &&
	ld -m elf_i386 -e start -Ttext=0x100000 -o "$t/stub.elf" "$t/stub.o" ||
	{ echo "FAIL tco-stub.S does not build"; exit 1; }

# boot NAME: the stub on the board of scripts/test-host-board.sh (as the
# environment has TEST_HOST_TCO_RESET), -no-reboot as test-host.sh runs
# it, QMP events into $t/NAME.qmp; qpid, lpid set.
boot() {
	local test_host_board
	# shellcheck source=scripts/test-host-board.sh
	. "$top/scripts/test-host-board.sh"
	setsid qemu-system-x86_64 -accel tcg "${test_host_board[@]}" -m 64 -smp 1 \
		-display none -nodefaults -no-reboot -debugcon "file:$t/$1.con" \
		-qmp "unix:$t/$1.sock,server=on,wait=off" -kernel "$t/stub.elf" \
		>"$t/$1.log" 2>&1 &
	qpid=$!
	python3 "$top/scripts/qmp-events.py" "$t/$1.sock" "$t/$1.qmp" 2>>"$t/$1.log" &
	lpid=$!
}
# armed NAME: until the stub has armed the timer ("T" on the debug console), 30 s at most.
armed() {
	local _
	for _ in $(seq 300); do
		grep -q T "$t/$1.con" 2>/dev/null && return 0
		kill -0 "$qpid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
events() { jq -rc 'select(.event) | .event | [.event, (.data.action // .data.reason // empty)] | join(" ")' "$t/$1.qmp" 2>/dev/null | tr '\n' ';'; }

# 1. QEMU's own board: the reset happens.
TEST_HOST_TCO_RESET=1 boot default
if armed default; then
	for _ in $(seq 300); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$qpid" 2>/dev/null; then
		fail "QEMU's default board: still running 30 s after the TCO timer was armed (want a watchdog reset)"
	else
		wait "$qpid"
		rc=$?
		qpid=
		sleep 0.5
		ev=$(events default)
		[ "$rc" = 0 ] && grep -q 'WATCHDOG reset;' <<<"$ev" && grep -q 'SHUTDOWN guest-reset;' <<<"$ev" &&
			ok "QEMU's default board: the TCO watchdog's second expiry resets it, QEMU exits $rc (QMP: $ev)" ||
			fail "QEMU's default board: exit status $rc, QMP events '$ev' (want 0, WATCHDOG reset, SHUTDOWN guest-reset)"
	fi
else
	fail "QEMU's default board: the stub never armed the timer ($(tail -c 300 "$t/default.log"))"
fi
[ -z "$qpid" ] || { kill -KILL "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; qpid=; }
kill "$lpid" 2>/dev/null

# 2. The test host's board: no reset.
TEST_HOST_TCO_RESET='' boot board
if armed board; then
	sleep 8
	ev=$(events board)
	if kill -0 "$qpid" 2>/dev/null && ! grep -q WATCHDOG <<<"$ev"; then
		ok "the test host's board: QEMU running 8 s after the TCO timer was armed, no WATCHDOG event"
	else
		fail "the test host's board: QEMU gone or a watchdog action (QMP: '$ev'; scripts/test-host-board.sh)"
	fi
else
	fail "the test host's board: the stub never armed the timer ($(tail -c 300 "$t/board.log"))"
fi
[ $fails -eq 0 ]
