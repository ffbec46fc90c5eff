#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ipibench hypervisor series, kept once, made for each Xen line.

hv-patch/ holds:
  series                  the patches in order: one NAME per line
  lines                   the Xen lines: NAME VERSION-PATTERN, one per line
  patches/NAME/message    the commit message (subject, blank line, body;
                          an optional "---" line starts the notes that
                          git send-email shows below the message)
  patches/NAME/LINE.diff  the patch's changes to Xen's own files on LINE
                          (unified diff, -p1 from the tree's top)
  src/PATH                the files the series adds, at PATH in Xen's tree,
                          once for every line, with marker lines that say
                          which patch and which line each part belongs to
  cover-letter            the cover letter (subject, blank line, body),
                          with @if line= blocks as a message may have
  revision                the series' revision: 3 exports [PATCH v3 n/m]

A marker is a line of its own, in a comment of the file's kind:
  /* @file from=NAME */     unmarked lines belong to patch NAME (the file
                            is added by it)
  /* @if from=NAME until=NAME line=L1,L2 */ ... /* @end */
                            the lines between belong to the patches from
                            NAME (included) until NAME (excluded), on the
                            lines named; each key is optional
Blocks do not nest.  A file empty at a patch does not exist there.

Commands:
  apply  --line L --tree DIR            the whole series, written into DIR
  export --line L --tree DIR --out OUT  DIR copied into a git repository,
         one commit per patch, `git format-patch --cover-letter` into OUT;
         From and Signed-off-by are the user's git identity (refused when
         there is none); --no-signoff leaves Signed-off-by out
  stage  --line L --upto NAME --tree DIR   the patches up to NAME only
  hash   --line L                       what names the series (build-info)
  names  --line L                       the patches that change something on
         line L (a hook, or their part of the new files), one a line
  patchset --line L [--out DIR]         without a tree: each patch as a
         diff (its hooks, and its part of the new files) into DIR, or all
         of them to stdout: what a style check reads
  tree   --line L --tree DIR --out REPO  DIR copied into a git repository
         REPO, one commit per patch on top of a commit tagged hv-base (the
         per-line tree that import reads back)
  check                                 the markers and names are sound
  absorb --line L --file REL --new PATH   make src/REL give PATH on line L
         at the last patch, keeping the markers: a new line joins the part
         of the line it replaces or, if none, of the line before it
  import --base REV --tree L=DIR ... [--messages]   re-make src/ and the
         LINE.diff files (and, with --messages, every message) from
         per-line git trees holding one commit per patch on top
         of REV (the maintainer's edit loop: edit, commit --fixup, rebase,
         import)
