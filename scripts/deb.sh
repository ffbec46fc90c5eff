#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make deb: ipibench_VERSION_amd64.deb and ipibench-xen-4.17_VERSION_amd64.deb
# and the source package (ipibench_VERSION.dsc, .tar.xz) with Debian's own
# tooling (dpkg-buildpackage, debhelper: debian/), built in a scratch copy of
# the tree so that nothing is written beside it.
#
#   scripts/deb.sh BUILD            -> BUILD/deb/*.deb, *.dsc, *.changes, build.log
#
# The maintainer (control's Maintainer, the changelog's trailer) is the one
# dch would write: DEBFULLNAME (else NAME) and DEBEMAIL (else EMAIL; DEBEMAIL
# may be "Name <address>" itself).  Without them, debian/'s own: the
# project's role address, the one its commits are made with.
#
# The copy is the tree's tracked files (as they are in the work tree) in
# BUILD/deb/ipibench-VERSION/, plus the hypervisor `make hv` built
# (BUILD/xen-4.17: xen, xen.gz, xen.config, build-info) in prebuilt/xen-4.17/.
# A hash of all of that is kept in BUILD/deb/stamp: unchanged, nothing is
# rebuilt.
set -euo pipefail
build=${1:?usage: scripts/deb.sh BUILD}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
xen=$build/xen-4.17
for f in xen xen.gz xen.config build-info; do
	[ -f "$xen/$f" ] || { echo "deb: $xen/$f missing (make hv)" >&2; exit 1; }
done
for p in dpkg-buildpackage dh; do
	command -v $p >/dev/null || { echo "deb: $p not found (make deps-test: dpkg-dev, debhelper)" >&2; exit 1; }
done
git rev-parse --show-toplevel >/dev/null 2>&1 ||
	{ echo "deb: $top is not a git work tree: the package is built from its tracked files" >&2; exit 1; }
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
name=${DEBFULLNAME:-${NAME:-}}
email=${DEBEMAIL:-${EMAIL:-}}
case $email in *'<'*'>'*) name=${email%%<*}; name=${name% }; email=${email#*<}; email=${email%%>*} ;; esac
maint=
if [ -n "$email" ]; then
	[ -n "$name" ] || { echo "deb: DEBEMAIL is set but not DEBFULLNAME (or NAME): the maintainer needs both" >&2; exit 1; }
	case "$name$email" in *[\<\>\|\&]*|*$'\n'*)
		echo "deb: DEBFULLNAME/DEBEMAIL: '$name <$email>' is not a name and an address" >&2; exit 1 ;; esac
	[[ $email == ?*@?*.?* && $email != *' '* ]] ||
		{ echo "deb: DEBEMAIL: '$email' is not a mail address" >&2; exit 1; }
	maint="$name <$email>"
fi
out=$build/deb
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/ipibench-$version

# What the package is made of: every tracked file's content, the hypervisor
# files, this script.
mapfile -d '' files < <(git ls-files -z)
present=()
for f in "${files[@]}"; do [ -f "$f" ] && present+=("$f"); done
hash=$( { printf '%s\0' "${present[@]}" | xargs -0 sha256sum;
	  sha256sum "$xen"/{xen,xen.gz,xen.config,build-info} | sed "s| $xen/| xen/|";
	  echo "maintainer: $maint"; } |
	sha256sum | cut -c1-16)
debs=("$out/ipibench_${version}_amd64.deb" "$out/ipibench-xen-4.17_${version}_amd64.deb")
if [ "$(cat "$out/stamp" 2>/dev/null)" = "$hash" ] && [ -f "${debs[0]}" ] && [ -f "${debs[1]}" ]; then
	echo "deb: up to date (${debs[*]##*/})"
	exit 0
fi

start=$(date +%s)
rm -rf "$src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/*.ddeb "$out"/*.dsc \
	"$out"/*.tar.* "$out/stamp"
mkdir -p "$src/prebuilt/xen-4.17"
printf '%s\0' "${present[@]}" | rsync -a --from0 --files-from=- . "$src/"
cp "$xen"/{xen,xen.gz,xen.config,build-info} "$src/prebuilt/xen-4.17/"
if [ -n "$maint" ]; then
	sed -i "s|^Maintainer: .*|Maintainer: $maint|" "$src/debian/control"
	sed -i "s|^ -- .*>  | -- $maint  |" "$src/debian/changelog"
fi
# The outer make's jobserver and flags do not belong to the package build.
unset MAKEFLAGS MFLAGS MAKELEVEL
# Source and binary packages (lintian checks both: tests/deb/test_deb.sh).
if ! (cd "$src" && dpkg-buildpackage --no-sign -j2) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed: $out/build.log" >&2
	exit 1
fi
echo "$hash" >"$out/stamp"
echo "deb: built in $(( $(date +%s) - start ))s:"
for d in "$out"/*.deb "$out"/*.dsc; do echo "  $d"; done
