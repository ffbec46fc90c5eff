#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make deps: install the Debian packages ipibench needs, and nothing else.
#
# Source packages (deb-src) and bookworm-backports are enabled by deriving a
# new apt source from the first stanza of the machine's own
# /etc/apt/sources.list.d/debian.sources (same URIs and Signed-By), so no
# mirror host name is ever written here.  Only the apt steps need root: they
# run through sudo when the caller is not root.  Idempotent and quick when
# everything is present (one dpkg-query, no network).
set -euo pipefail

# Packages from bookworm.
PKGS=(
	gcc make flex bison python3 pkg-config dpkg-dev xz-utils ccache
	libxen-dev busybox-static
	libjansson-dev libinih-dev libcmocka-dev libgsl-dev liblzma-dev
	gnuplot-nox hyperfine linux-perf ministat
	clang libclang-rt-14-dev
	e2fsprogs cpio rsync
	grub-pc-bin grub-common
	git curl ministat g++
	# mk/test-host.sh and tests/host/test_tco.sh read JSON (results, report, QMP) with it
	jq
	# tcgplug/: the QEMU TCG plugin needs glib (qemu-plugin.h includes glib.h)
	libglib2.0-dev
	# make deb (debian/), make host-image
	debhelper lintian help2man mmdebstrap
	licensecheck python3-debian	# make licence-check (tests/lint/licence.py)
)
# Node.js for gitlab-ci-local (analysis/ci-local.sh, the CI template test):
# Debian's nodejs (18), npm and libnode-dev (Node's headers: node-gyp builds
# gitlab-ci-local's native module re2 against them, --nodedir=/usr).  A
# nodejs package that itself provides npm and the headers (NodeSource's, on
# this machine kind's image; it conflicts with Debian's npm and libnode108)
# is kept as it is.
if dpkg-query -W -f='${Provides}' nodejs 2>/dev/null | grep -w npm >/dev/null &&
   command -v npm >/dev/null 2>&1 && [ -f /usr/include/node/node_api.h ]; then
	:
else
	PKGS+=(nodejs npm libnode-dev)
fi
# The headers of the kernel make dom0 takes (the image linux-image-amd64
# depends on, as mk/dom0.sh resolves it): make guest builds the guest's
# ipbipi module against them (its vermagic must be the guest kernel's).
# Empty until apt has its lists: resolved again after apt-get update.
guest_headers() {
	local img
	img=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -z "$img" ] || echo "linux-headers-${img#linux-image-}"
}
hdr=$(guest_headers)
[ -z "$hdr" ] || PKGS+=("$hdr")
# Packages from bookworm-backports (QEMU >= 9 can emulate x2APIC under TCG).
BPO_PKGS=(qemu-system-x86)
BPO_MIN_QEMU=9

SRC_FILE=/etc/apt/sources.list.d/ipibench.sources
DEB_SOURCES=${IPIBENCH_DEB_SOURCES:-/etc/apt/sources.list.d/debian.sources}

# An apt source stanza (deb822) of TYPES and SUITES with the URIs and
# Signed-By of the first stanza of the machine's debian.sources: the one
# way ipibench adds a source (also used by mk/hv.sh for Debian 13's xen).
derive_stanza() {
	local uris signed
	[ -r "$DEB_SOURCES" ] || {
		echo "deps: $DEB_SOURCES not found: cannot derive an apt source from it" >&2
		return 1
	}
	# First stanza only: its URIs and Signed-By lines.
	uris=$(awk '/^$/{exit} /^URIs:/{print}' "$DEB_SOURCES")
	signed=$(awk '/^$/{exit} /^Signed-By:/{print}' "$DEB_SOURCES")
	[ -n "$uris" ] || { echo "deps: $DEB_SOURCES:1: first stanza has no URIs" >&2; return 1; }
	echo "Types: $1"
	echo "$uris"
	echo "Suites: $2"
	echo "Components: main"
	echo "$signed"
}

# `mk/deps.sh stanza TYPES SUITES` prints that stanza and does nothing else.
if [ "${1:-}" = stanza ]; then
	derive_stanza "${2:?TYPES}" "${3:?SUITES}"
	exit
fi

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

missing=()
for p in "${PKGS[@]}" "${BPO_PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done

qemu_ok() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 || return 1
	local v
	v=$(qemu-system-x86_64 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
	[ -n "$v" ] && [ "$v" -ge "$BPO_MIN_QEMU" ]
}

if [ ${#missing[@]} -eq 0 ] && qemu_ok && [ -f "$SRC_FILE" ]; then
	echo "deps: all present"
	exit 0
fi

if [ ! -f "$SRC_FILE" ]; then
	tmp=$(mktemp)
	{
		echo "# Written by ipibench 'make deps', derived from $DEB_SOURCES."
		derive_stanza deb-src "bookworm bookworm-updates"
		echo
		derive_stanza "deb deb-src" bookworm-backports
	} >"$tmp"
	as_root install -m 0644 "$tmp" "$SRC_FILE"
	rm -f "$tmp"
fi

echo "deps: installing ${missing[*]:-(backports only)}"
as_root apt-get update -q
if [ -z "$hdr" ]; then
	hdr=$(guest_headers)
	[ -n "$hdr" ] || { echo "deps: cannot resolve linux-image-amd64's headers" >&2; exit 1; }
	PKGS+=("$hdr")
fi
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${PKGS[@]}"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-t bookworm-backports "${BPO_PKGS[@]}"
qemu_ok || { echo "deps: qemu-system-x86_64 >= $BPO_MIN_QEMU not available" >&2; exit 1; }
echo "deps: done"
