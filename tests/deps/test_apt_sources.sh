#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make deps's apt source derivation (scripts/apt-sources.awk through
# `scripts/deps.sh stanza`) on apt sources of both forms: the one-line
# sources.list Debian's installer writes (cdrom, security and option
# lines around the archive's) and deb822 files of several stanzas.  No
# network, no root: only the derivation.  Run by `make apt-sources-test`
# (a unit check of the tally).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
expect() {
	if [ "$2" = "$3" ]; then
		echo "ok   $1"
	else
		echo "FAIL $1"; echo "  want: $2" | sed '2,$s/^/        /'; echo "  got:  $3" | sed '2,$s/^/        /'
		fails=$((fails + 1))
	fi
}
# entry FILE...: the awk's answer (stdout and stderr) and its status.
entry() { awk -f "$top/scripts/apt-sources.awk" "$@" 2>&1; echo "status $?"; }
# stanza DIR TYPES SUITES: scripts/deps.sh stanza on the apt configuration DIR.
stanza() { IPIBENCH_APT_ETC=$1 bash "$top/scripts/deps.sh" stanza "$2" "$3" 2>&1; echo "status $?"; }

# The installer's sources.list: the DVD it was installed from, the
# archive, security, and the commented deb-src lines it writes.
cat >"$t/installer.list" <<'EOF'
#

# deb cdrom:[Debian GNU/Linux 12 _Bookworm_ - Official amd64 DVD Binary-1]/ bookworm contrib main non-free-firmware

deb cdrom:[Debian GNU/Linux 12 _Bookworm_ - Official amd64 DVD Binary-1]/ bookworm contrib main non-free-firmware

deb http://mirror.invalid/debian/ bookworm main non-free-firmware
# deb-src http://mirror.invalid/debian/ bookworm main non-free-firmware

deb http://security.invalid/debian-security bookworm-security main non-free-firmware
deb-src http://security.invalid/debian-security bookworm-security main non-free-firmware
EOF
expect "one-line: the archive line, past cdrom and comments" \
	"URIs: http://mirror.invalid/debian/
status 0" "$(entry "$t/installer.list")"

# Security first, then the archive with options (signed-by among others,
# brackets with and without spaces).
cat >"$t/options.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://security.invalid/ bookworm-security main
deb [ arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg ] http://mirror.invalid/debian bookworm main contrib
EOF
expect "one-line: [ arch=... signed-by=... ], security passed over" \
	"URIs: http://mirror.invalid/debian
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
status 0" "$(entry "$t/options.list")"
printf 'deb [arch=amd64,i386 signed-by=/k.gpg] http://mirror.invalid/debian bookworm-updates main\n' >"$t/noblank.list"
expect "one-line: [arch=...,... signed-by=...] without spaces, -updates" \
	"URIs: http://mirror.invalid/debian
Signed-By: /k.gpg
status 0" "$(entry "$t/noblank.list")"

# No archive entry: cdrom, security, a third party's and a non-main line.
cat >"$t/none.list" <<'EOF'
deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb http://security.invalid/debian-security bookworm-security main
deb [signed-by=/usr/share/keyrings/nodesource.gpg] https://vendor.invalid/node nodistro main
deb http://mirror.invalid/debian bookworm contrib
EOF
expect "one-line: nothing of Debian's archive is refused" \
	"$t/none.list: no Debian archive entry (deb URI SUITE main, SUITE a Debian codename)
status 1" "$(entry "$t/none.list")"

# deb822: a disabled stanza, security, a third party, then the archive
# (comment lines inside), then another archive stanza.
cat >"$t/several.sources" <<'EOF'
# Written by hand.
Types: deb
URIs: http://old.invalid/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb deb-src
URIs: http://security.invalid/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: https://vendor.invalid/node
Suites: nodistro
Components: main

Types: deb
# the mirror nearest to us
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://second.invalid/debian
Suites: bookworm
Components: main
EOF
expect "deb822: the first archive stanza of several" \
	"URIs: http://mirror.invalid/debian
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
status 0" "$(entry "$t/several.sources")"

