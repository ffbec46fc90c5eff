#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# scripts/hv.sh's choices that need no download and no build: the version read
# from a tree's xen/Makefile, the build folder's name, the series chosen by
# version, and each refusal's one line.  Run by `make hv-script-test` (a
# unit check of the tally).  Exits 1 at the first difference.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0

# A fake top: scripts/hv.sh, scripts/deps.sh, scripts/apt-private.sh and lines of our own.
mkdir -p "$t/top/scripts" "$t/top/hv-patch" "$t/build"
cp "$top/scripts/hv.sh" "$top/scripts/hv-series.py" "$top/scripts/deps.sh" "$top/scripts/apt-sources.awk" "$top/scripts/apt-private.sh" "$t/top/scripts/"
printf '# name pattern\n4.20 4.20.*\n4.17 4.17.*\n' >"$t/top/hv-patch/lines"
hv="$t/top/scripts/hv.sh"

tree() {  # DIR VERSION SUBVERSION EXTRAVERSION
	mkdir -p "$1/xen"
	printf 'export XEN_VERSION       = %s\nexport XEN_SUBVERSION    = %s\nexport XEN_EXTRAVERSION ?= %s$(XEN_VENDORVERSION)\n' \
		"$2" "$3" "$4" >"$1/xen/Makefile"
}

expect() {  # WHAT WANT GOT
	if [ "$2" != "$3" ]; then
		echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"
		fails=$((fails + 1))
	else
		echo "ok   $1"
	fi
}

tree "$t/x421" 4 21 .0
tree "$t/x420" 4 20 .4
tree "$t/stg" 4 23 -unstable
mkdir -p "$t/notxen"

expect "folder of a tree without git: its version" "$t/build/xen-src-4.20.4" \
	"$(bash "$hv" --dir "$t/build" --src "$t/x420")"
expect "folder of an -unstable tree" "$t/build/xen-src-4.23-unstable" \
	"$(bash "$hv" --dir "$t/build" --src "$t/stg")"
expect "folder of a Debian version" "$t/build/xen-4.20" "$(bash "$hv" --dir "$t/build" 4.20)"

# A git checkout: git describe names it (and -dirty when it is).
tree "$t/g" 4 23 -unstable
git -C "$t/g" init -q && git -C "$t/g" add -A &&
	git -C "$t/g" -c user.name=t -c user.email=t@t commit -qm t
d=$(git -C "$t/g" describe --always --dirty --tags)
expect "folder of a git checkout" "$t/build/xen-src-$d" "$(bash "$hv" --dir "$t/build" --src "$t/g")"
echo change >>"$t/g/xen/Makefile"
expect "folder of a changed git checkout" "$t/build/xen-src-$d-dirty" \
	"$(bash "$hv" --dir "$t/build" --src "$t/g")"

expect "a version without a series, refused naming those there are" \
	"hv: Xen 4.21.0 (XEN_SRC=$t/x421) is on no line of hv-patch/lines; supported: 4.17 4.20" \
	"$(bash "$hv" "$t/build" --src "$t/x421" 2>&1)"
expect "staging without a series" \
	"hv: Xen 4.23-unstable (XEN_SRC=$t/stg) is on no line of hv-patch/lines; supported: 4.17 4.20" \
	"$(bash "$hv" "$t/build" --src "$t/stg" 2>&1)"
expect "nothing written for a refused tree" "" "$(ls "$t/build")"
expect "not a Xen tree" "hv: XEN_SRC=$t/notxen: no xen/Makefile there: not a Xen source tree" \
	"$(bash "$hv" "$t/build" --src "$t/notxen" 2>&1)"
expect "a version ipibench does not fetch" \
	"hv: XEN=4.18: ipibench fetches Xen 4.17 (Debian 12) or 4.20 (Debian 13); for another version or your own tree: make hv XEN_SRC=DIR" \
	"$(bash "$hv" "$t/build" 4.18 2>&1)"
expect "HV_PATCH that is not there, refused before anything is written" \
	"hv: HV_PATCH=$t/none.patch: no such file" \
	"$(HV_PATCH=$t/none.patch bash "$hv" "$t/build" --src "$t/x420" 2>&1)"
expect "... and nothing written" "" "$(ls "$t/build")"
expect "HV_UPSTREAM neither 0 nor 1, refused before anything is written" \
	"hv: HV_UPSTREAM=yes: expected 0 (the series alone) or 1" \
	"$(HV_UPSTREAM=yes bash "$hv" "$t/build" --src "$t/x420" 2>&1)"
expect "... and nothing written" "" "$(ls "$t/build")"
# Debian 13's source without a debian.sources to derive its entry from.
expect "XEN=4.20 without debian.sources" \
	"deps: /nonexistent/debian.sources not found: cannot derive an apt source from it
hv: XEN=4.20: cannot derive a deb-src entry for trixie trixie-updates" \
	"$(IPIBENCH_DEB_SOURCES=/nonexistent/debian.sources bash "$hv" "$t/build" 4.20 2>&1)"
# The deb-src entry for 4.20: the first stanza's URIs and Signed-By.
printf 'Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm\nComponents: main\nSigned-By: /k.gpg\n\nTypes: deb\nURIs: http://other.invalid/\n' >"$t/debian.sources"
expect "the derived trixie entry" "Types: deb-src
URIs: http://mirror.invalid/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /k.gpg" "$(IPIBENCH_DEB_SOURCES=$t/debian.sources bash "$t/top/scripts/deps.sh" stanza deb-src 'trixie trixie-updates')"

[ "$fails" -eq 0 ] || { echo "test_hv_sh: $fails failed"; exit 1; }
echo "test_hv_sh: all passed"