"""
import argparse
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HV = os.path.join(TOP, "hv-patch")
MARK = re.compile(r"^\s*(?:/\*|#|<!--)\s*@(file|if|end)\b(.*?)\s*(?:\*/|-->)?\s*$")


class SeriesError(Exception):
    pass


def die(msg):
    print("hv-series: " + msg, file=sys.stderr)
    sys.exit(1)


def read_list(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.split("#", 1)[0].strip()
            if s:
                out.append((n, s.split()))
    return out


class Series:
    def __init__(self, hv=HV):
        self.hv = hv
        self.names = []
        for n, words in read_list(os.path.join(hv, "series")):
            if len(words) != 1 or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", words[0]):
                raise SeriesError("%s/series:%d: want one patch name [a-z0-9-]" % (hv, n))
            if words[0] in self.names:
                raise SeriesError("%s/series:%d: %s twice" % (hv, n, words[0]))
            self.names.append(words[0])
        self.lines = {}
        for n, words in read_list(os.path.join(hv, "lines")):
            if len(words) != 2:
                raise SeriesError("%s/lines:%d: want NAME VERSION-PATTERN" % (hv, n))
            self.lines[words[0]] = words[1]
        self.src = os.path.join(hv, "src")

    def index(self, name, where):
        if name not in self.names:
            raise SeriesError("%s: no patch %r in %s/series" % (where, name, self.hv))
        return self.names.index(name)

    def src_files(self):
        out = []
        for d, _, files in os.walk(self.src):
            for f in files:
                out.append(os.path.relpath(os.path.join(d, f), self.src))
        return sorted(out)

    def parse(self, path, where):
        """[(text, (from, until, lines|None))] for a marked file."""
        default = None
        cond = None
        out = []
        with open(path, encoding="utf-8") as f:
            for n, text in enumerate(f, 1):
                m = MARK.match(text)
                loc = "%s:%d" % (where, n)
                if not m:
                    out.append((text, cond if cond else default))
                    continue
                kind, args = m.group(1), m.group(2).split()
                kv = {}
                for a in args:
                    if "=" not in a:
                        raise SeriesError("%s: marker argument %r is not key=value" % (loc, a))
                    k, v = a.split("=", 1)
                    if k not in ("from", "until", "line") or k in kv:
                        raise SeriesError("%s: marker key %r unknown or repeated" % (loc, k))
                    kv[k] = v
                frm = self.index(kv["from"], loc) if "from" in kv else None
                until = self.index(kv["until"], loc) if "until" in kv else None
                lines = None
                if "line" in kv:
                    lines = kv["line"].split(",")
                    for ln in lines:
                        if ln not in self.lines:
                            raise SeriesError("%s: no Xen line %r in %s/lines" % (loc, ln, self.hv))
                if kind == "file":
                    if default or cond or until is not None or lines or frm is None:
                        raise SeriesError("%s: one @file from=NAME, before any @if" % loc)
                    default = (frm, None, None)
                elif kind == "if":
                    if cond:
                        raise SeriesError("%s: @if inside @if (blocks do not nest)" % loc)
                    if frm is None and until is None and lines is None:
                        raise SeriesError("%s: @if with no condition" % loc)
                    base = default[0] if default else 0
                    cond = (frm if frm is not None else base, until, lines)
                else:
                    if args or not cond:
                        raise SeriesError("%s: @end without @if" % loc)
                    cond = None
        if cond:
            raise SeriesError("%s: @if not closed by @end" % where)
        if default is None:
            raise SeriesError("%s: no @file from=NAME marker" % where)
        return out

    def content(self, rel, line, k):
        """The text of src file rel on line at patch index k (inclusive)."""
        parsed = self.parse(os.path.join(self.src, rel), "hv-patch/src/" + rel)
        return "".join(t for t, (frm, until, lines) in parsed
                       if frm <= k and (until is None or k < until)
                       and (lines is None or line in lines))

    def line_text(self, path, where, line=None):
        """A message or the cover letter: its @if line= blocks taken or
        left for line (without a line, every marker checked)."""
        out = []
        cond = None
        with open(path, encoding="utf-8") as f:
            for n, text in enumerate(f, 1):
                m = MARK.match(text)
                if not m:
                    if cond is None or line is None or line in cond:
                        out.append(text)
                    continue
                loc = "%s:%d" % (where, n)
                args = m.group(2).split()
                if m.group(1) == "if" and not cond and len(args) == 1 \
                        and args[0].startswith("line="):
                    cond = args[0][5:].split(",")
                    for ln in cond:
                        if ln not in self.lines:
                            raise SeriesError("%s: no Xen line %r in %s/lines" % (loc, ln, self.hv))
                elif m.group(1) == "end" and cond and not args:
                    cond = None
                else:
                    raise SeriesError("%s: here only @if line=L1,L2 ... @end" % loc)
        if cond:
            raise SeriesError("%s: @if not closed by @end" % where)
        text = "".join(out)
        if "\n\n" not in text.strip() + "\n\n" or not text.strip():
            raise SeriesError("%s: want a subject line, a blank line, a body" % where)
        return text

    def message(self, name, line=None):
        """The commit message of patch name, for line."""
        return self.line_text(os.path.join(self.hv, "patches", name, "message"),
                              "hv-patch/patches/%s/message" % name, line)

    def hook(self, name, line):
        p = os.path.join(self.hv, "patches", name, line + ".diff")
        return p if os.path.exists(p) else None

    def check_line(self, line):
        if line not in self.lines:
            raise SeriesError("no Xen line %r (hv-patch/lines has %s)"
                              % (line, " ".join(self.lines)))


def run(cmd, **kw):
    r = subprocess.run(cmd, **kw)
    if r.returncode:
        raise SeriesError("%s failed (exit %d)" % (" ".join(cmd), r.returncode))
    return r


def hook_for_tree(path, tree):
    """The hook's text without the files a tree does not have (the release
    snapshots CI builds carry no tools/flask, whose policy the series
    changes): (text, [paths left out])."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"(?m)^(?=diff --git )", text)
    keep, skipped = [], []
    for part in parts:
        m = re.match(r"diff --git a/(\S+) b/", part)
        new = re.search(r"(?m)^--- /dev/null$", part)
        if m and not new and not os.path.exists(os.path.join(tree, m.group(1))):
            skipped.append(m.group(1))
            continue
        keep.append(part)
    return "".join(keep), skipped


