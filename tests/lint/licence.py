#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The licence check: debian/copyright is true for every tracked file.

  licence.py --tree TOP            the git tree at TOP against its
                                   debian/copyright
  licence.py --self-test FIXDIR    FIXDIR/cases.txt against FIXDIR/copyright
                                   (each case's finding, or none)

debian/copyright is read and each path's Files paragraph found (the last
that matches, as the format says) by python3-debian's debian.copyright,
Debian's own parser.  Then, each a finding "PATH: RULE: why":
  no-spdx        a source file (C, assembler, shell, Python, make, the CI
                 files, debian/rules, configs/*.ini, any "#!" script)
                 without an SPDX-License-Identifier line in its first lines
  spdx-unknown   an SPDX identifier this check cannot name in Debian's terms
  spdx-vs-dep5   the file's SPDX identifier is not the licence of the Files
                 paragraph that covers it
  licensecheck   Debian's licensecheck finds another licence family in the
                 file than that paragraph's
  no-license     a Files paragraph's licence has no License paragraph
  stale-files    a Files pattern that matches no tracked file (but those of
                 prebuilt/, made by scripts/deb.sh in the package's source tree)
Exit status 1 on any finding, 2 when a tool is missing or the input is bad.
"""
import os
import re
import subprocess
import sys

try:
    from debian import copyright as dep5
except ImportError:
    print("licence: python3-debian not found (make deps-test installs it)")
    sys.exit(2)

# The SPDX identifiers the tree uses, as Debian's copyright format names
# them.
SPDX_TO_DEB = {
    "GPL-3.0-or-later": "GPL-3+",
    "GPL-2.0-or-later": "GPL-2+",
    "GPL-2.0-only": "GPL-2",
    "MIT": "Expat",
}
# licensecheck (--shortname-scheme=debian) names a family: GPL-2 for both
# GPL-2.0-only and GPL-2.0-or-later, GPL-3 for GPL-3.0-or-later.
def family(name):
    return name.rstrip("+")


SPDX_RE = re.compile(r"^\s*(#|//|/\*|;|--|\.\\\")\s*SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)")
SPDX_LINES = 5
SOURCE_SUFFIXES = (".c", ".h", ".S", ".sh", ".py", ".mk")
SOURCE_NAMES = ("Makefile", "Kbuild")
SOURCE_PATHS = (".ci/run", ".gitlab-ci.yml", "debian/rules")
# Made only in the package's source tree (scripts/deb.sh): no tracked file.
UNTRACKED_OK = ("prebuilt/",)


def head(path):
    try:
        with open(path, "rb") as f:
            data = f.read(4096)
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace").splitlines()[:SPDX_LINES]


def spdx_of(lines):
    for line in lines or ():
        m = SPDX_RE.match(line)
        if m:
            return m.group(2)
    return None


def is_source(path, lines):
    base = os.path.basename(path)
    return (path.endswith(SOURCE_SUFFIXES) or base in SOURCE_NAMES
            or path in SOURCE_PATHS
            or (path.startswith("configs/") and path.endswith(".ini"))
            or bool(lines and lines[0].startswith("#!")))


def licensecheck(root, paths):
    """path -> licensecheck's licence name (Debian's scheme)."""
    if not paths:
        return {}
    try:
        out = subprocess.run(["licensecheck", "--machine", "--shortname-scheme=debian",
                              "--check=.", "--lines=" + str(SPDX_LINES + 5), "--"] + list(paths),
                             cwd=root, check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE).stdout.decode()
    except FileNotFoundError:
        print("licence: licensecheck not found (make deps-test installs it)")
        sys.exit(2)
    except subprocess.CalledProcessError as e:
        print(f"licence: licensecheck failed: {e.stderr.decode().strip()}")
        sys.exit(2)
    got = {}
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) >= 2:
            got[fields[0]] = fields[1]
    return got


def check(root, paths, copyright_path):
    """The findings, as (path, rule, why), for the files PATHS under ROOT."""
    found = []
    try:
        with open(copyright_path, encoding="utf-8") as f:
            cp = dep5.Copyright(f, strict=True)
    except (OSError, ValueError, dep5.Error) as e:
        print(f"{copyright_path}: {e}")
        sys.exit(2)
    defined = {p.license.synopsis for p in cp.all_license_paragraphs()}
    for fp in cp.all_files_paragraphs():
        lic = fp.license
        if not lic.text and lic.synopsis not in defined:
            found.append((copyright_path, "no-license",
                          f"Files: {' '.join(fp.files)}: no License paragraph for {lic.synopsis}"))
        for pat in fp.files:
            if pat.startswith(UNTRACKED_OK):
                continue
            rx = dep5.globs_to_re([pat])
            if not any(rx.match(p) for p in paths):
                found.append((copyright_path, "stale-files", f"Files: {pat} matches no file"))
    spdx = {}
    for p in paths:
        lines = head(os.path.join(root, p))
        sid = spdx_of(lines)
        if sid:
            spdx[p] = sid
        elif lines is not None and is_source(p, lines):
            found.append((p, "no-spdx", "a source file without an SPDX-License-Identifier line"))
    detected = licensecheck(root, sorted(spdx))
    for p, sid in sorted(spdx.items()):
        para = cp.find_files_paragraph(p)
        want = para.license.synopsis if para else None
        if want is None:
            found.append((p, "spdx-vs-dep5", "no Files paragraph covers it"))
            continue
        deb = SPDX_TO_DEB.get(sid)
        if deb is None:
            found.append((p, "spdx-unknown", f"SPDX {sid}: not one of {', '.join(SPDX_TO_DEB)}"))
        elif deb != want:
            found.append((p, "spdx-vs-dep5", f"SPDX {sid} ({deb}), debian/copyright "
                                             f"Files: {' '.join(para.files)} says {want}"))
        got = detected.get(p, "UNKNOWN")
        if family(got) != family(want):
            found.append((p, "licensecheck", f"licensecheck finds {got}, debian/copyright "
                                             f"Files: {' '.join(para.files)} says {want}"))
    return found, len(spdx)


def self_test(fixdir):
    import tempfile
    cases = []
    with open(os.path.join(fixdir, "cases.txt"), encoding="utf-8") as f:
        for i, raw in enumerate(f, 1):
            raw = raw.rstrip("\n")
            if not raw or raw.startswith("//"):
                continue
            parts = raw.split("\t")
            if len(parts) != 3:
                print(f"{fixdir}/cases.txt:{i}: want PATH<TAB>FIRST LINE<TAB>RULES")
                return 1
            cases.append(parts)
    fails = 0
    with tempfile.TemporaryDirectory() as t:
        for path, first, _ in cases:
            full = os.path.join(t, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(first.replace("\\n", "\n") + "\nint x;\n")
        found, _ = check(t, [c[0] for c in cases], os.path.join(fixdir, "copyright"))
    got = {}
    for p, rule, _ in found:
        got.setdefault(p, set()).add(rule)
    for path, first, want in cases:
        w = set() if want == "ok" else set(want.split(","))
        g = got.pop(path, set())
        if g != w:
            print(f"FAIL case {path}: want {sorted(w) or 'no finding'}, got {sorted(g) or 'none'}")
            fails += 1
    want_cp = {"stale-files", "no-license"}
    g = got.pop(os.path.join(fixdir, "copyright"), set())
    if g != want_cp:
        print(f"FAIL the fixture's copyright: want {sorted(want_cp)}, got {sorted(g)}")
        fails += 1
    for p, rules in got.items():
        print(f"FAIL unexpected finding for {p}: {sorted(rules)}")
        fails += 1
    if fails:
        print(f"licence self-test: {fails} failed")
        return 1
    print(f"ok   licence self-test: {len(cases)} cases, each with its finding or none")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) != 3 or argv[1] != "--tree":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top = argv[2]
    paths = [p for p in subprocess.run(["git", "-C", top, "ls-files", "-z"], check=True,
                                       stdout=subprocess.PIPE).stdout.decode().split("\0")
             if p and os.path.isfile(os.path.join(top, p))]
    if len(paths) < 100:
        print(f"licence: only {len(paths)} tracked files (not a git tree?)")
        return 2
    found, n = check(top, paths, os.path.join(top, "debian/copyright"))
    for p, rule, why in found:
        print(f"{p}: {rule}: {why}")
    print(f"licence: {len(paths)} tracked files, {n} with an SPDX line checked "
          f"against debian/copyright and licensecheck, {len(found)} finding(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
