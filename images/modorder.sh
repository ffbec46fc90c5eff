# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# images/modorder.sh: sourced by images/dom0.sh and images/grub-disk.sh.  The load
# order of kernel modules from each .ko's depends= (the extracted tree has
# no modules.dep): depth-first, dependencies before dependents.
#
#   mod_index DIR    every .ko below DIR, by name (- and _ alike), in path[]
#   visit NAME       NAME, after what it depends on, appended to order[];
#                    a name in seen[] (already loaded) is passed over
#
# A module not found fails the script with "$mod_who: module NAME not in
# $kver".
# shellcheck disable=SC2154 # mod_who and kver are the sourcing script's
declare -A path seen
order=()

mod_index() {
	local f n
	while IFS= read -r f; do
		n=${f##*/}; n=${n%.ko}; path[${n//-/_}]=$f
	done < <(find "$1" -name '*.ko')
}

visit() {
	local n=${1//-/_} d
	[ -n "${seen[$n]:-}" ] && return
	seen[$n]=1
	[ -n "${path[$n]:-}" ] || { echo "$mod_who: module $1 not in $kver" >&2; exit 1; }
	for d in $(tr '\0' '\n' <"${path[$n]}" | sed -n 's/^depends=//p' | tr ',' ' '); do
		visit "$d"
	done
	order+=("$n")
}