def apply_patch(s, tree, k, line):
    name = s.names[k]
    h = s.hook(name, line)
    if h:
        text, skipped = hook_for_tree(h, tree)
        for path in skipped:
            print("hv-series: %s has no %s: patches/%s/%s.diff's change to it left out"
                  % (tree, path, name, line), file=sys.stderr)
        r = subprocess.run(["patch", "-d", tree, "-p1", "-s", "-N", "-F1",
                            "--no-backup-if-mismatch"], input=text,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise SeriesError("hv-patch/patches/%s/%s.diff does not apply to %s:\n%s"
                              % (name, line, tree, r.stdout.rstrip()))
    for rel in s.src_files():
        text = s.content(rel, line, k)
        dst = os.path.join(tree, rel)
        if text:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
        elif os.path.exists(dst):
            os.unlink(dst)


def cmd_apply(s, a, upto=None):
    s.check_line(a.line)
    last = len(s.names) - 1 if upto is None else s.index(upto, "--upto")
    for k in range(last + 1):
        apply_patch(s, a.tree, k, a.line)
        if not a.quiet:
            print("hv-series: applied %s (%d/%d)" % (s.names[k], k + 1, len(s.names)))


def changes_line(s, k, line):
    """Whether patch index k changes anything on line."""
    if s.hook(s.names[k], line):
        return True
    return any(s.content(rel, line, k) != (s.content(rel, line, k - 1) if k else "")
               for rel in s.src_files())


def series_hash(s, line):
    h = hashlib.sha256()
    h.update(("\n".join(s.names) + "\n").encode())
    for k, name in enumerate(s.names):
        h.update(s.message(name, line).encode())
        hk = s.hook(name, line)
        if hk:
            with open(hk, "rb") as f:
                h.update(f.read())
        for rel in s.src_files():
            h.update(rel.encode() + b"\0" + s.content(rel, line, k).encode())
    if os.path.exists(os.path.join(s.hv, "cover-letter")):
        with open(os.path.join(s.hv, "cover-letter"), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def git_identity(repo):
    def get(key):
        r = subprocess.run(["git", "-C", repo, "config", key], stdout=subprocess.PIPE, text=True)
        return r.stdout.strip()
    name, email = get("user.name"), get("user.email")
    if not name or not email:
        raise SeriesError("no git identity: the series is exported From and Signed-off-by "
                          "you; set it with git config --global user.name/user.email")
    return name, email


def cover_text(s, line):
    path = os.path.join(s.hv, "cover-letter")
    if not os.path.exists(path):
        return None
    return s.line_text(path, "hv-patch/cover-letter", line)


def build_repo(s, line, tree, repo, ident, signoff):
    env = dict(os.environ, GIT_AUTHOR_NAME=ident[0], GIT_AUTHOR_EMAIL=ident[1],
               GIT_COMMITTER_NAME=ident[0], GIT_COMMITTER_EMAIL=ident[1])
    shutil.copytree(tree, repo, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    q = dict(cwd=repo, env=env, stdout=subprocess.DEVNULL)
    run(["git", "init", "-q"], **q)
    run(["git", "add", "-A"], **q)
    run(["git", "commit", "-q", "--no-verify", "-m", "base"], **q)
    run(["git", "tag", "hv-base"], **q)
    for k, name in enumerate(s.names):
        apply_patch(s, repo, k, line)
        run(["git", "add", "-A"], **q)
        msg = s.message(name, line)
        body, _, notes = msg.partition("\n---\n")
        body = body.rstrip("\n") + "\n"
        if signoff:
            body += "\nSigned-off-by: %s <%s>\n" % ident
        run(["git", "commit", "-q", "--no-verify", "--allow-empty", "-F", "-"],
            input=body.encode(), cwd=repo, env=env, stdout=subprocess.DEVNULL)
        if notes.strip():
            run(["git", "notes", "add", "-F", "-"], input=notes.encode(), cwd=repo,
                env=env, stdout=subprocess.DEVNULL)
    return env


def cmd_tree(s, a):
    s.check_line(a.line)
    try:
        ident = git_identity(os.path.dirname(os.path.abspath(s.hv)))
    except SeriesError:
        ident = ("hv-series", "hv-series@localhost")
    if os.path.exists(a.out):
        raise SeriesError("%s exists: give a new folder" % a.out)
    build_repo(s, a.line, a.tree, a.out, ident, False)
    print("hv-series: %s: the series for Xen %s, %d commits on tag hv-base"
          % (a.out, a.line, len(s.names)))


def cmd_export(s, a):
    s.check_line(a.line)
    ident = git_identity(os.path.dirname(os.path.abspath(s.hv)))
    with tempfile.TemporaryDirectory(prefix="hv-series.") as tmp:
        repo = os.path.join(tmp, "xen")
        env = build_repo(s, a.line, a.tree, repo, ident, not a.no_signoff)
        os.makedirs(a.out, exist_ok=True)
        for old in os.listdir(a.out):
            if old.endswith(".patch"):
                os.unlink(os.path.join(a.out, old))
        prefix = a.subject_prefix or "PATCH"
        rev = os.path.join(s.hv, "revision")
        if not a.subject_prefix and os.path.exists(rev):
            with open(rev, encoding="utf-8") as f:
                n = f.read().strip()
            if not re.fullmatch(r"[1-9][0-9]*", n):
                raise SeriesError("%s: want the series' revision, a number" % rev)
            if n != "1":
                prefix = "PATCH v" + n
        cover = cover_text(s, a.line)
        run(["git", "format-patch", "-q", "--notes"] +
            (["--cover-letter"] if cover or len(s.names) > 1 else []) + [
             "--subject-prefix=" + prefix, "-o", os.path.abspath(a.out),
             "HEAD~%d" % len(s.names)], cwd=repo, env=env, stdout=subprocess.DEVNULL)
    if cover:
        fill_cover(os.path.join(a.out, "0000-cover-letter.patch"), cover)
    print("hv-series: %d patches and a cover letter for Xen %s in %s (From: %s <%s>)"
          % (len(s.names), a.line, a.out, ident[0], ident[1]))


def fill_cover(path, cover):
    subject, _, body = cover.partition("\n\n")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    text = text.replace("*** BLURB HERE ***", body.rstrip("\n"))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def cmd_check(s, a):
    for name in s.names:
        s.message(name)
        if not os.path.isdir(os.path.join(s.hv, "patches", name)):
            raise SeriesError("hv-patch/patches/%s: no such folder" % name)
    for d in os.listdir(os.path.join(s.hv, "patches")):
        if d not in s.names:
            raise SeriesError("hv-patch/patches/%s: not in hv-patch/series" % d)
        for f in os.listdir(os.path.join(s.hv, "patches", d)):
            if f != "message" and not (f.endswith(".diff") and f[:-5] in s.lines):
                raise SeriesError("hv-patch/patches/%s/%s: neither message nor LINE.diff" % (d, f))
    for rel in s.src_files():
        s.parse(os.path.join(s.src, rel), "hv-patch/src/" + rel)
    if os.path.exists(os.path.join(s.hv, "cover-letter")):
        cover_text(s, None)
    print("hv-series: %d patches, %d files, %d lines: sound"
          % (len(s.names), len(s.src_files()), len(s.lines)))


# ---- import: per-line git trees -> src/ with markers, and the hooks ------

def git_out(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          stdout=subprocess.PIPE, text=True).stdout


def weave_add(weave, prev_idx, new_lines, key):
    """Add version key to the weave: new_lines against the weave entries
    prev_idx (the indexes of the previous version's lines, in order)."""
    old = [weave[i][0] for i in prev_idx]
    sm = difflib.SequenceMatcher(None, old, new_lines, autojunk=False)
    inserts = []  # (weave position to insert before, [lines])
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for o in range(i2 - i1):
                weave[prev_idx[i1 + o]][1].add(key)
        if tag in ("insert", "replace"):
            pos = prev_idx[i1] if i1 < len(prev_idx) else None
            if pos is None:
                pos = (prev_idx[-1] + 1) if prev_idx else len(weave)
            inserts.append((pos, new_lines[j1:j2]))
    for pos, lines in sorted(inserts, key=lambda x: -x[0]):
        weave[pos:pos] = [[t, {key}] for t in lines]


def weave_indexes(weave, key):
    return [i for i, (_, ks) in enumerate(weave) if key in ks]


def comment_for(rel):
    if rel.endswith((".c", ".h")):
        return "/* %s */\n"
    return "# %s\n"


def cmd_import(s, a):
    trees = dict(t.split("=", 1) for t in a.tree)
    for line in trees:
        s.check_line(line)
    order = [ln for ln in s.lines if ln in trees]
    n = len(s.names)
    commits = {}
    for line in order:
        revs = git_out(trees[line], "rev-list", "--reverse", "%s..HEAD" % a.base).split()
        if len(revs) != n:
            raise SeriesError("%s: %d commits on top of %s, hv-patch/series has %d"
                              % (trees[line], len(revs), a.base, n))
        commits[line] = revs
    # The files the series adds: new in some commit of the first line.
    added = set()
    for line in order:
        for rev in commits[line]:
            for st in git_out(trees[line], "show", "--format=", "--name-status", rev).splitlines():
                if st.startswith("A\t"):
                    added.add(st.split("\t", 1)[1])
    added = sorted(added)
    # Messages from the first line's commits (only for a patch without one,
    # unless --messages), without trailers that name a person (export adds
    # the user's own), notes after a "---" line.
    for k, rev in enumerate(commits[order[0]]):
        d = os.path.join(s.hv, "patches", s.names[k])
        os.makedirs(d, exist_ok=True)
        msg = git_out(trees[order[0]], "log", "-1", "--format=%B", rev)
        msg = "".join(ln for ln in msg.splitlines(keepends=True)
                      if not re.match(r"(Signed-off-by|Co-developed-by):", ln)).rstrip() + "\n"
        r = subprocess.run(["git", "-C", trees[order[0]], "notes", "show", rev],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if r.returncode == 0 and r.stdout.strip():
            msg += "---\n" + r.stdout.rstrip() + "\n"
        path = os.path.join(d, "message")
        if a.messages or not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write(msg)
    # Hooks: each commit's diff of Xen's own files.
    for line in order:
        for k, rev in enumerate(commits[line]):
            d = os.path.join(s.hv, "patches", s.names[k])
            os.makedirs(d, exist_ok=True)
            diff = git_out(trees[line], "diff", "--no-color", rev + "~1", rev, "--", ".",
                           *[":!" + p for p in added])
            path = os.path.join(d, line + ".diff")
            if diff:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(diff)
            elif os.path.exists(path):
                os.unlink(path)
    # src: a weave of every (line, patch) version of each added file.
    shutil.rmtree(s.src, ignore_errors=True)
    for rel in added:
        weave = []
        for line in order:
            for k, rev in enumerate(commits[line]):
                r = subprocess.run(["git", "-C", trees[line], "show", "%s:%s" % (rev, rel)],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                text = r.stdout.splitlines(keepends=True) if r.returncode == 0 else []
                # Against this line's previous patch and the first line's
                # same patch: what the lines share is woven once.
                near = {(line, k - 1), (order[0], k)}
                prev = [i for i, (_, ks) in enumerate(weave) if ks & near]
                weave_add(weave, prev, text, (line, k))
        write_weave(s, rel, weave, order, n)


def write_weave(s, rel, weave, order, n):
    fmt = comment_for(rel)
    first = min(k for _, ks in weave for (_, k) in ks)
    out = [fmt % ("@file from=" + s.names[first])]
    cur = None
    for text, ks in weave:
        if not ks:
            continue
        cond = describe(s, ks, order, n, first)
        if cond != cur:
            if cur:
                out.append(fmt % "@end")
            if cond:
                out.append(fmt % ("@if " + cond))
            cur = cond
        out.append(text)
    if cur:
        out.append(fmt % "@end")
    path = os.path.join(s.src, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(out)


def describe(s, ks, order, n, first):
    lines = sorted({ln for ln, _ in ks}, key=order.index)
    ranges = set()
    for ln in lines:
        idx = sorted(k for l2, k in ks if l2 == ln)
        if idx != list(range(idx[0], idx[-1] + 1)):
            raise SeriesError("a line of the weave comes and goes twice on %s" % ln)
        ranges.add((idx[0], idx[-1] + 1))
    if len(ranges) != 1:
        raise SeriesError("a line of the weave has other patches on other lines: %r" % sorted(ks))
    frm, until = ranges.pop()
    parts = []
    if frm != first:
        parts.append("from=" + s.names[frm])
    if until != n:
        parts.append("until=" + s.names[until])
    if len(lines) != len(order):
        parts.append("line=" + ",".join(lines))
    return " ".join(parts)


def emit(s, rel, parsed, default):
    fmt = comment_for(rel)
    out = [fmt % ("@file from=" + s.names[default[0]])]
    cur = None
    for text, cond in parsed:
        key = None if cond == default else cond
        if key != cur:
            if cur:
                out.append(fmt % "@end")
            if key:
                frm, until, lines = key
                parts = []
                if frm != default[0]:
                    parts.append("from=" + s.names[frm])
                if until is not None:
                    parts.append("until=" + s.names[until])
                if lines:
                    parts.append("line=" + ",".join(lines))
                out.append(fmt % ("@if " + " ".join(parts)))
            cur = key
        out.append(text)
    if cur:
        out.append(fmt % "@end")
    return "".join(out)


def cmd_absorb(s, a):
    s.check_line(a.line)
    path = os.path.join(s.src, a.file)
    where = "hv-patch/src/" + a.file
    parsed = s.parse(path, where)
    default = None
    with open(path, encoding="utf-8") as f:
        for text in f:
            m = MARK.match(text)
            if m and m.group(1) == "file":
                default = (s.index(m.group(2).split("=", 1)[1].strip(), where), None, None)
                break
    last = len(s.names) - 1
    vis = [i for i, (t, (frm, until, lines)) in enumerate(parsed)
           if frm <= last and until is None and (lines is None or a.line in lines)]
    with open(a.new, encoding="utf-8") as f:
        new = f.read().splitlines(keepends=True)
    old = [parsed[i][0] for i in vis]
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    out = list(parsed)
    for tag, i1, i2, j1, j2 in reversed(sm.get_opcodes()):
        if tag == "equal":
            continue
        if i1 < i2:
            like = parsed[vis[i1]][1]
        elif i1 > 0:
            like = parsed[vis[i1 - 1]][1]
        else:
            like = default
        # What replaces a line's own variant stays that line's; what is
        # only added is for every line.
        cond = (like[0], None, like[2] if i1 < i2 else None)
        pos = vis[i1] if i1 < len(vis) else (vis[-1] + 1 if vis else len(out))
        for i in reversed(range(i1, i2)):
            del out[vis[i]]
        out[pos:pos] = [(t, cond) for t in new[j1:j2]]
    with open(path, "w", encoding="utf-8") as f:
        f.write(emit(s, a.file, out, default))


def patch_diff(s, line, k):
    """Patch k on line, without a tree: its hooks as they are, and its
    part of each new file as a diff against the previous patch's."""
    out = []
    h = s.hook(s.names[k], line)
    if h:
        with open(h, encoding="utf-8") as f:
            out.append(f.read())
    for rel in s.src_files():
        before = s.content(rel, line, k - 1) if k else ""
        after = s.content(rel, line, k)
        if before == after:
            continue
        d = list(difflib.unified_diff(before.splitlines(keepends=True),
                                      after.splitlines(keepends=True),
                                      "/dev/null" if not before else "a/" + rel,
                                      "b/" + rel, n=3))
        out.append("diff --git a/%s b/%s\n" % (rel, rel))
        if not before:
            out.append("new file mode 100644\n")
        out.extend(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n"
                   for ln in d)
    return "".join(out)


def cmd_patchset(s, a):
    s.check_line(a.line)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    for k, name in enumerate(s.names):
        text = patch_diff(s, a.line, k)
        if a.out:
            with open(os.path.join(a.out, "%04d-%s.patch" % (k + 1, name)), "w",
                      encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stdout.write(text)


def main():
    p = argparse.ArgumentParser(prog="hv-series", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hv", default=HV, help="the series folder (default: hv-patch/)")
    sub = p.add_subparsers(dest="cmd", required=True)
    for c in ("apply", "export", "stage", "hash", "names", "tree"):
        sp = sub.add_parser(c)
        sp.add_argument("--line", required=True)
        if c not in ("hash", "names"):
            sp.add_argument("--tree", required=True)
            sp.add_argument("--quiet", action="store_true")
        if c == "stage":
            sp.add_argument("--upto", required=True)
        if c in ("export", "tree"):
            sp.add_argument("--out", required=True)
        if c == "export":
            sp.add_argument("--no-signoff", action="store_true")
            sp.add_argument("--subject-prefix",
                            help="default: PATCH vN, N from hv-patch/revision")
    sub.add_parser("check")
    sp = sub.add_parser("patchset")
    sp.add_argument("--line", required=True)
    sp.add_argument("--out")
    sp = sub.add_parser("absorb")
    sp.add_argument("--line", required=True)
    sp.add_argument("--file", required=True)
    sp.add_argument("--new", required=True)
    sp = sub.add_parser("import")
    sp.add_argument("--base", required=True)
    sp.add_argument("--tree", action="append", required=True)
    sp.add_argument("--messages", action="store_true",
                    help="take every message from the trees' commits")
    a = p.parse_args()
    try:
        s = Series(a.hv)
        if a.cmd == "apply":
            cmd_apply(s, a)
        elif a.cmd == "stage":
            cmd_apply(s, a, a.upto)
        elif a.cmd == "export":
            cmd_export(s, a)
        elif a.cmd == "hash":
            s.check_line(a.line)
            print(series_hash(s, a.line))
        elif a.cmd == "names":
            s.check_line(a.line)
            for k, name in enumerate(s.names):
                if changes_line(s, k, a.line):
                    print(name)
        elif a.cmd == "tree":
            cmd_tree(s, a)
        elif a.cmd == "absorb":
            cmd_absorb(s, a)
        elif a.cmd == "patchset":
            cmd_patchset(s, a)
        elif a.cmd == "check":
            cmd_check(s, a)
        else:
            cmd_import(s, a)
    except (SeriesError, OSError) as e:
        die(str(e))


if __name__ == "__main__":
    main()
