#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Check README.md's promise "on a fresh Debian 12 machine: make deps, make
# test" in a clean bookworm chroot (root only; nothing of it is in the repo).
#
#   scripts/clean-chroot.sh setup DIR         debootstrap bookworm into DIR, copy
#                                        the host's apt and npm client setup
#   scripts/clean-chroot.sh run DIR CMD...    clone HEAD into DIR/root/ipibench and
#                                        run CMD there (bash -c), with /proc,
#                                        /sys, /dev, /dev/pts bound; unmounted
#                                        on the way out, whatever happens
#   scripts/clean-chroot.sh again DIR CMD...  the same in the clone already there
#                                        (rerun a piece without rebuilding)
#
# The chroot's apt sources are the one-line /etc/apt/sources.list Debian's
# installer writes (CHROOT_SOURCES=list, the default: one "deb URI SUITE
# main" line per suite of the host's own entries, no options), or the
# host's deb822 debian.sources as it is (CHROOT_SOURCES=deb822).  The
# mirror is read from the host's apt sources at run time (scripts/deps.sh
# stanza), never written here; the apt.conf.d files that set Acquire::
# options, resolv.conf, the CA bundle and npm's global config (cafile) are
# copied in, so the chroot reaches the same archive and registry the host
# does.  Nothing else of the host goes in: the chroot has Debian's nodejs
# 18, not this machine kind's Node 20.
set -euo pipefail
cmd=${1:?usage: scripts/clean-chroot.sh setup|run|again DIR [CMD...]}
dir=${2:?usage: scripts/clean-chroot.sh setup|run|again DIR [CMD...]}
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "clean-chroot: needs root" >&2; exit 1; }
src=/etc/apt/sources.list.d/debian.sources
form=${CHROOT_SOURCES:-list}
case $form in list|deb822) ;; *) echo "clean-chroot: CHROOT_SOURCES=$form: expected list or deb822" >&2; exit 2 ;; esac

case $cmd in
setup)
	command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
	mirror=$(bash "$top/scripts/deps.sh" stanza deb bookworm | awk '/^URIs:/{print $2; exit}')
	[ -n "$mirror" ] || { echo "clean-chroot: no Debian archive in the host's apt sources" >&2; exit 1; }
	[ -x "$dir/bin/bash" ] || debootstrap bookworm "$dir" "$mirror"
	rm -f "$dir/etc/apt/sources.list" "$dir/etc/apt/sources.list.d/debian.sources"
	if [ "$form" = deb822 ]; then
		cp "$src" "$dir/etc/apt/sources.list.d/debian.sources"
	elif [ -f "$src" ]; then
		# Each deb stanza of the host's as installer lines.
		awk '/^[ \t]*#/{next} /^$/{flush(); next}
		     function flush(  u, s, n, j) {
			if (t ~ /(^| )deb( |$)/ && uris != "") {
				split(uris, u, " ")
				n = split(suites, s, " ")
				for (j = 1; j <= n; j++)
					print "deb " u[1] " " s[j] " " comps
			}
			t = uris = suites = comps = ""
		     }
		     /^Types:/{sub(/^Types: */, ""); t = $0}
		     /^URIs:/{sub(/^URIs: */, ""); uris = $0}
		     /^Suites:/{sub(/^Suites: */, ""); suites = $0}
		     /^Components:/{sub(/^Components: */, ""); comps = $0}
		     END{flush()}' "$src" >"$dir/etc/apt/sources.list"
	else
		cp /etc/apt/sources.list "$dir/etc/apt/sources.list"
	fi
	grep -l '^[[:space:]]*Acquire::' /etc/apt/apt.conf.d/* 2>/dev/null |
		while read -r f; do cp "$f" "$dir/etc/apt/apt.conf.d/"; done
	cp /etc/resolv.conf "$dir/etc/resolv.conf"
	# The host's CA bundle, kept through update-ca-certificates.
	mkdir -p "$dir/usr/local/share/ca-certificates" "$dir/etc/ssl/certs"
	cp /etc/ssl/certs/ca-certificates.crt "$dir/usr/local/share/ca-certificates/host-bundle.crt"
	cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
	# npm's global config (Debian's npm reads /etc/npmrc).
	g=$(npm config get globalconfig 2>/dev/null || true)
	[ -z "$g" ] || [ ! -f "$g" ] || cp "$g" "$dir/etc/npmrc"
	echo "clean-chroot: $dir ready (bookworm from the host's Debian archive, apt sources: $form)"
	;;
run|again)
	[ -x "$dir/bin/bash" ] || { echo "clean-chroot: $dir: run setup first" >&2; exit 1; }
	mounted=()
	cleanup() {
		local i
		for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
			umount "${mounted[$i]}" || umount -l "${mounted[$i]}" || true
		done
	}
	trap cleanup EXIT
	for m in proc sys dev dev/pts; do
		mkdir -p "$dir/$m"
		mount --bind "/$m" "$dir/$m"
		mounted+=("$dir/$m")
	done
	if [ "$cmd" = run ]; then
		rm -rf "$dir/root/ipibench"
		git clone -q "$top" "$dir/root/ipibench"
		git -C "$dir/root/ipibench" checkout -q "$(git -C "$top" rev-parse HEAD)"
	fi
	[ -d "$dir/root/ipibench" ] || { echo "clean-chroot: $dir: no clone (run first)" >&2; exit 1; }
	chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd /root/ipibench && $*"
	;;
*) echo "usage: scripts/clean-chroot.sh setup|run|again DIR [CMD...]" >&2; exit 2 ;;
esac
