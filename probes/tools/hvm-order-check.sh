#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The HVM profile counted in file order against the TSC-ordered pass, on
# the output itself: `ipibench trace summary FILE` and `--json` must be
# byte for byte the same (and exit the same) with IPIBENCH_TRACE_HVM=tsc
# (the TSC-ordered pass forced) as without it, on every FILE and on
# --mutants N mutated copies of each (records' events, words and TSCs
# changed, chunks given to other pCPUs: regular ones, which file order
# takes, and irregular ones, which fall back).
#   hvm-order-check.sh [--mutants N] [--seed S] FILE...
# Prints one line per file (which pass counted it: IPIBENCH_TRACE_HVM=why)
# and a tally; exits 1 when any output differs.  test_hvmpar checks the
# same on the profiles themselves in make unit; this is for big files
# (the 1 GiB one of make bench-trace) and for the bytes of the output.
set -euo pipefail
cd "$(dirname "$0")/../.."
ipb=${IPIBENCH:-build/bin/ipibench}
mutants=0 seed=1
while [ $# -gt 0 ]; do
	case $1 in
	--mutants) mutants=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	-h|--help) sed -n 2,13p "$0"; exit 0 ;;
	*) break ;;
	esac
done
[[ $mutants =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || { echo "hvm-order-check: --mutants and --seed take whole numbers" >&2; exit 2; }
[ $# -gt 0 ] || { echo "hvm-order-check: no FILE" >&2; exit 2; }
[ -x "$ipb" ] || { echo "hvm-order-check: $ipb not built (make build)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hvm-order-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 file_order=0 tsc_order=0

check() {	# FILE LABEL
	local f=$1 j rc_a rc_b how
	how=$(IPIBENCH_TRACE_HVM=why "$ipb" trace summary "$f" 2>&1 >/dev/null | grep '^hvm profile: ' || true)
	for j in "" --json; do
		rc_a=0 rc_b=0
		"$ipb" trace summary $j "$f" >"$tmp/a" 2>/dev/null || rc_a=$?
		IPIBENCH_TRACE_HVM=tsc "$ipb" trace summary $j "$f" >"$tmp/b" 2>/dev/null || rc_b=$?
		if [ "$rc_a" != "$rc_b" ] || ! cmp -s "$tmp/a" "$tmp/b"; then
			echo "DIFFERS ${j:-text}: $2 (${how:-no HVM profile}; exit $rc_a against $rc_b)"
			differ=$((differ + 1))
			return
		fi
	done
	same=$((same + 1))
	case $how in
	"hvm profile: file order") file_order=$((file_order + 1)) ;;
	"hvm profile: TSC order"*) tsc_order=$((tsc_order + 1)) ;;
	esac
	[ "$mutants" -gt 0 ] && [[ $2 == *"#"* ]] || echo "same: $2 (${how:-no HVM profile})"
}

for f in "$@"; do
	[ -f "$f" ] || { echo "hvm-order-check: $f: no such file" >&2; exit 2; }
	check "$f" "$f"
	[ "$mutants" -gt 0 ] || continue
	python3 - "$f" "$tmp/m" "$mutants" "$seed" <<'EOF'
import lzma, random, struct, sys
src, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(src, "rb").read()
if data[:6] == b"\xfd7zXZ\x00":
    data = lzma.decompress(data)
recs, hdrs, pos = [], [], 0
while pos + 12 <= len(data):		# chunks: cpu_change header, then records
    h, cpu, size = struct.unpack_from("<III", data, pos)
    if h != 0x2001F003:
        break
    hdrs.append(pos)
    p, end = pos + 12, min(pos + 12 + size, len(data))
    while p + 4 <= end:
        hdr = struct.unpack_from("<I", data, p)[0]
        sz = 4 + (8 if hdr >> 31 else 0) + 4 * ((hdr >> 28) & 7)
        if p + sz > end:
            break
        recs.append(p)
        p += sz
    pos = end
hot = [0x00081102, 0x00081002, 0x00081001, 0x00082013, 0x0008200e, 0x00082004, 0x0008200d,
       0x00021101, 0x00021011, 0x00021021, 0x00021211, 0x00021031, 0x00021002]
rnd = random.Random(seed * 7919 + len(data))
for k in range(n):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        o = rnd.choice(recs)
        h = struct.unpack_from("<I", b, o)[0]
        kind = rnd.randrange(4)
        if kind == 0:
            struct.pack_into("<I", b, o, (h & 0xF0000000) | rnd.choice(hot))
        elif kind == 1 and (h >> 28) & 7:
            struct.pack_into("<I", b, o + (12 if h >> 31 else 4), rnd.randrange(3) << 16 | rnd.randrange(3))
        elif kind == 2 and h >> 31:
            t = struct.unpack_from("<I", b, o + 4)[0]
            struct.pack_into("<I", b, o + 4, (t + rnd.randrange(-2000, 2000)) & 0xFFFFFFFF)
        elif kind == 3 and hdrs:
            struct.pack_into("<I", b, rnd.choice(hdrs) + 4, rnd.randrange(3))
    open("%s.%d" % (out, k), "wb").write(b)
EOF
	for ((k = 0; k < mutants; k++)); do
		check "$tmp/m.$k" "$f#$k"
		rm -f "$tmp/m.$k"
	done
done
echo "hvm-order-check: $same same ($file_order in file order, $tsc_order fell back to TSC order), $differ differ"
[ "$differ" -eq 0 ]
