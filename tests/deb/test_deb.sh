#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck disable=SC2034 # the checks' variables are read by eval (check)
# The Debian packages `make deb` built (BUILD/deb): lintian finds no warning
# or error, on the source package and the binary ones, that is not
# overridden with its reason (debian/*.lintian-overrides); the packages hold
# what a test host needs where the command looks for it (the docs, the
# manual pages, the reference figures, the unit), declare what the command
# runs, and carry the maintainer scripts; the unpacked command, run from the
# unpacked tree, finds its agent and hypervisor there (build_dir() from
# /proc/self/exe): `ipibench host install --root` into a fake host writes
# the GRUB entries with those paths and uses the packaged unit when it runs
# that binary.  Installing and purging on a real host: scripts/test-host.sh.
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
dsc=$build/deb/ipibench_${version}.dsc
for f in "$deb" "$xdeb" "$changes" "$dsc"; do
	[ -f "$f" ] || { fail "built: $f"; echo "deb-test: $fails failed"; exit 1; }
done

# lintian: every tag at warning or error level fixed or overridden, on the
# .changes (the source package and both binary ones).
lintian --fail-on warning,error --pedantic --info "$changes" >"$t/lintian" 2>&1
rc=$?
grep -E '^[EW]:' "$t/lintian" >"$t/bad"
if [ $rc -eq 0 ] && [ ! -s "$t/bad" ]; then
	ok "lintian: no warnings or errors ($(grep -cE '^[IP]:' "$t/lintian") info/pedantic tags)"
else
	fail "lintian (rc $rc)" "$(grep -E '^[EWIPX]:' "$t/lintian" | head -20)"
fi
check "lintian checked the source package (.dsc in the .changes)" 'grep -q " ipibench_${version}.dsc$" "$changes"'
for p in ipibench_${version}_amd64.deb ipibench-xen-4.17_${version}_amd64.deb; do
	check "lintian checked $p (in the .changes)" 'grep -q " $p$" "$changes"'
done

# Contents and relations.
dpkg-deb -c "$deb" | awk '{print $6 $7 $8}' >"$t/c1"
dpkg-deb -c "$xdeb" | awk '{print $6 $7 $8}' >"$t/c2"
for p in ./usr/bin/ipibench-\>../lib/ipibench/bin/ipibench ./usr/lib/ipibench/bin/ipibench \
	 ./usr/lib/ipibench/bin/ipibench-agent ./usr/share/man/man1/ipibench.1.gz \
	 ./usr/share/man/man5/ipibench.ini.5.gz \
	 ./usr/share/ipibench/results/reference/seed-96cpu.json \
	 ./usr/share/ipibench/results/reference/seed-512cpu.json \
	 ./usr/share/ipibench/results/reference/seed-004.json \
	 ./usr/share/ipibench/configs/host-dom0.ini \
	 ./usr/share/ipibench/configs/host-matrix.ini \
	 ./lib/systemd/system/ipibench-resume.service \
	 ./usr/share/doc/ipibench/copyright; do
	check "ipibench holds $p" 'grep -qxF -- "$p" "$t/c1"'
done
for d in "$top"/docs/*.md README.Debian; do
	d=./usr/share/doc/ipibench/${d##*/}
	check "ipibench holds $d" 'grep -qxE -- "$d(\.gz)?" "$t/c1"'
done
for v in run boot host trace report history; do
	check "ipibench holds the page ipibench-$v(1)" 'grep -qxF ./usr/share/man/man1/ipibench-$v.1.gz "$t/c1"'
done
check "no example config (they need a build tree)" '! grep -q "/examples/" "$t/c1"'
check "only the real-host configs" '[ "$(grep -c "^./usr/share/ipibench/configs/.*\.ini$" "$t/c1")" = 2 ]'
check "not the source tree's README.md" '! grep -qE "^./usr/share/doc/ipibench/README.md" "$t/c1"'
for p in ./usr/lib/ipibench/xen-\>xen-4.17 ./usr/lib/ipibench/xen-4.17/xen.gz \
	 ./usr/lib/ipibench/xen-4.17/xen ./usr/lib/ipibench/xen-4.17/build-info; do
	check "ipibench-xen-4.17 holds $p" 'grep -qxF -- "$p" "$t/c2"'
