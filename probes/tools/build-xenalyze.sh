#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build xenalyze from the Xen 4.17 source tree, with plain gcc (no configure).
#   build-xenalyze.sh [OUT]        default OUT: build/bin/xenalyze
# The source tree comes from `apt-get source xen` (deb-src is enabled by
# `make deps`), unpacked once under build/trace-dev/src.  If the hypervisor
# build (`make hv`) already unpacked a tree under build/xen, that one is used.
set -euo pipefail
out=${1:-build/bin/xenalyze}
src=
for d in build/xen/src build/xen build/trace-dev/src; do
	if [ -f "$d/tools/xentrace/xenalyze.c" ]; then src=$d; break; fi
done
if [ -z "$src" ]; then
	mkdir -p build/trace-dev
	( cd build/trace-dev && apt-get source --download-only xen >/dev/null )
	mkdir -p build/trace-dev/src
	tar xf build/trace-dev/xen_*.orig.tar.xz -C build/trace-dev/src --strip-components=1
	src=build/trace-dev/src
fi
[ -x "$out" ] && [ "$out" -nt "$src/tools/xentrace/xenalyze.c" ] && exit 0
inc=build/trace-dev/include
mkdir -p "$inc" "$(dirname "$out")"
ln -sfn "$(realpath "$src/xen/include/public")" "$inc/xen"
# -O2 as Xen's tools build uses; xenalyze's own warnings are not ours to fix.
gcc -O2 -g -w -std=gnu99 -D_GNU_SOURCE -D__XEN_TOOLS__ -I "$src/tools/include" -I "$inc" \
	"$src/tools/xentrace/xenalyze.c" "$src/tools/xentrace/mread.c" -o "$out"
echo "xenalyze: built $out from $src"
