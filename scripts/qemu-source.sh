# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Sourced by scripts/qemu-plugin-h.sh and scripts/qemu-build.sh: Debian 13's
# qemu source package, fetched once for both into one folder.
#
#   qemu_source DL LOG   fetch it into DL unless its .dsc and orig tarball are there
#                        (`apt-get source --download-only qemu` through a
#                        private apt state, scripts/apt-private.sh, trixie
#                        deb-src; ~40 MB), check the orig tarball against
#                        the .dsc's SHA-256, and set qemu_dsc, qemu_orig and
#                        qemu_version.  0, or 1 with one line on stderr.
#
# DL: both callers use $(BUILD)/qemu-src (QEMU_SRC_DL to say another).
# shellcheck source=scripts/apt-private.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-private.sh"

qemu_found() {
	qemu_dsc=$(find "$1" -maxdepth 1 -name 'qemu_*.dsc' | LC_ALL=C sort | tail -1)
	qemu_orig=$(find "$1" -maxdepth 1 -name 'qemu_*.orig.tar.*' | LC_ALL=C sort | tail -1)
}

qemu_source() {
	local dl=$1 log=$2 why sum
	mkdir -p "$dl" || return 1
	qemu_found "$dl"
	if [ -z "$qemu_dsc" ] || [ -z "$qemu_orig" ]; then
		echo "qemu source: fetching Debian 13's qemu source (apt-get source qemu, once: ~40 MB)"
		apt_private_init "$dl/apt" "trixie trixie-updates" || {
			echo "qemu source: cannot derive a deb-src entry for trixie" >&2
			return 1
		}
		apt_private_update "$log" || {
			echo "qemu source: apt-get update for trixie deb-src failed (see $log)" >&2
			return 1
		}
		(cd "$dl" && apt-get "${apt_opts[@]}" source --download-only -q qemu) >>"$log" 2>&1 || {
			why=$(grep -m1 -o '[0-9][0-9][0-9] *Not Found' "$log" | tr -s ' ' || true)
			echo "qemu source: apt-get source qemu (Debian trixie) failed${why:+: the archive answered $why} (see $log)" >&2
			return 1
		}
	fi
	qemu_found "$dl"
	[ -n "$qemu_dsc" ] && [ -n "$qemu_orig" ] || {
		echo "qemu source: $dl has no .dsc and orig tarball (see $log)" >&2
		return 1
	}
	# The tarball's checksum against the .dsc before anything is taken from it.
	sum=$(awk -v f="$(basename "$qemu_orig")" \
		'/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 } on && $3 == f { print $1 }' "$qemu_dsc")
	[ -n "$sum" ] && [ "$(sha256sum "$qemu_orig" | cut -d' ' -f1)" = "$sum" ] || {
		echo "qemu source: $qemu_orig: checksum does not match $(basename "$qemu_dsc")" >&2
		return 1
	}
	# shellcheck disable=SC2034  # for the caller
	qemu_version=$(sed -n 's/^Version: //p' "$qemu_dsc")
}
