#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# scripts/hv-prefix-build.sh (make hv-prefix-check) on a stand-in for a Xen
# tree: a git tree whose xen/Makefile does what olddefconfig and build do
# to the output folder (O=) in a few milliseconds, failing the build when
# the source says so.  Checks the order and form of its lines, that it
# stops at the first prefix that does not build (also when only the debug
# configuration fails), the --series mode (git am onto an unpacked tree;
# a patch that does not apply), that each configuration rebuilds only
# after a change, and that the given tree is left as it was.  Run by
# `make hv-prefix-test` (a unit check of the tally); exits 1 on a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
g() { git -C "$t/tree" -c user.name=t -c user.email=t@t "$@"; }
run() { bash "$top/scripts/hv-prefix-build.sh" "$@" 2>&1; }

# The stand-in: build fails on a line BROKEN in src.c, or DEBUGBROKEN in a
# debug configuration; each build that runs is counted in O/builds.
mkdir -p "$t/tree/xen"
cat >"$t/tree/xen/Makefile" <<'MK'
O ?= .
olddefconfig:
	@grep -v '^$$' $(O)/.config | sort -u >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
build:
	@! grep -q '^BROKEN' src.c || { echo "src.c:1: error: broken" >&2; exit 1; }
	@! { grep -q '^DEBUGBROKEN' src.c && grep -q '^CONFIG_DEBUG=y' $(O)/.config; } || { echo "src.c:1: error: debug" >&2; exit 1; }
	@if [ ! -f $(O)/xen ] || [ src.c -nt $(O)/xen ] || [ $(O)/.config -nt $(O)/xen ]; then cp src.c $(O)/xen.tmp && mv $(O)/xen.tmp $(O)/xen && echo x >>$(O)/builds; fi
MK
echo 0 >"$t/tree/xen/src.c"
git init -q "$t/tree" && g add -A && g commit -qm base && g tag base
for i in 1 2 3; do echo "$i" >>"$t/tree/xen/src.c"; g commit -qam "patch $i"; done
head0=$(g rev-parse HEAD)

out=$(run -n 3 -w "$t/w1" "$t/tree"); rc=$?
lines=$(grep '^prefix ' <<<"$out" | awk '{print $2, $4, $5, $6}')
want=$'1/3 release: ok\n1/3 debug: ok\n2/3 release: ok\n2/3 debug: ok\n3/3 release: ok\n3/3 debug: ok'
if [ "$rc" -eq 0 ] && [ "$(sed 's/ [0-9]*$//' <<<"$lines" | sed 's/: ok [0-9]*/: ok/')" = "$want" ] &&
   grep -q '^prefix 1/3 [0-9a-f]\{10\} release: ok [0-9]* s (release)  patch 1$' <<<"$out" &&
   grep -q '^prefix 3/3 [0-9a-f]\{10\} debug: ok [0-9]* s (debug)  patch 3$' <<<"$out" &&
   grep -q 'every prefix builds and links: 3 prefixes x 2 configs, 6 builds' <<<"$out"; then
	ok "-n 3: six lines, prefix by prefix, release then debug, status 0"
else
	bad "-n 3: status $rc, output:"; sed 's/^/       /' <<<"$out"
fi
[ "$(g rev-parse HEAD)" = "$head0" ] && [ -z "$(g status --porcelain)" ] &&
	ok "the tree is left as it was (HEAD, no change, no object)" || bad "the tree was changed: $(g status --porcelain)"
grep -q 'CONFIG_DEBUG is not set' "$t/w1/obj-release/.config" && grep -q '^CONFIG_DEBUG=y' "$t/w1/obj-debug/.config" &&
	grep -q '^CONFIG_IPIBENCH=y' "$t/w1/obj-release/.config" &&
	ok "release: xen.config with DEBUG off; debug: xen.config + debug.config" || bad "the configurations' .config"

# Again, the top commit alone (-n 1), which the copy has checked out
# already: nothing rebuilds; then HV_PREFIX_BASE: the three again.
b0=$(cat "$t/w1/obj-release/builds" "$t/w1/obj-debug/builds" | wc -l)
out1=$(run -n 1 -w "$t/w1" "$t/tree"); rc1=$?
b1=$(cat "$t/w1/obj-release/builds" "$t/w1/obj-debug/builds" | wc -l)
out=$(HV_PREFIX_BASE=base run -w "$t/w1" "$t/tree"); rc=$?
if [ "$rc1" -eq 0 ] && grep -q '1 prefixes x 2 configs' <<<"$out1" && [ "$b0" -eq 6 ] && [ "$b1" -eq 6 ]; then
	ok "-n 1 on the same copy: the top's two configurations, nothing rebuilt"
