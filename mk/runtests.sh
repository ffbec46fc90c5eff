#!/usr/bin/env bash
# Run cmocka test binaries and keep a tally; `total` prints the closing line.
#   runtests.sh unit|integration BIN...   run each, add to the tally
#   runtests.sh total                     print "N passed, N failed"
# A binary that crashes or exits non-zero without a cmocka summary counts
# as one failure, so nothing is skipped silently.
set -uo pipefail
tally=build/test-tally
mkdir -p build
case "${1:-}" in
total)
	read -r p f <"$tally" 2>/dev/null || { p=0; f=0; }
	echo "ipibench tests: $p passed, $f failed"
	rm -f "$tally"
	[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
	exit
	;;
unit|integration) kind=$1; shift ;;
*) echo "usage: runtests.sh unit|integration BIN... | total" >&2; exit 2 ;;
esac
read -r p f <"$tally" 2>/dev/null || { p=0; f=0; }
rc_all=0
for bin in "$@"; do
	echo "== $kind: $bin"
	out=$(mktemp)
	"$bin" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	np=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	nf=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	np=${np:-0}; nf=${nf:-0}
	if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
		echo "== $bin exited with status $rc"
		nf=1
	fi
	p=$((p + np)); f=$((f + nf))
	[ "$nf" -eq 0 ] || rc_all=1
	rm -f "$out"
done
echo "$p $f" >"$tally"
echo "== $kind: $p passed, $f failed so far"
exit $rc_all