done
check "no file in both packages" '[ -z "$(sort "$t/c1" "$t/c2" | grep -v "/$" | uniq -d)" ]'
dep=$(dpkg-deb -f "$deb" Depends)
for l in libjansson4 libinih1 libgsl27; do
	check "ipibench depends on $l" '[[ "$dep" == *"$l "* ]]'
done
rec=$(dpkg-deb -f "$deb" Recommends)
for r in "gnuplot-nox | gnuplot" grub-common "ipibench-xen-4.17 (= $version)" xen-utils-4.17; do
	check "ipibench recommends $r" '[[ ", $rec," == *", $r,"* ]]'
done
sug=$(dpkg-deb -f "$deb" Suggests)
for r in apache2-utils iproute2 iputils-ping kmod; do
	check "ipibench suggests $r (guest workloads)" '[[ ", $sug," == *", $r,"* ]]'
done
check "ipibench-xen-4.17 recommends xen-utils-4.17" '[ "$(dpkg-deb -f "$xdeb" Recommends)" = xen-utils-4.17 ]'
if [ -n "${DEBEMAIL:-${EMAIL:-}}" ]; then
	want_maint="${DEBFULLNAME:-${NAME:-}} <${DEBEMAIL:-${EMAIL:-}}>"
	case ${DEBEMAIL:-${EMAIL:-}} in *'<'*) want_maint=${DEBEMAIL:-${EMAIL:-}} ;; esac
else
	want_maint=$(sed -n 's/^Maintainer: //p' "$top/debian/control")
fi
check "Maintainer is $want_maint (DEBFULLNAME/DEBEMAIL, else debian/control's)" \
	'[ "$(dpkg-deb -f "$deb" Maintainer)" = "$want_maint" ]'

# Maintainer scripts: remove ends a host's set-up, purge removes what is left;
# the unit is not enabled on install.
dpkg-deb -e "$deb" "$t/ctl"
check "prerm runs ipibench host uninstall on remove" \
	'grep -q "^		/usr/lib/ipibench/bin/ipibench host uninstall$" "$t/ctl/prerm"'
check "postrm purges /var/lib/ipibench and /boot/ipibench" \
	'grep -qxF "	rm -rf /boot/ipibench /var/lib/ipibench" "$t/ctl/postrm"'
# dh_installsystemd --no-enable: enabled again on upgrade only where it was.
check "postinst enables the unit only where it was enabled" \
	'grep -q "if deb-systemd-helper debian-installed .ipibench-resume.service.; then" "$t/ctl/postinst"'
check "postrm has debhelper's purge of the unit" 'grep -q "deb-systemd-helper purge .ipibench-resume.service." "$t/ctl/postrm"'
for s in prerm postrm; do
	check "$s passes sh -n" 'sh -n "$t/ctl/$s"'
done
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
check "the packaged unit is the template with the package's paths" \
	'cmp -s "$r/lib/systemd/system/ipibench-resume.service" <(sed -e "s|@IPIBENCH@|/usr/lib/ipibench/bin/ipibench|" \
		-e "s|@BUILD@|/usr/lib/ipibench|" "$top/runner/host/ipibench-resume.service")'
h=$t/host
mkdir -p "$h/boot/grub"
: >"$h/boot/vmlinuz-test"; : >"$h/boot/initrd.img-test"
IPIBENCH_BUILD='' "$r/usr/bin/ipibench" host install --root "$h" --yes --kernel "$h/boot/vmlinuz-test" \
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

# The packaged unit as it would be for this unpacked command: install uses
# it and writes none to /etc.
mkdir -p "$h/lib/systemd/system"
sed -e "s|/usr/lib/ipibench|$r/usr/lib/ipibench|g" "$r/lib/systemd/system/ipibench-resume.service" \
	>"$h/lib/systemd/system/ipibench-resume.service"
IPIBENCH_BUILD='' "$r/usr/bin/ipibench" host install --root "$h" --yes --kernel "$h/boot/vmlinuz-test" \
	--initrd "$h/boot/initrd.img-test" --xen-cmdline "console=com1" --dom0-cmdline "ro" \
	--results "$h/var/lib/ipibench/results" >"$t/install2.out" 2>&1
rc=$?
check "host install with the packaged unit succeeds" '[ $rc -eq 0 ]' || cat "$t/install2.out"
check "it uses the packaged unit (none written to /etc)" '[ ! -e "$unit" ]'

[ $fails -eq 0 ] && echo "deb-test: all passed" || echo "deb-test: $fails failed"
[ $fails -eq 0 ]
