#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make hv: get a Xen source tree, apply the series for its version and build
# only the hypervisor, each build in its own folder.
#
#   scripts/hv.sh BUILD XEN          XEN = 4.17 (Debian 12's xen source package)
#                               or 4.20 (Debian 13's): BUILD/xen-XEN/
#   scripts/hv.sh BUILD --src DIR    a tree the user has (never modified: a copy
#                               is patched): BUILD/xen-src-ID/, ID being
#                               `git describe --always --dirty` of DIR when
#                               it is a git work tree, else its version
#   scripts/hv.sh --dir BUILD XEN|--src DIR    print that folder and nothing else
#
# Environment, for a second build of the same source (make hv-off):
#   HV_OUT=DIR         build into DIR instead of the version's folder
#   HV_FRAGMENT=FILE   a Kconfig fragment applied after the series' xen.config
#                      (hv-patch/noipibench.config: CONFIG_IPIBENCH off); it
#                      is part of the series hash
#   HV_UPSTREAM=0      leave out hv-patch/upstream/'s fixes to Xen itself,
#                      which every build otherwise applies after the series
#                      (make hv-bare: the series alone, to reproduce what
#                      the fixes fix); whether they are in is part of the
#                      series hash and of build-info (FIXES=)
#   HV_PATCH=FILE      one more patch applied after the series (-p1 from the
#                      tree's top; make hv-inject: a test's injected change,
#                      tests/integration/data/inject-send-work.patch); it is
#                      part of the series hash too
#   HV_DL_DIR, HV_CCACHE_DIR   where the source package and ccache live
#                      (default DIR/dl, DIR/ccache), so two builds share them
#   HV_GITTREE=DIR     build nothing: make the line's series as a git tree
#                      in DIR, one commit per patch (make hv-prefix-check)
#   HV_EXPORT=DIR      build nothing: export the line's series for this
#                      source as `git format-patch` files with a cover
#                      letter into DIR (make hv-series), From and
#                      Signed-off-by the user's git identity
#
# In the folder:
#   xen          the hypervisor (multiboot ELF, what QEMU's -kernel takes)
#   xen.gz       the same, compressed (what GRUB's multiboot2 takes)
#   xen.config   the .config it was built with
#   build-info   XEN_VERSION= XEN_SOURCE= SERIES= SERIES_HASH= FIXES= BUILD_HASH=
#                (one line, read by the runner and copied into results),
#                then BUILT= and, for a tree, SRC_DIR=
#
# The series is kept once (hv-patch/: the new files in src/, each patch's
# hooks into Xen's own files per line) and made for the Xen line whose
# version pattern in hv-patch/lines matches the tree's version, by
# scripts/hv-series.py; the Kconfig fragment is hv-patch/xen.config.  A version
# no line matches is refused, naming the lines there are.  No rebuild when
# the source, the series and this script are unchanged (their hashes are
# the first line of build-info).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "hv: $*" >&2; exit 1; }
# shellcheck source=scripts/apt-private.sh
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"

print_dir=
if [ "${1:-}" = --dir ]; then print_dir=1; shift; fi
build=${1:?usage: scripts/hv.sh [--dir] BUILD XEN|--src DIR}
shift
src_dir='' xen=''
if [ "${1:-}" = --src ]; then
	src_dir=${2:?usage: scripts/hv.sh BUILD --src DIR}
	[ -f "$src_dir/xen/Makefile" ] ||
		die "XEN_SRC=$src_dir: no xen/Makefile there: not a Xen source tree"
	src_dir=$(cd "$src_dir" && pwd)
else
	xen=${1:?usage: scripts/hv.sh BUILD XEN|--src DIR}
fi

# The Debian source packages ipibench can fetch: XEN -> the suites of the
# deb-src entry (derived from the machine's apt sources by scripts/deps.sh)
# and whether the machine's own apt has it ("system": make deps enabled
# bookworm's deb-src) or a private apt state under the build folder is used
# (so that the system's `apt-get source xen` keeps giving 4.17).
debian_suites() {
	case "$1" in
	4.17) echo "system bookworm bookworm-updates" ;;
	4.20) echo "private trixie trixie-updates" ;;
	*) return 1 ;;
	esac
}

