#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages ipibench needs, in three lists, and their installer:
#
#   scripts/deps.sh [build]        make deps: what building and `make bench` need
#   scripts/deps.sh test           make deps-test: that, and what the tests need
#   scripts/deps.sh ci             make deps-ci: those, and what only CI needs
#   scripts/deps.sh list LEVEL     print the packages of LEVEL, one a line
#   scripts/deps.sh stanza TYPES SUITES
#                             print a deb822 stanza of TYPES and SUITES on
#                             the machine's Debian archive (nothing else)
#
# The archive is the first Debian entry of the machine's own apt sources,
# in either form (scripts/apt-sources.awk: deb822 debian.sources, or the
# one-line sources.list Debian's installer writes), with its Signed-By:
# no mirror host name is ever written in ipibench.  When the machine has no
# deb-src entry for bookworm or no bookworm-backports, they are added in
# one file, /etc/apt/sources.list.d/ipibench.sources, and a line says so
# and how to remove it.  Only the apt steps need root: they run through
# sudo when the caller is not root.  Quick when everything is present (one
# dpkg-query, one apt-get indextargets, no network).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# ---- the lists: each package with the reason it is there ----------------
# make deps: building (make build, hv, dom0, guest, plugin) and make bench.
BUILD_PKGS=(
	gcc make                # everything
	git                     # the commit results.json names (make's IPIBENCH_COMMIT)
	libjansson-dev libinih-dev libgsl-dev liblzma-dev  # ipibench (runner/, analysis/, probes/)
	libxen-dev              # the dom0 agent (static, against Xen's libraries)
	pkg-config libglib2.0-dev  # the TCG plugin (make plugin: qemu-plugin.h includes glib.h)
	dpkg-dev xz-utils       # make hv: apt-get source xen and dpkg-source unpack it
	flex bison python3      # make hv: Xen's own build
	ccache                  # make hv: rebuilds of the series (scripts/hv.sh uses it when present)
	rsync                   # make hv XEN_SRC=DIR: the copy of your tree
	busybox-static cpio     # make dom0, make guest: the initramfs
	gnuplot-nox             # make bench: the report's plots (ipibench report)
	ninja-build libpixman-1-dev zlib1g-dev python3-venv  # make qemu (scripts/qemu-build.sh)
)
# make bench: QEMU from bookworm-backports (>= 9 emulates x2APIC under TCG).
# make qemu: QEMU 10's build needs meson >= 1.5 (bookworm has 1.0).
BPO_PKGS=(qemu-system-x86 meson)
BPO_MIN_QEMU=9
# make guest (a [guest] config: seed-004): the headers of the kernel make
# dom0 takes (the image linux-image-amd64 depends on, as images/dom0.sh
# resolves it), for the guest's ipbipi module (its vermagic must be the
# guest kernel's).  Empty until apt has its lists: resolved again after
# apt-get update.
guest_headers() {
	local img
	img=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -z "$img" ] || echo "linux-headers-${img#linux-image-}"
}

# make deps-test (make test, unit, integration, test-slow; make deb,
# make bench-trace): what the tests add.
TEST_PKGS=(
	libcmocka-dev           # the unit and integration tests
	perl                    # test_tally: prove reads the tally's TAP
	clang libclang-rt-14-dev  # fuzz-smoke (libFuzzer, its sanitizer runtimes)
	ministat                # test_ministat, test_compare: Debian's ministat beside ours
	jq                      # host-board-test (tests/host/test_tco.sh) reads QMP events
	curl                    # ci-fetch-test (analysis/ci.sh publish fetches the history)
	grub-pc-bin grub-common e2fsprogs  # test_reboot: the GRUB test disk (images/grub-disk.sh)
	debhelper lintian       # make deb, deb-test
	g++                     # ci-template-test: node-gyp builds gitlab-ci-local's re2
	hyperfine time          # make bench-trace (probes/tools/bench-trace.sh runs /usr/bin/time)
	valgrind                # make bench-trace: instructions (cachegrind)
	licensecheck python3-debian  # licence-check (tests/lint/licence.py)
	groff-base man-db       # doc-test: groff -ww, man -l and lexgrog on the manual pages
	shellcheck              # shell-lint: every tracked shell script
	babeltrace2             # test_export: reads back trace export --format ctf
)
# ci-template-test (analysis/ci-local.sh): Debian's nodejs (18), npm and
# libnode-dev (Node's headers: node-gyp builds re2 against them,
# --nodedir=/usr).  A nodejs package that itself provides npm and the
# headers (NodeSource's; it conflicts with Debian's npm and libnode108) is
# kept as it is.
node_pkgs() {
	if dpkg-query -W -f='${Provides}' nodejs 2>/dev/null | grep -w npm >/dev/null &&
	   command -v npm >/dev/null 2>&1 && [ -f /usr/include/node/node_api.h ]; then
		return 0
	fi
	echo nodejs npm libnode-dev
}

