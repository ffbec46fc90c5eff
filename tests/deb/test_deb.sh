#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages `make deb` built (BUILD/deb): lintian finds no warning
# or error that is not overridden with its reason (debian/*.lintian-overrides),
# the packages hold what a test host needs where the command looks for it,
# and the unpacked command, run from the unpacked tree, finds its agent and
# hypervisor there (build_dir() from /proc/self/exe): `ipibench host install
# --root` into a fake host writes the unit and GRUB entries with those paths.
# Run by `make deb-test` (a unit check of the tally).  Exits 1 on a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; [ -z "${2:-}" ] || echo "  $2"; fails=$((fails + 1)); }
check() { if eval "$2"; then ok "$1"; else fail "$1" "$2"; fi; }

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src_version=$(sed -n 's/^#define IPIBENCH_VERSION "\(.*\)"/\1/p' "$top/runner/runner.h")
check "debian/changelog's version is runner/runner.h's ($src_version)" '[ "$version" = "$src_version" ]'
deb=$build/deb/ipibench_${version}_amd64.deb
xdeb=$build/deb/ipibench-xen-4.17_${version}_amd64.deb
changes=$build/deb/ipibench_${version}_amd64.changes
for f in "$deb" "$xdeb" "$changes"; do
	[ -f "$f" ] || { fail "built: $f"; echo "deb-test: $fails failed"; exit 1; }
done

# lintian: every tag at warning or error level fixed or overridden.
lintian --fail-on warning,error --pedantic --info "$changes" >"$t/lintian" 2>&1
rc=$?
grep -E '^[EW]:' "$t/lintian" >"$t/bad"
if [ $rc -eq 0 ] && [ ! -s "$t/bad" ]; then
	ok "lintian: no warnings or errors ($(grep -cE '^[IP]:' "$t/lintian") info/pedantic tags)"
else
	fail "lintian (rc $rc)" "$(grep -E '^[EWIPX]:' "$t/lintian" | head -20)"
fi

# Contents and relations.
dpkg-deb -c "$deb" | awk '{print $6 $7 $8}' >"$t/c1"
dpkg-deb -c "$xdeb" | awk '{print $6 $7 $8}' >"$t/c2"
for p in ./usr/bin/ipibench-\>../lib/ipibench/bin/ipibench ./usr/lib/ipibench/bin/ipibench \
	 ./usr/lib/ipibench/bin/ipibench-agent ./usr/share/man/man1/ipibench.1.gz \
	 ./usr/share/ipibench/results/reference/seed-96cpu.json \
	 ./usr/share/doc/ipibench/examples/smoke.ini ./usr/share/doc/ipibench/copyright; do
	check "ipibench holds $p" 'grep -qxF -- "$p" "$t/c1"'
done
for p in ./usr/lib/ipibench/xen-\>xen-4.17 ./usr/lib/ipibench/xen-4.17/xen.gz \
	 ./usr/lib/ipibench/xen-4.17/xen ./usr/lib/ipibench/xen-4.17/build-info; do
	check "ipibench-xen-4.17 holds $p" 'grep -qxF -- "$p" "$t/c2"'
done
check "no file in both packages" '[ -z "$(sort "$t/c1" "$t/c2" | grep -v "/$" | uniq -d)" ]'
dep=$(dpkg-deb -f "$deb" Depends)
for l in libjansson4 libinih1 libgsl27; do
	check "ipibench depends on $l" '[[ "$dep" == *"$l "* ]]'
done
check "ipibench recommends ipibench-xen-4.17" '[ "$(dpkg-deb -f "$deb" Recommends)" = ipibench-xen-4.17 ]'
check "Built-Using names the xen source of the static libraries" \
	'[[ "$(dpkg-deb -f "$deb" Built-Using)" == "xen (= "*")" ]]'
info=$(dpkg-deb --fsys-tarfile "$xdeb" | tar -xO ./usr/lib/ipibench/xen-4.17/build-info | head -1)
xsrc=$(sed -n 's/.*XEN_SOURCE=debian:\([^ ]*\).*/\1/p' <<<"$info")
check "ipibench-xen-4.17's Built-Using is its build-info's source ($xsrc)" \
	'[ "$(dpkg-deb -f "$xdeb" Built-Using)" = "xen (= $xsrc)" ]'
check "the packaged xen.gz is make hv's hypervisor" \
	'cmp -s <(dpkg-deb --fsys-tarfile "$xdeb" | tar -xO ./usr/lib/ipibench/xen-4.17/xen.gz | zcat) <(zcat "$build/xen-4.17/xen.gz")'

# The unpacked tree, as the command sees it.
r=$t/root
dpkg-deb -x "$deb" "$r" && dpkg-deb -x "$xdeb" "$r"
check "ipibench --version is $version" '[ "$("$r/usr/bin/ipibench" --version)" = "ipibench $version" ]'
check "the man page names every command" \
	'man -l "$r/usr/share/man/man1/ipibench.1.gz" 2>/dev/null | grep "host .*install|uninstall|status" >/dev/null'
h=$t/host
mkdir -p "$h/boot/grub"
: >"$h/boot/vmlinuz-test"; : >"$h/boot/initrd.img-test"
IPIBENCH_BUILD= "$r/usr/bin/ipibench" host install --root "$h" --yes --kernel "$h/boot/vmlinuz-test" \
	--initrd "$h/boot/initrd.img-test" --xen-cmdline "console=com1" --dom0-cmdline "ro" \
	--results "$h/var/lib/ipibench/results" >"$t/install.out" 2>&1
rc=$?
check "host install from the package (default --xen) succeeds" '[ $rc -eq 0 ]' || cat "$t/install.out"
check "it installed the packaged hypervisor" \
	'cmp -s "$h/boot/ipibench/xen.gz" "$r/usr/lib/ipibench/xen-4.17/xen.gz"'
unit=$h/etc/systemd/system/ipibench-resume.service
check "the unit runs the packaged command" \
	'grep -qxF "ExecStart=$r/usr/lib/ipibench/bin/ipibench run --resume \${IPIBENCH_RESULTS}" "$unit"'
check "the unit's IPIBENCH_BUILD is the package's folder" \
	'grep -qxF "Environment=IPIBENCH_BUILD=$r/usr/lib/ipibench" "$unit"'
check "GRUB entries written" '[ "$(grep -c "^menuentry" "$h/boot/grub/custom.cfg")" -ge 2 ]'

[ $fails -eq 0 ] && echo "deb-test: all passed" || echo "deb-test: $fails failed"
[ $fails -eq 0 ]
