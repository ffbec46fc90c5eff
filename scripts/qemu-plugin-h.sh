#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The QEMU TCG plugin API header the tcgplug/ plugin is built against.
#
#   scripts/qemu-plugin-h.sh OUT     -> OUT/include/qemu/qemu-plugin.h
#
# The installed QEMU (bookworm-backports 10.0.2) has no -dev package with
# the header and its own source's .dsc is not served; Debian 13's qemu
# source (10.0.x, plugin API version 4) is, and a plugin built against its
# header loads in 10.0.2.  The source is Debian 13's qemu package as
# scripts/qemu-source.sh fetches it once for this and make qemu; only the
# header is taken from its orig tarball.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "qemu-plugin-h: $*" >&2; exit 1; }
# shellcheck source=scripts/qemu-source.sh
. "$top/scripts/qemu-source.sh"
out=${1:?usage: scripts/qemu-plugin-h.sh OUT}
hdr=$out/include/qemu/qemu-plugin.h
# The plugin API versions this project's plugin is written for.
want_min=4
if [ -f "$hdr" ]; then exit 0; fi
mkdir -p "$out"
dl=${QEMU_SRC_DL:-$(dirname "$out")/qemu-src}
log=$out/apt.log
: >"$log"
qemu_source "$dl" "$log" || exit 1
orig=$qemu_orig
tmp=$(mktemp -d "$out/x.XXXXXX")
tar -C "$tmp" -xf "$orig" --wildcards '*/include/qemu/qemu-plugin.h' ||
	die "$orig: no include/qemu/qemu-plugin.h in it"
f=$(find "$tmp" -path '*/include/qemu/qemu-plugin.h' | head -1)
v=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\)$/\1/p' "$f")
[ -n "$v" ] && [ "$v" -ge "$want_min" ] ||
	die "$f: QEMU_PLUGIN_VERSION ${v:-missing}, the plugin needs >= $want_min"
mkdir -p "$(dirname "$hdr")"
mv "$f" "$hdr.tmp" && mv "$hdr.tmp" "$hdr"
echo "$qemu_version" >"$out/include/qemu/VERSION"
rm -rf "$tmp"
echo "qemu-plugin-h: $hdr (qemu $(cat "$out/include/qemu/VERSION"), plugin API $v)"
