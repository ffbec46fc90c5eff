#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The emulated host's QEMU: Debian 13's qemu source with Debian's own
# patches and the project's QEMU fixes (scripts/emu/qemu-*.patch), built
# for x86_64 system emulation only.
#
#   scripts/qemu-build.sh OUT   -> OUT/qemu-system-x86_64, OUT/VERSION
#
# Why: the distribution's QEMU (bookworm-backports 10.0.2) has TCG SVM
# bugs that stop or kill an emulated Xen host running HVM guests
# (docs/stalls.md, docs/guests.md).  The source is fetched once for this
# and the plugin's header (scripts/qemu-source.sh) and unpacked with
# dpkg-source, which checks it against the .dsc.  The binary keeps
# Debian's firmware path, so the installed qemu-system-data and seabios
# serve it (as Debian's own build: --disable-relocatable).  OUT/VERSION names the source and each patch's SHA-256: the
# build is redone when a patch changes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "qemu-build: $*" >&2; exit 1; }
# shellcheck source=scripts/qemu-source.sh
. "$top/scripts/qemu-source.sh"
out=${1:?usage: scripts/qemu-build.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
mapfile -t patches < <(find "$top/scripts/emu" -maxdepth 1 -name 'qemu-*.patch' | LC_ALL=C sort)
want=$( (for p in "${patches[@]}"; do echo "patch $(basename "$p") $(sha256sum <"$p" | cut -d' ' -f1)"; done) )
if [ -x "$out/qemu-system-x86_64" ] && [ -f "$out/VERSION" ] &&
   [ "$(grep '^patch ' "$out/VERSION")" = "$want" ]; then
	exit 0
fi
log=$out/build.log
: >"$log"
qemu_source "${QEMU_SRC_DL:-$(dirname "$out")/qemu-src}" "$log" || exit 1
dsc=$qemu_dsc
ver=$qemu_version
src=$out/src
rm -rf "$src" "$out/build"
echo "qemu-build: unpacking qemu $ver with Debian's patches"
# dpkg-source checks every file against the .dsc's checksums; with no
# keyring installed it says so and skips only the signature.
dpkg-source -x "$dsc" "$src" >>"$log" 2>&1 || die "dpkg-source -x $(basename "$dsc") failed (see $log)"
for p in "${patches[@]}"; do
	echo "qemu-build: applying $(basename "$p")"
	patch -d "$src" -p1 --forward --quiet <"$p" >>"$log" 2>&1 ||
		die "$(basename "$p") does not apply to qemu $ver (see $log)"
done
mkdir -p "$out/build"
echo "qemu-build: configuring (x86_64-softmmu only)"
(cd "$out/build" && "$src/configure" --python=/usr/bin/python3 --target-list=x86_64-softmmu \
	--prefix=/usr --firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu \
	--with-pkgversion="Debian $ver + ipibench" --disable-download --disable-docs \
	--disable-werror --disable-tools --disable-guest-agent --disable-gtk --disable-sdl \
	--disable-vnc --disable-opengl --disable-xkbcommon --disable-user --disable-install-blobs --disable-relocatable \
	--enable-plugins) >>"$log" 2>&1 || die "configure failed (see $log)"
n=$(nproc)
echo "qemu-build: building qemu-system-x86_64 with $n jobs (about 5 minutes on 2 cores)"
ninja -C "$out/build" -j "$n" qemu-system-x86_64 >>"$log" 2>&1 ||
	die "the build failed (see $log)"
"$out/build/qemu-system-x86_64" --version >>"$log" 2>&1 || die "the built binary does not run (see $log)"
# A copy, not a link: run from the build tree, QEMU takes its firmware
# from the tree's qemu-bundle/, which has none (the +ds source has no
# blobs); from here it uses the firmware path above.
cp "$out/build/qemu-system-x86_64" "$out/qemu-system-x86_64.tmp"
mv "$out/qemu-system-x86_64.tmp" "$out/qemu-system-x86_64"
{ echo "source qemu $ver"; echo "$want"; } >"$out/VERSION.tmp"
mv "$out/VERSION.tmp" "$out/VERSION"
echo "qemu-build: $out/qemu-system-x86_64 ($("$out/qemu-system-x86_64" --version | head -1))"
