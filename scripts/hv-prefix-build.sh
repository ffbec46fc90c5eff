#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make hv-prefix-check: build the hypervisor at every prefix of a patch
# series, in a release and a debug configuration, so that a series whose
# patch k does not build or link on its own (only with patch k+1) is caught
# before it is posted.
#
#   scripts/hv-prefix-build.sh [-n N] [-w WORK] TREE
#       TREE is a git tree whose top N commits (default: every commit after
#       the tag or ref HV_PREFIX_BASE, else 1) are the series: prefix k is
#       the commit N-k below the top.
#   scripts/hv-prefix-build.sh [-w WORK] --series DIR --src TREE
#       DIR holds `git format-patch` files and a `series` file naming them
#       in order: they are applied with git am,
#       to a copy of TREE (a git tree or an unpacked source); a patch that
#       does not apply fails as its prefix.
#
# The tree itself is never modified: its committed HEAD is cloned into
# WORK/src (default BUILD/hv-prefix/NAME, BUILD being $BUILD or build/),
# and each prefix is checked out there in turn, so that make rebuilds only
# what a patch touches.  Each configuration builds out of tree (make O=)
# into its own folder WORK/obj-CONFIG, from one copy of the source:
#   release   hv-patch/xen.config, CONFIG_DEBUG off (staging's Kconfig
#             makes DEBUG the default, so it is set off explicitly)
#   debug     hv-patch/xen.config, then hv-patch/debug.config
#   off       the release one, then hv-patch/noipibench.config
# HV_PREFIX_CONFIGS chooses them (default "release debug").  Each build is
# `make -C xen olddefconfig` on the fragments, then `make -C xen build`
# with ccache (HV_CCACHE_DIR, default WORK/ccache) and -j$(nproc).
#
# One line per prefix and configuration:
#   prefix K/N COMMIT CONFIG: ok SECONDS s  SUBJECT
# and the first one that does not build or link stops the run with
#   prefix K/N COMMIT CONFIG: FAIL ...
# the end of its build log (WORK/log-K-CONFIG), and status 1.  The last
# line says how many builds ran and how long they took.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "hv-prefix: $*" >&2; exit 2; }
usage() { die "usage: scripts/hv-prefix-build.sh [-n N] [-w WORK] TREE | [-w WORK] --series DIR --src TREE"; }

n='' work='' series='' src=''
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=${2:?}; shift 2 ;;
	-w) work=${2:?}; shift 2 ;;
	--series) series=${2:?}; shift 2 ;;
	--src) src=${2:?}; shift 2 ;;
	-h|--help) sed -n '3,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) [ -z "$src" ] || usage; src=$1; shift ;;
	esac
done
[ -n "$src" ] || usage
[ -f "$src/xen/Makefile" ] || die "$src: no xen/Makefile there: not a Xen source tree"
src=$(cd "$src" && pwd)
if [ -n "$series" ]; then
	[ -f "$series/series" ] || die "$series: no series file there"
	series=$(cd "$series" && pwd)
	[ -z "$n" ] || die "-n is for a tree; with --series every patch of the series is a prefix"
fi
configs=${HV_PREFIX_CONFIGS:-release debug}
for c in $configs; do
	case $c in release|debug|off) ;; *) die "HV_PREFIX_CONFIGS: $c is not release, debug or off" ;; esac
done
name=$(basename "$src")${series:+-$(basename "$series")}
work=${work:-${BUILD:-$top/build}/hv-prefix/$name}
mkdir -p "$work"
work=$(cd "$work" && pwd)
git_() { git -C "$work/src" -c advice.detachedHead=false "$@"; }

# 1. The copy: the tree's HEAD (or the source with the series applied).
if [ ! -d "$work/src/.git" ]; then
	rm -rf "$work/src"
	git init -q "$work/src"
fi
git_ config user.name "hv-prefix"
git_ config user.email "hv-prefix@localhost"
if [ -d "$src/.git" ] || git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	git_ fetch -q --no-tags "$src" HEAD
	git_ checkout -q --detach FETCH_HEAD
	git_ clean -qfdx
else
	# An unpacked source: its files as one base commit.
	git_ checkout -q --detach 2>/dev/null || true
	git_ rm -rq --cached . 2>/dev/null || true
	git_ clean -qfdx
	find "$work/src" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
	cp -a "$src/." "$work/src/"
	git_ add -A
	git_ commit -qm "base" --allow-empty
