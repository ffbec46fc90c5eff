#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The words test: the tree speaks of ipibench to its users, never of how
ipibench was developed.

A line fails on any RULES pattern below (case-insensitive): references to
numbered issues, work sessions and their tags, the people and jobs that
shared the build machine, dates and times as narration, load figures, and
the build machine's own paths.  Link a document (docs/*.md) or a commit
instead.

  words.py --self-test FIXTURE_DIR   each line of FIXTURE_DIR/bad.txt
                                     ("RULE<TAB>text") is flagged with
                                     its rule, no line of clean.txt is
  words.py --tree TOP [DIR...]       the tracked files of the git tree at
                                     TOP, then every file under each DIR
                                     (the generated manual pages)
  words.py --dir DIR...              every file under each DIR only

Findings are printed as FILE:LINE: RULE: TEXT; exit status 1 if any.
"""
import os
import re
import subprocess
import sys

# (name, pattern).  Each name is what a finding says.
RULES = [
    # "issue 17", "issue #17", "issues 10 and 12", "issue 11's tests";
    # and a bare "#17" reference in prose.
    ("issue-ref", r"\bissues?\s+#?\d+"),
    ("hash-ref", r"(?<![\w&#/'\"=\[{:])#\d{1,2}\b(?![\w.])"),
    # Work sessions.
    ("session", r"\bsessions?\s+#?\d+\b"
                r"|\b(this|that|an?\s+earlier|earlier|previous|later|last|next)\s+session\b"),
    # Work-period tags: "s8", "s9", "s9nic", "(s8, ...)"; "stop 28";
    # "round 2".  A tag is s, a number, and at most a few letters, as a
    # word of its own, numbered from 1 (s0 is a variable's name); C's
    # s8/s16 integer types and variables s1, s2 are told apart by what
    # follows them (an identifier, an operator, "->", "[" or a cast's ")").
    ("period-tag", r"(?<![\w$%.\-/+=])(?<!\w\()s[1-9]\d?[a-z]{0,6}\b"
                   r"(?![\w(]|\s+[A-Za-z_*]\w*\s*[;=,)\[]|\s*(\*|->|\[|\)|=|\+|-[^-]|;|\.\w))"),
    # "stop 28", "round 2" (a loop's "round 0" is no period).
    ("period-tag", r"\bstop\s+\d+\b|\bround\s+[1-9]\d*\b"),
    # "the brief" as a document someone wrote (not "the brief pause").
    ("brief", r"\bthe\s+brief\b(?=\s*($|[.,;:)'\"]|(says|said|asks|asked|wants|wanted|requires|required|of|for|is|was)\b))"),
    ("ceo", r"\bceo\b"),
    # Who ran what beside us on the build machine.
    ("others", r"\b(other|another)\s+(helpers?|developers?|engineers?|jobs?|sessions?|teams?'?\s+(job|qemu)s?)\b"
               r"|\bengineers'|\bbeside\s+another\b"),
    # ISO dates and UTC times as narration.
    ("date", r"(?<![\w\-])(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?![\w\-])"),
    ("time-utc", r"\b\d{1,2}:\d\d(:\d\d)?\s*UTC\b"),
    # Load stories: "load average 12", "at load 3-4".
    ("load", r"\bload\s+averages?\b|\b(at|under)\s+(a\s+)?load\s+(of\s+)?\d"),
    # The build machine's paths: its work tree, its job logs, and the
    # scratch folders named after a work period or a helper ("/tmp/h13/",
    # "/tmp/s7/"; an example's /tmp/kernel.xt or /tmp/out is no such name).
    ("build-path", r"(?<![\w.])/work/|/tmp/(bash_jobs|[a-z]{1,3}\d+[a-z]*/)"),
]
COMPILED = [(name, re.compile(pat, re.IGNORECASE)) for name, pat in RULES]

# What is checked: every tracked file (prose, code with its comments and
# strings, configs, reference results, test data, the Debian packaging, the
# CI files; identifiers rarely look like any rule) but these, each for its
# reason.  Files with a NUL byte are binary and skipped.
EXCLUDE_PREFIXES = (
    # Dated result sets: their folder names and results carry the date of
    # the run, as data.
    "results/history/",
    # The checker's own patterns and fixture (every forbidden form).
    "tests/lint/words.py", "tests/lint/data/words/",
    "tests/lint/test_words.sh",	# its sample manual page
    # Licence texts, verbatim.
    "COPYING", "LICENSES/",
)
# Compressed or binary files (recorded traces, fuzz seeds) are not read.
# Test data in text is checked like the rest: its configs are prose too.
BINARY_SUFFIXES = (".xz", ".gz", ".png", ".xt")


def in_scope(path):
    return not path.startswith(EXCLUDE_PREFIXES) and not path.endswith(BINARY_SUFFIXES)


def line_exempt(path, line):
    # debian/changelog's trailer line: dch writes the date there, in
    # Debian's own format (" -- Name <mail>  Sun, 06 Dec 2026 ...").
    if path.endswith("debian/changelog") and line.startswith(" -- "):
        return True
    # A manual page's title line: its third field is the page's date, as
    # the man(7) format has it (help2man and pandoc write one).
    if line.startswith(".TH "):
        return True
    return False


def check_line(line):
    """The names of the rules LINE breaks, in RULES order, each once."""
    found = []
    for name, rx in COMPILED:
        if name not in found and rx.search(line):
            found.append(name)
    return found


def check_file(path, shown):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        print(f"{shown}: cannot read: {e.strerror}")
        return 1
    if b"\0" in data:
        return 0
    text = data.decode("utf-8", errors="replace")
    n = 0
    for i, line in enumerate(text.splitlines(), 1):
        if line_exempt(shown, line):
            continue
        for rule in check_line(line):
            print(f"{shown}:{i}: {rule}: {line.strip()[:160]}")
            n += 1
    return n


def self_test(fixdir):
    fails = 0
    bad = os.path.join(fixdir, "bad.txt")
    clean = os.path.join(fixdir, "clean.txt")
    nbad = 0
    with open(bad, encoding="utf-8") as f:
        for i, raw in enumerate(f, 1):
            raw = raw.rstrip("\n")
            if not raw or raw.startswith("//"):
                continue
            if "\t" not in raw:
                print(f"{bad}:{i}: no tab between the rule and the text")
                fails += 1
                continue
            want, text = raw.split("\t", 1)
            nbad += 1
            got = check_line(text)
            if want not in got:
                print(f"FAIL {bad}:{i}: want {want}, got {got or 'nothing'}: {text}")
                fails += 1
    nclean = 0
    with open(clean, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            nclean += 1
            got = check_line(line.rstrip("\n"))
            if got:
                print(f"FAIL {clean}:{i}: flagged {got}: {line.strip()}")
                fails += 1
    names = {name for name, _ in RULES}
    covered = set()
    with open(bad, encoding="utf-8") as f:
        for raw in f:
            if "\t" in raw and not raw.startswith("//"):
                covered.add(raw.split("\t", 1)[0])
    for name in sorted(names - covered):
        print(f"FAIL {bad}: no sample for rule {name}")
        fails += 1
    # The exemptions, on paths.
    for path, want in (("results/history/seed-96cpu-20261130/results.json", False),
                       ("probes/tests/data/agent-flush-phys40.xt", False),
                       ("tests/lint/data/words/bad.txt", False),
                       ("tests/integration/data/faults.ini", True),
                       ("analysis/tests/data/gen_fixtures.py", True),
                       ("README.md", True), ("docs/ci.md", True),
                       ("cli/main.c", True), ("Makefile", True),
                       (".ci/run", True), ("configs/smoke.ini", True),
                       ("results/reference/seed-512cpu.json", True),
                       ("debian/rules", True), ("images/host/customize", True)):
        if in_scope(path) != want:
            print(f"FAIL scope: {path} {'not ' if want else ''}checked")
            fails += 1
    if not line_exempt("debian/changelog", " -- A B <a@b.org>  Sun, 06 Dec 2026 05:00:00 +0000") \
            or line_exempt("debian/changelog", "  * Built 2026-12-06."):
        print("FAIL debian/changelog: the trailer line alone is exempt")
        fails += 1
    if not line_exempt("build/man/man1/ipibench.1", '.TH IPIBENCH 1 "2026-12-06" "ipibench 0.1.0"') \
            or line_exempt("build/man/man1/ipibench.1", "Measured on 2026-12-06."):
        print("FAIL manual pages: the .TH line alone is exempt")
        fails += 1
    if fails:
        print(f"words self-test: {fails} failed")
        return 1
    print(f"ok   words self-test: {nbad} forbidden lines flagged with their rule, "
          f"{nclean} clean lines not flagged")
    return 0


def check_dir(d):
    """Every file under D; (files, findings), or None if D is no folder."""
    if not os.path.isdir(d):
        print(f"{d}: not a directory")
        return None
    nfiles = hits = 0
    for root, dirs, names in os.walk(d):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            nfiles += 1
            hits += check_file(path, path)
    return nfiles, hits


def check_dirs(dirs):
    """(files, findings) of every file under each of DIRS; None when one
    cannot be read (check_dir said why)."""
    nfiles = hits = 0
    for d in dirs:
        r = check_dir(d)
        if r is None:
            return None
        nfiles += r[0]
        hits += r[1]
    return nfiles, hits


def main(argv):
    args = argv[1:]
    if len(args) == 2 and args[0] == "--self-test":
        return self_test(args[1])
    if len(args) >= 1 and args[0] == "--dir":
        r = check_dirs(args[1:])
        if r is None:
            return 2
        nfiles, hits = r
        print(f"words: {nfiles} files checked, {hits} finding(s)")
        return 1 if hits else 0
    if len(args) < 2 or args[0] != "--tree":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top = args[1]
    files = subprocess.run(["git", "-C", top, "ls-files", "-z"], check=True,
                           stdout=subprocess.PIPE).stdout.decode().split("\0")
    hits = 0
    nfiles = 0
    for path in files:
        if not path or not in_scope(path):
            continue
        full = os.path.join(top, path)
        if not os.path.isfile(full):
            continue
        nfiles += 1
        hits += check_file(full, path)
    if nfiles < 100:
        print(f"words: only {nfiles} files checked (not a git tree?)")
        return 1
    r = check_dirs(args[2:])
    if r is None:
        return 2
    nfiles += r[0]
    hits += r[1]
    print(f"words: {nfiles} files checked, {hits} finding(s)")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
