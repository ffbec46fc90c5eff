#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make soak: boot the soak configs back to back and count the boots that
# complete and those that stall (docs/stalls.md).
#
#   scripts/soak.sh N SEED OUT NIC CONFIG...
#       N boots (at least: each config run boots every mode of its
#       [matrix]), each config run drawn from CONFIG... in an order
#       that SEED fixes (bash's RANDOM), into OUT/NNNN-NAME/ (a result set
#       of its own: `ipibench report` reads it); then NIC guest sets of
#       `make test-guests-nic`, NIC_PER_BOOT (default 1) in each boot of
#       the test host, each boot logged to OUT/nic-NNNN.log (a failed
#       one's host console beside it as nic-NNNN-console.log).
#
# A line per config run, then the tally: boots, completed, stalled (each
# with its evidence folder), failed otherwise, and the wall time.  Status 0
# only when every boot completed.  The counting is ipibench's: a boot is
# stalled when its run folder holds stall/summary.json with reason
# "stall" (the runner's stall window), and completed by `ipibench run`'s
# last line ("K of M runs ok, S stalled in ...").
set -uo pipefail
[ $# -ge 5 ] || { echo "usage: scripts/soak.sh N SEED OUT NIC CONFIG..." >&2; exit 2; }
n=$1 seed=$2 out=$3 nic=$4
shift 4
configs=("$@")
case $n$seed$nic in *[!0-9]*) echo "soak: N, SEED and NIC are decimal numbers" >&2; exit 2 ;; esac
ipibench=${IPIBENCH:-${BUILD:-build}/bin/ipibench}
mkdir -p "$out" || exit 2
RANDOM=$seed
boots=0 ok=0 stalled=0 i=0 nic_ok=0
evidence=()
t0=$SECONDS
while [ "$boots" -lt "$n" ]; do
	cfg=${configs[RANDOM % ${#configs[@]}]}
	i=$((i + 1))
	dir=$(printf '%s/%04d-%s' "$out" "$i" "$(basename "$cfg" .ini)")
	echo "soak: boots $boots of $n, $((SECONDS - t0)) s: $cfg into $dir"
	"$ipibench" run -q -c "$cfg" -o "$dir" 2>&1 | tee "$dir.log" | grep -E '^\[|^ipibench run:'
	last=$(grep -E '^ipibench run: [0-9]+ of [0-9]+ runs ok' "$dir.log" | tail -1)
	if [ -z "$last" ]; then
		echo "soak: $cfg: ipibench run did not finish its set (see $dir.log)" >&2
		exit 1
	fi
	read -r good total <<<"$(sed -E 's/^ipibench run: ([0-9]+) of ([0-9]+) runs ok.*/\1 \2/' <<<"$last")"
	boots=$((boots + total)) ok=$((ok + good))
	for s in "$dir"/runs/*/stall/summary.json; do
		[ -f "$s" ] || continue
		if grep -Eq '"reason": *"stall"' "$s"; then
			stalled=$((stalled + 1))
			evidence+=("${s%/summary.json}")
		fi
	done
done
per=${NIC_PER_BOOT:-1}
case $per in 0*|*[!0-9]*|'') echo "soak: NIC_PER_BOOT is a count from 1" >&2; exit 2 ;; esac
for ((k = 1, sets = 0; sets < nic; k++)); do
	log=$(printf '%s/nic-%04d.log' "$out" "$k")
	this=$((nic - sets < per ? nic - sets : per))
	echo "soak: NIC guest sets $((sets + 1))-$((sets + this)) of $nic in one test host boot, $((SECONDS - t0)) s"
	sets=$((sets + this))
	TEST_HOST_HVM_REPEAT=$this TEST_HOST_TIMEOUT=$((1200 + 600 * this)) \
		${MAKE:-make} --no-print-directory test-guests-nic >"$log" 2>&1
	rc=$?
	# A set completed: its ipibench run ended with every guest run ok.
	done_sets=$(grep -cE '^ok   [A-Za-z0-9._-]+: ipibench run: every guest run ok' "$log")
	nic_ok=$((nic_ok + done_sets))
	if [ "$rc" -ne 0 ]; then
		evidence+=("$log")
		# A hang's evidence (scripts/test-host.sh's capture), kept beside its log.
		ev=${BUILD:-build}/test-guests-nic/stall
		if [ -d "$ev" ]; then
			mv "$ev" "${log%.log}-stall" && evidence+=("${log%.log}-stall")
		fi
		# The host's whole console (Xen, dom0, the guests' lines): the
		# next boot writes over it.
		con=${BUILD:-build}/test-guests-nic/console.log
		[ ! -f "$con" ] || cp "$con" "${log%.log}-console.log"
	fi
done
echo "soak: $boots boots in $((SECONDS - t0)) s (seed $seed): $ok completed, $stalled stalled," \
	"$((boots - ok - stalled)) failed otherwise"
[ "$nic" -eq 0 ] || echo "soak: $nic NIC guest sets: $nic_ok completed, $((nic - nic_ok)) did not"
for e in "${evidence[@]}"; do
	echo "soak: evidence: $e"
done
[ "$ok" -eq "$boots" ] && [ "$nic_ok" -eq "$nic" ]