else
	bad "-n 1 rerun: status $rc1, builds $b0 then $b1 (want 6, 6), output:"; sed 's/^/       /' <<<"$out1"
fi
if [ "$rc" -eq 0 ] && grep -q '3 prefixes x 2 configs' <<<"$out"; then
	ok "HV_PREFIX_BASE=base: the 3 commits above the tag"
else
	bad "HV_PREFIX_BASE: status $rc, output:"; sed 's/^/       /' <<<"$out"
fi

# Prefix 2 fails in debug only: the run stops there.
g checkout -q -b debugbroken base
echo 1 >>"$t/tree/xen/src.c"; g commit -qam "patch 1"
echo DEBUGBROKEN >>"$t/tree/xen/src.c"; g commit -qam "patch 2 breaks debug"
echo "3 fixes it" >"$t/tree/xen/src.c"; g commit -qam "patch 3"
out=$(run -n 3 -w "$t/w2" "$t/tree"); rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c '^prefix .*: ok ' <<<"$out")" -eq 3 ] &&
   grep -q '^prefix 2/3 [0-9a-f]* debug: FAIL after [0-9]* s  patch 2 breaks debug$' <<<"$out" &&
   grep -q '^    src.c:1: error: debug$' <<<"$out" && ! grep -q '^prefix 3/3' <<<"$out" &&
   grep -q 'prefix 2 does not build or link (debug' <<<"$out"; then
	ok "a prefix that fails in debug only: its FAIL line and log, nothing after it, status 1"
else
	bad "debug-only failure: status $rc, output:"; sed 's/^/       /' <<<"$out"
fi

# --series: the first three commits as format-patch files, applied to an
# unpacked copy of the base (no .git).
g checkout -q master 2>/dev/null || g checkout -q main
mkdir -p "$t/series" "$t/unpacked"
g format-patch -q -o "$t/series" base..HEAD~0 >/dev/null
(cd "$t/series" && ls 0*.patch) >"$t/series/series"
git -C "$t/tree" archive base | tar -x -C "$t/unpacked"
out=$(run -w "$t/w3" --series "$t/series" --src "$t/unpacked"); rc=$?
if [ "$rc" -eq 0 ] && [ "$(grep -c '^prefix .*: ok ' <<<"$out")" -eq 6 ] && grep -q 'prefix 3/3 .* patch 3$' <<<"$out"; then
	ok "--series onto an unpacked tree: 3 patches, 6 builds"
else
	bad "--series: status $rc, output:"; sed 's/^/       /' <<<"$out"
fi
# A patch that does not apply fails as its prefix.
sed -i 's/^+2$/+2 changed/; s/^ 2$/ 2 changed/' "$t/series/0003-"*.patch
out=$(run -w "$t/w4" --series "$t/series" --src "$t/unpacked"); rc=$?
if [ "$rc" -eq 1 ] && grep -q '^prefix 3/3 ------- apply: FAIL 0003-.* does not apply with git am$' <<<"$out" &&
   ! grep -q '^prefix 3/3 [0-9a-f]' <<<"$out"; then
	ok "--series with a patch that does not apply: its prefix fails, status 1"
else
	bad "--series, a patch that does not apply: status $rc, output:"; sed 's/^/       /' <<<"$out"
fi

# Refusals: status 2.
run -n 4 -w "$t/w5" "$t/tree" >/dev/null; rc1=$?
run -n 1 "$t/nothing" >/dev/null; rc2=$?
HV_PREFIX_CONFIGS=fast run -n 1 -w "$t/w5" "$t/tree" >/dev/null; rc3=$?
[ "$rc1$rc2$rc3" = 222 ] && ok "refused with status 2: -n past the first commit, no Xen tree, an unknown config" ||
	bad "refusals: status $rc1 $rc2 $rc3, want 2 2 2"
[ "$fails" -eq 0 ] || { echo "test_hv_prefix: $fails failed"; exit 1; }