# The version of the tree in $1 from its xen/Makefile: 4.20.4, 4.23-unstable.
tree_version() {
	local mk=$1/xen/Makefile v s e
	v=$(sed -n 's/^export XEN_VERSION *= *\([0-9]*\) *$/\1/p' "$mk" | head -1)
	s=$(sed -n 's/^export XEN_SUBVERSION *= *\([0-9]*\) *$/\1/p' "$mk" | head -1)
	e=$(sed -n 's/^export XEN_EXTRAVERSION *?= *\([^$ ]*\).*/\1/p' "$mk" | head -1)
	[ -n "$v" ] && [ -n "$s" ] ||
		die "$mk: no XEN_VERSION/XEN_SUBVERSION line: not a Xen source tree"
	echo "$v.$s$e"
}

# The Xen line of a version (hv-patch/lines: NAME PATTERN, a shell
# pattern), or nothing.
line_of() {
	local name pat
	while read -r name pat; do
		case "$name" in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254
		case "$1" in $pat) echo "$name"; return ;; esac
	done <"$top/hv-patch/lines"
}

supported() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/hv-patch/lines" | awk '{print $1}' | sort -V | paste -sd' '
}

# The build folder's name.
if [ -n "$src_dir" ]; then
	if [ "$(git -C "$src_dir" rev-parse --show-toplevel 2>/dev/null)" = "$src_dir" ]; then
		id=$(git -C "$src_dir" describe --always --dirty --tags 2>/dev/null)
		source="git:$id"
	else
		id=$(tree_version "$src_dir")
		source="tree:$id"
	fi
	out=$build/xen-src-$(echo "$id" | tr -c 'A-Za-z0-9._\n-' '_')
else
	debian_suites "$xen" >/dev/null ||
		die "XEN=$xen: ipibench fetches Xen 4.17 (Debian 12) or 4.20 (Debian 13); for another version or your own tree: make hv XEN_SRC=DIR"
	out=$build/xen-$xen
fi
[ -z "${HV_OUT:-}" ] || out=$HV_OUT
extra=${HV_FRAGMENT:-}
if [ -n "$extra" ]; then
	[ -f "$extra" ] || die "HV_FRAGMENT=$extra: no such file"
	extra=$(cd "$(dirname "$extra")" && pwd)/$(basename "$extra")
fi
xpatch=${HV_PATCH:-}
if [ -n "$xpatch" ]; then
	[ -f "$xpatch" ] || die "HV_PATCH=$xpatch: no such file"
	xpatch=$(cd "$(dirname "$xpatch")" && pwd)/$(basename "$xpatch")
fi
case ${HV_UPSTREAM:-1} in
0 | 1) ;;
*) die "HV_UPSTREAM=$HV_UPSTREAM: expected 0 (the series alone) or 1" ;;
esac
if [ -n "$print_dir" ]; then echo "$out"; exit 0; fi
[ -z "${HV_EXPORT:-}" ] || mkdir -p "$HV_EXPORT"
# A tree's version is known before anything is written: refuse early.
if [ -n "$src_dir" ]; then
	ver=$(tree_version "$src_dir")
	[ -n "$(line_of "$ver")" ] ||
		die "Xen $ver (XEN_SRC=$src_dir) is on no line of hv-patch/lines; supported: $(supported)"
fi

# Before per-version folders, the 4.17 build was build/xen: move it (its
# download and ccache with it); build/xen stays a link to the 4.17 build,
# the default every tool without a XEN= looks for.
if [ "$xen" = 4.17 ] && [ -z "${HV_OUT:-}" ]; then
	if [ -d "$build/xen" ] && [ ! -L "$build/xen" ] && [ ! -e "$out" ]; then
		mv "$build/xen" "$out"
	fi
	mkdir -p "$out"
	[ -e "$build/xen" ] && [ ! -L "$build/xen" ] ||
		ln -sfn "$(basename "$out")" "$build/xen"
