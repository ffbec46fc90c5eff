#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The parts' boundaries: a C file of one top-level part includes another
part's headers only where docs/design.md's "Source layout" table names them
in the part's header column (the one home of that list).  Always allowed:
the shared names of include/ipibench/ ("ipibench/NAME.h"), and the
test helpers of tests/unit/ from a part's tests/ and fuzz/ folders.

  layering.py --tree TOP        check TOP's tracked C files; status 1 on a finding
  layering.py --self-test DIR   the checker on the fixture trees in DIR:
                                each CASE/ has docs/design.md, some sources
                                and want.txt (the findings expected, one a
                                line, or nothing)

A finding: FILE:LINE: includes PART/HEADER, not one of PART's public headers
(docs/design.md: ...).
"""
import os
import re
import subprocess
import sys

ROW = re.compile(r"^\| `([a-z0-9_-]+)/` \|.*\| ([^|]*) \|\s*$")
HEADER = re.compile(r"`([a-z0-9_-]+/[a-zA-Z0-9_./-]+\.h)`")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_-]+)/([^"]+)"')


def public_headers(design):
    """{part: set of its public headers} from the Source layout table."""
    parts = {}
    in_layout = False
    with open(design, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_layout = line.strip() == "## Source layout"
                continue
            m = ROW.match(line) if in_layout else None
            if m:
                parts[m.group(1)] = set(HEADER.findall(m.group(2)))
    return parts


def sources(top):
    """The tracked C files (git), or every C file when TOP is no work tree."""
    try:
        out = subprocess.run(["git", "-C", top, "ls-files", "*.c", "*.h"],
                             capture_output=True, text=True, check=True).stdout
        return [p for p in out.splitlines() if p]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, _, files in os.walk(top):
            for n in files:
                if n.endswith((".c", ".h")):
                    found.append(os.path.relpath(os.path.join(d, n), top))
        return sorted(found)


def check(top):
    parts = public_headers(os.path.join(top, "docs", "design.md"))
    findings = []
    for path in sources(top):
        part = path.split("/", 1)[0]
        if part not in parts:
            continue
        in_tests = "/tests/" in path or "/fuzz/" in path
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
            for no, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                other, rest = m.group(1), m.group(2)
                header = other + "/" + rest
                if other == part or other == "ipibench":
                    continue
                if other == "tests" and in_tests and rest.startswith("unit/"):
                    continue
                if other in parts and header in parts[other]:
                    continue
                if other in parts:
                    why = "not one of %s's public headers (docs/design.md: %s)" % (
                        other, ", ".join(sorted(parts[other])) or "none")
                else:
                    why = "not a part's public header (docs/design.md's Source layout)"
                findings.append("%s:%d: includes %s, %s" % (path, no, header, why))
    return findings


def self_test(data):
    fails = 0
    for case in sorted(os.listdir(data)):
        d = os.path.join(data, case)
        if not os.path.isdir(d):
            continue
        with open(os.path.join(d, "want.txt"), encoding="utf-8") as f:
            want = [w for w in f.read().splitlines() if w]
        got = check(d)
        if got == want:
            print("ok   layering self-test %s: %d finding(s) as expected" % (case, len(want)))
        else:
            fails += 1
            print("FAIL layering self-test %s:" % case)
            for g in got:
                print("       got:  " + g)
            for w in want:
                print("       want: " + w)
    return fails


def main(argv):
    if len(argv) == 3 and argv[1] == "--tree":
        findings = check(argv[2])
        for f in findings:
            print(f)
        print("layering: %d finding(s)" % len(findings))
        return 1 if findings else 0
    if len(argv) == 3 and argv[1] == "--self-test":
        return 1 if self_test(argv[2]) else 0
    sys.stderr.write("usage: layering.py --tree TOP | --self-test DIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
