# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Sourced by scripts/ and images/ scripts: a private apt state for Debian source packages the
# machine's own apt does not list (another suite), so that the system's
# `apt-get source` keeps answering from its own sources.
#
#   apt_private_init DIR "SUITES..."   make DIR/{parts,lists,cache}, write
#                                      DIR/parts/debian-src.sources (the
#                                      deb-src stanza scripts/deps.sh derives from
#                                      the machine's apt sources, in either
#                                      form) and set
#                                      the array apt_opts for apt-get
#   apt_private_update LOG             apt-get update of that state into LOG
#
# Callers: scripts/hv.sh (Debian 13's xen) and scripts/qemu-source.sh (Debian 13's qemu).
apt_private_init() {
	local a=$1 suites=$2 top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial"
	a=$(cd "$a" && pwd)	# apt takes a relative Dir:: under /etc/apt
	bash "$top/scripts/deps.sh" stanza deb-src "$suites" >"$a/parts/debian-src.sources" ||
		return 1
	apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$a/parts"
		  -o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
}

apt_private_update() {
	apt-get "${apt_opts[@]}" update -q >>"$1" 2>&1
}