fi
if [ -n "$series" ]; then
	mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$series/series")
	n=${#patches[@]}
	[ "$n" -gt 0 ] || die "$series/series lists no patch"
	base=$(git_ rev-parse HEAD)
	declare -a commits=()
	for ((k = 1; k <= n; k++)); do
		p=${patches[k-1]}
		if ! git_ am -q --keep-cr "$series/$p" >"$work/am-$k.log" 2>&1; then
			git_ am --abort >/dev/null 2>&1 || true
			echo "prefix $k/$n ------- apply: FAIL $p does not apply with git am"
			sed 's/^/    /' "$work/am-$k.log" | tail -20
			exit 1
		fi
		commits+=("$(git_ rev-parse HEAD)")
	done
else
	if [ -z "$n" ]; then
		if [ -n "${HV_PREFIX_BASE:-}" ]; then
			n=$(git_ rev-list --count "$(git -C "$src" rev-parse "$HV_PREFIX_BASE")..HEAD" 2>/dev/null) ||
				die "HV_PREFIX_BASE=$HV_PREFIX_BASE: not a ref of $src"
		else
			n=1
		fi
	fi
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "-n $n: a number of commits, at least 1"
	total=$(git_ rev-list --count HEAD)
	[ "$n" -lt "$total" ] || die "$src has $total commits: no base below a series of $n"
	mapfile -t commits < <(git_ rev-list --reverse --first-parent -n "$n" HEAD)
	base=$(git_ rev-parse "HEAD~$n")
fi

# 2. The configurations' fragments.
frag_of() {
	cat "$top/hv-patch/xen.config"
	case $1 in
	release) echo "# CONFIG_DEBUG is not set" ;;
	debug) cat "$top/hv-patch/debug.config" ;;
	off) echo "# CONFIG_DEBUG is not set"; cat "$top/hv-patch/noipibench.config" ;;
	esac
}
cc=gcc
if command -v ccache >/dev/null 2>&1; then
	cc="ccache gcc"
	export CCACHE_DIR=${HV_CCACHE_DIR:-$work/ccache} CCACHE_BASEDIR=$work
fi

# 3. Each prefix, each configuration.
start=$(date +%s)
builds=0
echo "hv-prefix: $n commits on $(git_ rev-parse --short=10 "$base") from $src${series:+ + $series}, configs: $configs"
for ((k = 1; k <= n; k++)); do
	c_=${commits[k-1]}
	git_ checkout -q --detach "$c_"
	short=$(git_ rev-parse --short=10 "$c_")
	subj=$(git_ log -1 --format=%s "$c_")
	for cfg in $configs; do
		obj=$work/obj-$cfg log=$work/log-$k-$cfg
		mkdir -p "$obj"
		t0=$(date +%s)
		# The .config from the fragments; if olddefconfig gives what the
		# last build had, its time stays (no needless reconfiguration).
		[ -f "$obj/.config" ] && cp -p "$obj/.config" "$obj/.config.prev" || rm -f "$obj/.config.prev"
		frag_of "$cfg" >"$obj/.config"
		ok=1
		{
			make -s -C "$work/src/xen" O="$obj" olddefconfig &&
			{ ! cmp -s "$obj/.config" "$obj/.config.prev" || touch -r "$obj/.config.prev" "$obj/.config"; } &&
			make -s -C "$work/src/xen" O="$obj" -j"$(nproc)" CC="$cc" build
		} >"$log" 2>&1 || ok=
		[ -z "$ok" ] || [ -s "$obj/xen" ] || { ok=; echo "hv-prefix: no $obj/xen after the build" >>"$log"; }
		t=$(( $(date +%s) - t0 ))
		builds=$((builds + 1))
		dbg=$(grep -q '^CONFIG_DEBUG=y' "$obj/.config" 2>/dev/null && echo debug || echo release)
		if [ -n "$ok" ]; then
			printf 'prefix %d/%d %s %s: ok %d s (%s)  %s\n' "$k" "$n" "$short" "$cfg" "$t" "$dbg" "$subj"
		else
			printf 'prefix %d/%d %s %s: FAIL after %d s  %s\n' "$k" "$n" "$short" "$cfg" "$t" "$subj"
			tail -25 "$log" | sed 's/^/    /'
			echo "hv-prefix: prefix $k does not build or link ($cfg; log: $log); $builds builds in $(( $(date +%s) - start )) s"
			exit 1
		fi
	done
done
echo "hv-prefix: every prefix builds and links: $n prefixes x $(wc -w <<<"$configs") configs, $builds builds in $(( $(date +%s) - start )) s"
