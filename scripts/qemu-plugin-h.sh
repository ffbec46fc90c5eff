#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The QEMU TCG plugin API header the tcgplug/ plugin is built against.
#
#   scripts/qemu-plugin-h.sh OUT     -> OUT/include/qemu/qemu-plugin.h
#
# The installed QEMU (bookworm-backports 10.0.2) has no -dev package with
# the header and its own source's .dsc is not served; Debian 13's qemu
# source (10.0.x, plugin API version 4) is, and a plugin built against its
# header loads in 10.0.2.  Fetched once with `apt-get source --download-only
# qemu` through a private apt state (scripts/apt-private.sh, trixie deb-src);
# only the header is extracted from the orig tarball, and the tarball is
# removed once the header is there (40 MB).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "qemu-plugin-h: $*" >&2; exit 1; }
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
out=${1:?usage: scripts/qemu-plugin-h.sh OUT}
hdr=$out/include/qemu/qemu-plugin.h
# The plugin API versions this project's plugin is written for.
want_min=4
if [ -f "$hdr" ]; then exit 0; fi
mkdir -p "$out/dl"
dl=$(cd "$out/dl" && pwd)
log=$dl/apt.log
: >"$log"
echo "qemu-plugin-h: fetching Debian 13's qemu source (apt-get source qemu, once: ~40 MB)"
apt_private_init "$out/apt" "trixie trixie-updates" ||
	die "cannot derive a deb-src entry for trixie"
apt_private_update "$log" || die "apt-get update for trixie deb-src failed (see $log)"
(cd "$dl" && apt-get "${apt_opts[@]}" source --download-only -q qemu) >>"$log" 2>&1 || {
	why=$(grep -m1 -o '[0-9][0-9][0-9] *Not Found' "$log" | tr -s ' ' || true)
	die "apt-get source qemu (Debian trixie) failed${why:+: the archive answered $why} (see $log)"
}
orig=$(ls "$dl"/qemu_*.orig.tar.* 2>/dev/null | tail -1 || true)
[ -n "$orig" ] || die "apt-get source qemu gave no orig tarball (see $log)"
dsc=$(ls "$dl"/qemu_*.dsc | tail -1)
# The tarball's checksum against the .dsc before anything is taken from it.
sum=$(awk '/^Checksums-Sha256:/{f=1;next} /^[^ ]/{f=0} f && $3=="'"$(basename "$orig")"'"{print $1}' "$dsc")
[ -n "$sum" ] && [ "$(sha256sum "$orig" | cut -d' ' -f1)" = "$sum" ] ||
	die "$orig: checksum does not match $(basename "$dsc")"
tmp=$(mktemp -d "$out/x.XXXXXX")
tar -C "$tmp" -xf "$orig" --wildcards '*/include/qemu/qemu-plugin.h' ||
	die "$orig: no include/qemu/qemu-plugin.h in it"
f=$(find "$tmp" -path '*/include/qemu/qemu-plugin.h' | head -1)
v=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\)$/\1/p' "$f")
[ -n "$v" ] && [ "$v" -ge "$want_min" ] ||
	die "$f: QEMU_PLUGIN_VERSION ${v:-missing}, the plugin needs >= $want_min"
mkdir -p "$(dirname "$hdr")"
mv "$f" "$hdr.tmp" && mv "$hdr.tmp" "$hdr"
echo "$(sed -n 's/^Version: //p' "$dsc")" >"$out/include/qemu/VERSION"
rm -rf "$tmp" "$orig"
echo "qemu-plugin-h: $hdr (qemu $(cat "$out/include/qemu/VERSION"), plugin API $v)"