# deb822 with an embedded key (Signed-By's continuation lines), at the end
# of the file without a blank line.
printf 'Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm\nComponents: main\nSigned-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n abc\n -----END PGP PUBLIC KEY BLOCK-----' >"$t/embedded.sources"
expect "deb822: an embedded key kept whole" \
	"URIs: http://mirror.invalid/debian
Signed-By: 
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 abc
 -----END PGP PUBLIC KEY BLOCK-----
status 0" "$(entry "$t/embedded.sources")"

# The files in order: the first that has an entry wins.
expect "several files: the first with an entry" \
	"URIs: http://mirror.invalid/debian/
status 0" "$(entry "$t/none.list" "$t/installer.list" "$t/several.sources")"

# scripts/deps.sh stanza on a whole apt configuration of each form.
mkdir -p "$t/d12/sources.list.d" "$t/d822/sources.list.d" "$t/both/sources.list.d" "$t/empty"
cp "$t/installer.list" "$t/d12/sources.list"
cp "$t/several.sources" "$t/d822/sources.list.d/debian.sources"
cp "$t/installer.list" "$t/both/sources.list"
cp "$t/embedded.sources" "$t/both/sources.list.d/debian.sources"
expect "stanza: a Debian 12 installed from a DVD (sources.list only)" \
	"Types: deb-src
URIs: http://mirror.invalid/debian/
Suites: bookworm bookworm-updates
Components: main
status 0" "$(stanza "$t/d12" deb-src "bookworm bookworm-updates")"
expect "stanza: deb822 debian.sources" \
	"Types: deb deb-src
URIs: http://mirror.invalid/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
status 0" "$(stanza "$t/d822" "deb deb-src" bookworm-backports)"
expect "stanza: debian.sources before sources.list" \
	"Types: deb-src
URIs: http://mirror.invalid/debian
Suites: trixie
Components: main
Signed-By: 
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 abc
 -----END PGP PUBLIC KEY BLOCK-----
status 0" "$(stanza "$t/both" deb-src trixie)"
# ipibench's own file is never the source of the entry.
mkdir -p "$t/own/sources.list.d"
cp "$t/several.sources" "$t/own/sources.list.d/ipibench.sources"
cp "$t/none.list" "$t/own/sources.list"
expect "stanza: ipibench.sources is not read, the rest has no entry" \
	"deps: $t/own/sources.list: no Debian archive entry (deb URI SUITE main, SUITE a Debian codename)
status 1" "$(stanza "$t/own" deb-src bookworm)"
expect "stanza: no apt sources at all" \
	"deps: no apt sources in $t/empty (sources.list or sources.list.d/*.sources): cannot derive an apt source
status 1" "$(stanza "$t/empty" deb-src bookworm)"

# The three lists: each a superset of the one before, no package twice,
# and every line of scripts/deps.sh's arrays gives its packages' reason.
b=$(bash "$top/scripts/deps.sh" list build) t_=$(bash "$top/scripts/deps.sh" list test) c=$(bash "$top/scripts/deps.sh" list ci)
expect "lists: build, then test's, then ci's" "$b" "$(printf '%s\n' "$t_" | head -n "$(printf '%s\n' "$b" | wc -l)")"
expect "lists: test, then ci's" "$t_" "$(printf '%s\n' "$c" | head -n "$(printf '%s\n' "$t_" | wc -l)")"
expect "lists: no package twice" "" "$(printf '%s\n' "$c" | sort | uniq -d)"
expect "lists: time is there for bench-trace" "time" "$(printf '%s\n' "$t_" | grep -x time)"
expect "lists: every array line says why" "" \
	"$(awk '/^(BUILD|TEST|CI)_PKGS=\(/{on=1; next} on && /^\)/{on=0} on && !/#/' "$top/scripts/deps.sh")"
expect "lists: a bad level" "usage: scripts/deps.sh list build|test|ci
status 2" "$(bash "$top/scripts/deps.sh" list all 2>&1; echo "status $?")"

[ "$fails" -eq 0 ] || { echo "test_apt_sources: $fails failed"; exit 1; }
echo "test_apt_sources: all passed"
