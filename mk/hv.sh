#!/usr/bin/env bash
# make hv: fetch Xen 4.17 (Debian's xen source package), check it, apply
# hv-patch/series and build only the hypervisor.
#
#   mk/hv.sh OUTDIR [FRAGMENT]
#
# FRAGMENT: a Kconfig fragment applied after hv-patch/xen.config (e.g.
# hv-patch/noipibench.config: the same series with CONFIG_IPIBENCH off).
# HV_DL_DIR and HV_CCACHE_DIR: where the source package and ccache live
# (default OUTDIR/dl, OUTDIR/ccache), so a second build shares them.
#
# OUTDIR/xen          the hypervisor (multiboot ELF, what QEMU's -kernel takes)
# OUTDIR/xen.gz       the same, compressed (what GRUB's multiboot2 takes)
# OUTDIR/xen.config   the .config it was built with
# OUTDIR/build-info   XEN_VERSION=, SERIES_HASH=, BUILT= (read by the runner)
#
# No rebuild when the source package, the series and the fragment are
# unchanged: their hash is kept in OUTDIR/build-info.
set -euo pipefail
out=${1:?usage: mk/hv.sh OUTDIR [FRAGMENT]}
extra=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
series_dir=$top/hv-patch
frag=$series_dir/xen.config
XEN_PKG_VERSION_PREFIX=4.17.
if [ -n "$extra" ]; then
	[ -f "$extra" ] || { echo "hv: $extra: no such fragment" >&2; exit 1; }
	extra=$(cd "$(dirname "$extra")" && pwd)/$(basename "$extra")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
dl=${HV_DL_DIR:-$out/dl}
mkdir -p "$dl"
dl=$(cd "$dl" && pwd)

# The patch series and the fragment name what is built (results carry this
# hash); this script's own hash only decides whether to rebuild.
series_hash() {
	{
		cat "$frag" ${extra:+"$extra"} "$series_dir/series" 2>/dev/null || true
		if [ -f "$series_dir/series" ]; then
			grep -v '^\s*\(#\|$\)' "$series_dir/series" | while read -r p; do
				cat "$series_dir/$p"
			done
		fi
	} | sha256sum | cut -c1-16
}

# 1. Source package (download once; apt checks the .dsc against the
#    archive's signed index, dpkg-source checks the tarballs against it).
dsc=$(ls "$dl"/xen_${XEN_PKG_VERSION_PREFIX}*.dsc 2>/dev/null | tail -1 || true)
if [ -z "$dsc" ]; then
	echo "hv: fetching Xen source (apt-get source xen)"
	(cd "$dl" && apt-get source --download-only -q xen 2>&1 | grep -v '^W: Download is performed unsandboxed') || {
		echo "hv: apt-get source xen failed (is deb-src enabled? run make deps)" >&2
		exit 1
	}
	dsc=$(ls "$dl"/xen_*.dsc | tail -1)
fi
ver=$(sed -n 's/^Version: //p' "$dsc")
case "$ver" in
$XEN_PKG_VERSION_PREFIX*) ;;
*) echo "hv: $dsc: Xen $ver is not 4.17.x" >&2; exit 1 ;;
esac

hash=$(series_hash)
want="XEN_VERSION=$ver SERIES_HASH=$hash BUILD_HASH=$(sha256sum "$0" | cut -c1-16)"
if [ -f "$out/build-info" ] && [ -f "$out/xen" ] &&
   [ "$(head -1 "$out/build-info")" = "$want" ]; then
	echo "hv: up to date (Xen $ver, series $hash): $out/xen"
	exit 0
fi

# 2. Fresh tree: unpack (checks sizes and checksums), apply the series.
src=$out/src
rm -rf "$src" "$out/src.tmp"
echo "hv: unpacking $(basename "$dsc")"
dpkg-source -q -x "$dsc" "$out/src.tmp" >"$out/unpack.log" 2>&1 || {
	cat "$out/unpack.log" >&2
	echo "hv: dpkg-source -x $(basename "$dsc") failed (checksums?)" >&2
	exit 1
}
mv "$out/src.tmp" "$src"
if [ -f "$series_dir/series" ]; then
	grep -v '^\s*\(#\|$\)' "$series_dir/series" | while read -r p; do
		echo "hv: applying $p"
		patch -d "$src" -p1 -s --no-backup-if-mismatch <"$series_dir/$p" || {
			echo "hv: hv-patch/$p does not apply to Xen $ver" >&2
			exit 1
		}
	done
fi

# 3. Configure from the fragment and build only the hypervisor.
cat "$frag" ${extra:+"$extra"} >"$src/xen/.config"
make -s -C "$src/xen" olddefconfig >/dev/null
# ccache: a changed series rebuilds only what it touches (the tree itself is
# unpacked anew each time so that nothing stale survives).
cc=gcc
if command -v ccache >/dev/null 2>&1; then
	cc="ccache gcc"
	export CCACHE_DIR=${HV_CCACHE_DIR:-$out/ccache} CCACHE_BASEDIR=$src
fi
echo "hv: building the hypervisor (about 80 s on 2 cores, less with a warm ccache)"
make -s -C "$src/xen" -j"$(nproc)" CC="$cc" build >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "hv: build failed, see $out/build.log" >&2
	exit 1
}
cp "$src/xen/xen" "$out/xen.tmp" && mv "$out/xen.tmp" "$out/xen"
gzip -9c "$src/xen/xen" >"$out/xen.gz.tmp" && mv "$out/xen.gz.tmp" "$out/xen.gz"
cp "$src/xen/.config" "$out/xen.config"
printf '%s\nBUILT=%s\n' "$want" "$(date -u +%FT%TZ)" >"$out/build-info.tmp"
mv "$out/build-info.tmp" "$out/build-info"
echo "hv: built $out/xen (Xen $ver, series $hash)"