# make deps-ci (.ci/run): what only CI's targets add.
CI_PKGS=(
	mmdebstrap              # make host-image (test-host, test-guests, test-host-faults)
)

# ---- the machine's Debian archive ---------------------------------------
SRC_FILE=/etc/apt/sources.list.d/ipibench.sources
# The files the archive entry is read from, in order: IPIBENCH_DEB_SOURCES
# (one file, for tests), else the machine's apt sources in both forms.
source_files() {
	local d=${IPIBENCH_APT_ETC:-/etc/apt} f
	if [ -n "${IPIBENCH_DEB_SOURCES:-}" ]; then
		echo "$IPIBENCH_DEB_SOURCES"
		return
	fi
	for f in "$d/sources.list.d/debian.sources" "$d/sources.list" \
		 "$d"/sources.list.d/*.sources "$d"/sources.list.d/*.list; do
		[ -f "$f" ] && [ "$f" != "$d/sources.list.d/ipibench.sources" ] && echo "$f"
	done | awk '!seen[$0]++'
}

# A deb822 stanza of TYPES and SUITES on that archive: the one way ipibench
# adds a source (also scripts/apt-private.sh's, for Debian 13's sources).
derive_stanza() {
	local files entry
	mapfile -t files < <(source_files)
	if [ ${#files[@]} -eq 0 ]; then
		echo "deps: no apt sources in ${IPIBENCH_APT_ETC:-/etc/apt} (sources.list or sources.list.d/*.sources): cannot derive an apt source" >&2
		return 1
	fi
	if [ -n "${IPIBENCH_DEB_SOURCES:-}" ] && [ ! -r "$IPIBENCH_DEB_SOURCES" ]; then
		echo "deps: $IPIBENCH_DEB_SOURCES not found: cannot derive an apt source from it" >&2
		return 1
	fi
	entry=$(awk -f "$top/scripts/apt-sources.awk" "${files[@]}" 2>/dev/null) || {
		awk -f "$top/scripts/apt-sources.awk" "${files[@]}" 2>&1 >/dev/null | sed 's/^/deps: /' >&2
		return 1
	}
	echo "Types: $1"
	printf '%s\n' "$entry" | grep '^URIs:'
	echo "Suites: $2"
	echo "Components: main"
	printf '%s\n' "$entry" | sed -n '/^Signed-By:/,$p'
}

case ${1:-build} in
stanza)
	derive_stanza "${2:?TYPES}" "${3:?SUITES}"
	exit
	;;
list)
	lvl=${2:?usage: scripts/deps.sh list build|test|ci}
	case $lvl in build|test|ci) ;; *) echo "usage: scripts/deps.sh list build|test|ci" >&2; exit 2 ;; esac
	printf '%s\n' "${BUILD_PKGS[@]}" "${BPO_PKGS[@]}" "linux-headers-(of linux-image-amd64)"
	[ "$lvl" = build ] && exit 0
	printf '%s\n' "${TEST_PKGS[@]}" nodejs npm libnode-dev
	[ "$lvl" = test ] && exit 0
	printf '%s\n' "${CI_PKGS[@]}"
	exit 0
	;;
build|test|ci) level=${1:-build} ;;
*) echo "usage: scripts/deps.sh [build|test|ci] | list LEVEL | stanza TYPES SUITES" >&2; exit 2 ;;
esac

PKGS=("${BUILD_PKGS[@]}")
# Checked with the lists apt has now (whether anything is missing); the
# headers installed are resolved again after apt-get update, so that they
# are those of the kernel make dom0 will take.
hdr=$(guest_headers)
if [ "$level" != build ]; then
	PKGS+=("${TEST_PKGS[@]}")
	read -ra node <<<"$(node_pkgs)"
	PKGS+=("${node[@]}")
fi
[ "$level" != ci ] || PKGS+=("${CI_PKGS[@]}")

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "deps: need root for '$*' and sudo is not installed" >&2
		exit 1
	fi
}

# One dpkg-query for all of them (one a package read dpkg's database some
# 45 times, a second of make check's before its first test): those
# installed, then the others.  A package dpkg does not know is left out of
# its answer, so it is missing.
want=("${PKGS[@]}" ${hdr:+"$hdr"} "${BPO_PKGS[@]}")
declare -A installed=()
while read -r p st; do
	[ "$st" != installed ] || installed[$p]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${want[@]}" 2>/dev/null || true)
missing=()
for p in "${want[@]}"; do
	[ -n "${installed[$p]:-}" ] || missing+=("$p")
done

qemu_ok() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 || return 1
	local v
	v=$(qemu-system-x86_64 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
	[ -n "$v" ] && [ "$v" -ge "$BPO_MIN_QEMU" ]
}

# What apt lacks (with ipibench.sources, if it was added before): bookworm's
# source packages (make hv) and bookworm-backports (QEMU).
# (apt's targets read once: each apt-get indextargets reads all its lists)
targets=$(apt-get indextargets --no-release-info --format '$(RELEASE) $(IDENTIFIER)' 2>/dev/null ||
	true)
have_target() {
	grep -x "$1" >/dev/null <<<"$targets"
}
need=()
have_target "bookworm Sources" || need+=(src)
have_target "bookworm-backports Packages" || need+=(bpo)

if [ ${#missing[@]} -eq 0 ] && qemu_ok && [ ${#need[@]} -eq 0 ]; then
	echo "deps: all present ($level)"
	exit 0
fi

if [ ${#need[@]} -gt 0 ]; then
	[ ! -e "$SRC_FILE" ] || {
		echo "deps: $SRC_FILE is there, yet apt has no bookworm deb-src or no bookworm-backports: remove it (sudo rm $SRC_FILE) and run make deps again" >&2
		exit 1
	}
	tmp=$(mktemp)
	what=()
	{
		echo "# Written by ipibench's scripts/deps.sh, derived from the machine's own apt sources."
		if [[ " ${need[*]} " == *" src "* ]]; then
			derive_stanza deb-src "bookworm bookworm-updates"
			echo
			what+=("deb-src of bookworm, bookworm-updates")
		fi
		if [[ " ${need[*]} " == *" bpo "* ]]; then
			derive_stanza "deb deb-src" bookworm-backports
			what+=("bookworm-backports")
		fi
	} >"$tmp" || { rm -f "$tmp"; exit 1; }
	as_root install -m 0644 "$tmp" "$SRC_FILE"
	rm -f "$tmp"
	added="${what[0]}${what[1]:+; ${what[1]}}"
	echo "deps: added $SRC_FILE ($added); remove it with: sudo rm $SRC_FILE && sudo apt-get update"
fi

as_root apt-get update -q
old=$hdr
hdr=$(guest_headers)
[ -n "$hdr" ] || { echo "deps: cannot resolve linux-image-amd64's headers" >&2; exit 1; }
if [ -n "$old" ] && [ "$old" != "$hdr" ]; then
	for i in "${!missing[@]}"; do
		[ "${missing[$i]}" != "$old" ] || missing[i]=$hdr
	done
fi
echo "deps: installing ${missing[*]:-(backports only)}"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${PKGS[@]}" "$hdr"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-t bookworm-backports "${BPO_PKGS[@]}"
qemu_ok || { echo "deps: qemu-system-x86_64 >= $BPO_MIN_QEMU not available" >&2; exit 1; }
echo "deps: done ($level)"