fi
mkdir -p "$out"
dl=${HV_DL_DIR:-$out/dl}
mkdir -p "$dl"
dl=$(cd "$dl" && pwd)
out=$(cd "$out" && pwd)

# 1. The source: its version, where it came from, and a way to get a fresh
#    copy into $out/src.tmp (get_tree).
if [ -n "$src_dir" ]; then
	ver=$(tree_version "$src_dir")
	# What decides a rebuild: every file's path, size and mtime.
	tree_hash=$(cd "$src_dir" && find . -path ./.git -prune -o -type f -printf '%P %s %T@\n' |
		LC_ALL=C sort | sha256sum | cut -c1-16)
	get_tree() {
		rsync -a --exclude=/.git "$src_dir/" "$out/src.tmp/"
		# A tree the user built: their objects and .config stay theirs.
		if [ -e "$out/src.tmp/xen/.config" ]; then
			make -s -C "$out/src.tmp/xen" distclean >/dev/null 2>&1 || true
		fi
	}
else
	read -r apt_kind suites < <(debian_suites "$xen")
	apt_opts=()
	if [ "$apt_kind" = private ]; then
		apt_private_init "$out/apt" "$suites" ||
			die "XEN=$xen: cannot derive a deb-src entry for $suites"
	fi
	dsc=$(ls "$dl"/xen_"$xen".*.dsc 2>/dev/null | tail -1 || true)
	if [ -z "$dsc" ]; then
		echo "hv: fetching Xen $xen source (apt-get source xen, Debian $suites)"
		log=$dl/apt.log
		: >"$log"
		if [ "$apt_kind" = private ]; then
			apt_private_update "$log" ||
				die "XEN=$xen: apt-get update for Debian $suites deb-src failed (see $log); build from a tree instead: make hv XEN_SRC=DIR"
		fi
		(cd "$dl" && apt-get "${apt_opts[@]}" source --download-only -q xen) >>"$log" 2>&1 || {
			why=$(grep -m1 -o '[0-9][0-9][0-9] *Not Found' "$log" | tr -s ' ' || true)
			die "XEN=$xen: apt-get source xen (Debian $suites) failed${why:+: the archive answered $why} (see $log); build from a Xen $xen tree instead: make hv XEN_SRC=DIR"
		}
		dsc=$(ls "$dl"/xen_*.dsc 2>/dev/null | tail -1 || true)
		[ -n "$dsc" ] || die "XEN=$xen: apt-get source gave no .dsc (see $log)"
	fi
	pkg=$(sed -n 's/^Version: //p' "$dsc")
	case "$pkg" in
	"$xen".*) ;;
	*) die "$dsc: Debian's xen source is $pkg, not $xen.x" ;;
	esac
	ver=${pkg%%[+-]*}
	source="debian:$pkg"
	tree_hash=
	get_tree() {
		# Checks sizes and checksums against the .dsc.
		dpkg-source -q -x "$dsc" "$out/src.tmp" >"$out/unpack.log" 2>&1 || {
			cat "$out/unpack.log" >&2
			die "dpkg-source -x $(basename "$dsc") failed (checksums?)"
		}
	}
fi

series=$(line_of "$ver")
[ -n "$series" ] ||
	die "Xen $ver${src_dir:+ (XEN_SRC=$src_dir)} is on no line of hv-patch/lines; supported: $(supported)"
frag=$top/hv-patch/xen.config
gen=$top/scripts/hv-series.py
# hv-patch/upstream/'s fixes that change this line, in series order.
fixes=
if [ "${HV_UPSTREAM:-1}" = 1 ]; then
	fixes=$(python3 "$gen" --hv "$top/hv-patch/upstream" names --line "$series") ||
		die "hv-patch/upstream has no Xen $series line"
	fixes=$(printf '%s\n' "$fixes" | paste -sd, -)
fi

