#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The licence check (tests/lint/licence.py says what it checks): first the
# checker on its fixture (tests/lint/data/licence: each case's finding, or
# none), then the tracked tree against debian/copyright, with Debian's
# licensecheck and python3-debian's DEP-5 parser.  Run by `make
# licence-check`, a unit check of the tally; exits 1 on any finding or a
# missing tool (make deps-test installs them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
# Debian's python3: python3-debian is installed for it, not for another
# python3 earlier in PATH.
py=/usr/bin/python3
[ -x "$py" ] || { echo "FAIL $py not found (make deps)"; exit 1; }
command -v licensecheck >/dev/null || { echo "FAIL licensecheck not found (make deps-test)"; exit 1; }
"$py" -c 'import debian.copyright' 2>/dev/null || { echo "FAIL python3-debian not found (make deps-test)"; exit 1; }

"$py" "$top/tests/lint/licence.py" --self-test "$top/tests/lint/data/licence" || fails=$((fails + 1))
if "$py" "$top/tests/lint/licence.py" --tree "$top"; then
	echo "ok   tree: every source file has an SPDX line, each as debian/copyright says"
else
	echo "FAIL tree: the findings above"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "test_licence: $fails failed"; exit 1; }
