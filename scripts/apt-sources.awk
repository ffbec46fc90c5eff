# SPDX-License-Identifier: GPL-3.0-or-later
# The machine's Debian archive entry, read from its apt sources in either
# form, for scripts/deps.sh (which adds deb-src and backports entries of the same
# archive, so that no mirror host name is ever written in ipibench):
#
#   awk -f scripts/apt-sources.awk FILE...
#
# FILE: a deb822 file (name ending in .sources: stanzas of Types, URIs,
# Suites, Components, Signed-By; `#` comments) or a one-line file (any
# other name: "deb [opt=value ...] URI SUITE COMPONENT...", as Debian's
# installer writes /etc/apt/sources.list).  The first entry, in the order
# of the files, that is of Debian's archive is printed as two deb822
# fields:
#
#   URIs: URI...
#   Signed-By: KEYRING        (only when the entry has one; an embedded
#                              key's continuation lines too)
#
# An entry is of Debian's archive when its type is deb or deb-src, its URI
# is not a cdrom: one, it has the component main and its suite is a Debian
# codename or alias, alone or with -updates, -backports or
# -proposed-updates (so security and third-party entries are passed over).
# Exit status 0 with the two fields, 1 with "FILE: no Debian archive entry"
# on stderr when no file has one.
function debian_suite(s, base)
{
	base = s
	sub(/-(updates|backports|proposed-updates)$/, "", base)
	return base ~ /^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)$/
}

function has_word(list, w, n, a, i)
{
	n = split(list, a, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (a[i] == w)
			return 1
	return 0
}

function uris_ok(list, n, a, i)
{
	n = split(list, a, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (a[i] != "" && a[i] !~ /^cdrom:/)
			return 1
	return 0
}

# A suite list of which one is Debian's archive (not security).
function suites_ok(list, n, a, i)
{
	n = split(list, a, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (a[i] != "" && debian_suite(a[i]))
			return 1
	return 0
}

function trim(s)
{
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

function found(uris, signed)
{
	print "URIs: " uris
	if (signed != "")
		print "Signed-By: " signed
	done = 1
	exit 0
}

# The deb822 stanza read so far, if it is the entry.
function end_stanza()
{
	if (st_types != "" && (has_word(st_types, "deb") || has_word(st_types, "deb-src")) &&
	    st_enabled != "no" && uris_ok(st_uris) && has_word(st_comp, "main") &&
	    suites_ok(st_suites))
		found(st_uris, st_signed)
	st_types = st_uris = st_suites = st_comp = st_signed = st_enabled = ""
	st_field = ""
}

FNR == 1 {
	if (prev_deb822)
		end_stanza()
	deb822 = FILENAME ~ /\.sources$/
	prev_deb822 = deb822
	st_types = st_uris = st_suites = st_comp = st_signed = st_enabled = st_field = ""
	files = files (files == "" ? "" : ", ") FILENAME
}

# ---- deb822 ---------------------------------------------------------------
deb822 && /^[ \t]*#/ { next }
deb822 && /^[ \t]*$/ { end_stanza(); next }
deb822 && /^[ \t]/ {
	# A continuation line (of Signed-By's embedded key, say).
	if (st_field == "signed-by")
		st_signed = st_signed "\n" $0
	next
}
deb822 {
	i = index($0, ":")
	if (!i)
		next
	f = tolower(trim(substr($0, 1, i - 1)))
	v = trim(substr($0, i + 1))
	st_field = f
	if (f == "types") st_types = v
	else if (f == "uris") st_uris = v
	else if (f == "suites") st_suites = v
	else if (f == "components") st_comp = v
	else if (f == "signed-by") st_signed = v
	else if (f == "enabled") st_enabled = tolower(v)
	next
}

# ---- one-line -------------------------------------------------------------
{
	line = $0
	sub(/#.*/, "", line)
	n = split(line, w, /[ \t]+/)
	k = 1
	while (k <= n && w[k] == "")
		k++
	type = w[k++]
	if (type != "deb" && type != "deb-src")
		next
	signed = ""
	if (substr(w[k], 1, 1) == "[") {
		# Options: [ opt=value ... ], with or without spaces at the brackets.
		opts = ""
		while (k <= n) {
			opts = opts " " w[k]
			if (w[k] ~ /\]$/) {
				k++
				break
			}
			k++
		}
		gsub(/[][]/, " ", opts)
		m = split(opts, o, /[ \t]+/)
		for (j = 1; j <= m; j++)
			if (tolower(o[j]) ~ /^signed-by=/)
				signed = substr(o[j], 11)
	}
	uri = w[k++]
	suite = w[k++]
	comps = ""
	for (; k <= n; k++)
		comps = comps " " w[k]
	if (uri != "" && uri !~ /^cdrom:/ && debian_suite(suite) && has_word(trim(comps), "main"))
		found(uri, signed)
}

END {
	if (done)
		exit 0
	if (prev_deb822)
		end_stanza()
	if (done)
		exit 0
	printf "%s: no Debian archive entry (deb URI SUITE main, SUITE a Debian codename)\n",
	       files == "" ? "no apt sources" : files > "/dev/stderr"
	exit 1
}