if [ -n "${HV_EXPORT:-}${HV_GITTREE:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	out=$tmp
	get_tree
	if [ -n "${HV_EXPORT:-}" ]; then
		python3 "$gen" export --line "$series" --tree "$tmp/src.tmp" --out "$HV_EXPORT"
	else
		python3 "$gen" tree --line "$series" --tree "$tmp/src.tmp" --out "$HV_GITTREE"
	fi
	exit 0
fi

# The series (as made for this line) and the fragment name what is built
# (results carry this hash); this script's own hash only decides whether
# to rebuild.
series_hash() {
	{
		cat "$frag" ${extra:+"$extra"}
		python3 "$gen" hash --line "$series"
		[ -z "$fixes" ] || python3 "$gen" --hv "$top/hv-patch/upstream" hash --line "$series"
		[ -z "$xpatch" ] || cat "$xpatch"
	} | sha256sum | cut -c1-16
}
hash=$(series_hash)
want="XEN_VERSION=$ver XEN_SOURCE=$source SERIES=$series SERIES_HASH=$hash FIXES=${fixes:-none} BUILD_HASH=$(sha256sum "$0" | cut -c1-16)${tree_hash:+ TREE_HASH=$tree_hash}"
if [ -f "$out/build-info" ] && [ -f "$out/xen" ] &&
   [ "$(head -1 "$out/build-info")" = "$want" ]; then
	echo "hv: up to date (Xen $ver from $source, series $series $hash): $out/xen"
	exit 0
fi

# 2. Fresh tree, the series applied.
src=$out/src
rm -rf "$src" "$out/src.tmp"
echo "hv: Xen $ver from $source into $src"
get_tree
mv "$out/src.tmp" "$src"
echo "hv: applying the series for Xen $series (hv-patch/series, $(grep -c . "$top/hv-patch/series") patches)"
python3 "$gen" apply --quiet --line "$series" --tree "$src" ||
	die "the series for Xen $series does not apply to Xen $ver ($source)"
if [ -n "$fixes" ]; then
	echo "hv: applying the fixes to Xen $series (hv-patch/upstream/: $fixes)"
	python3 "$gen" --hv "$top/hv-patch/upstream" apply --quiet --line "$series" --tree "$src" ||
		die "hv-patch/upstream's fixes for Xen $series do not apply to Xen $ver ($source)"
fi
if [ -n "$xpatch" ]; then
	echo "hv: applying ${xpatch#$top/} (HV_PATCH)"
	patch -d "$src" -p1 -s --no-backup-if-mismatch <"$xpatch" ||
		die "HV_PATCH=${xpatch#$top/} does not apply to Xen $ver ($source) with series $series"
fi

# 3. Configure from the fragment and build only the hypervisor.
cat "$frag" ${extra:+"$extra"} >"$src/xen/.config"
make -s -C "$src/xen" olddefconfig >/dev/null
# ccache: a changed series rebuilds only what it touches (the tree itself is
# copied anew each time so that nothing stale survives).
cc=gcc
if command -v ccache >/dev/null 2>&1; then
	cc="ccache gcc"
	export CCACHE_DIR=${HV_CCACHE_DIR:-$out/ccache} CCACHE_BASEDIR=$src
fi
echo "hv: building the hypervisor (about 80 s on 2 cores, less with a warm ccache)"
make -s -C "$src/xen" -j"$(nproc)" CC="$cc" build >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	die "build failed, see $out/build.log"
}
cp "$src/xen/xen" "$out/xen.tmp" && mv "$out/xen.tmp" "$out/xen"
gzip -9c "$src/xen/xen" >"$out/xen.gz.tmp" && mv "$out/xen.gz.tmp" "$out/xen.gz"
cp "$src/xen/.config" "$out/xen.config"
{
	echo "$want"
	echo "BUILT=$(date -u +%FT%TZ)"
	[ -z "$src_dir" ] || echo "SRC_DIR=$src_dir"
} >"$out/build-info.tmp"
mv "$out/build-info.tmp" "$out/build-info"
echo "hv: built $out/xen (Xen $ver from $source, series $series $hash)"
