#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Xen's CODING_STYLE on the lines a patch series adds to C files.

The hypervisor series is posted to xen-devel, where the code must follow
Xen's CODING_STYLE (the file of that name at the top of a Xen tree).  This
checks, on the ADDED lines of every .c and .h file of each patch:

  tab           indentation uses spaces, never tabs
  indent        a statement's indentation is a multiple of 4 (continuation
                lines, which align with what they continue, are not
                checked; nor are preprocessor lines)
  label         a label is indented by at least one blank
  keyword-space `if ( x )`, `while ( x )`, `for ( ... )`, `switch ( x )`:
                one space between the keyword and '(', and spaces inside
                the brackets
  brace         the braces of a block on lines of their own (`do {` and
                the opening brace of a struct, union or enum definition or
                of an initializer excepted); no `} else`
  line-length   lines less than 80 columns, unless what passes column 79 is
                a string literal (user-visible strings are not split)
  trailing-space  no white space at the end of a line
  cpp-comment   only /* */ comments, no //
  comment-form  a multi-line comment starts with a line of its own `/*`
                and ends with one of its own `*/`, and each line between
                begins with '*'
  spdx          a new file's first line is its SPDX comment:
                /* SPDX-License-Identifier: ... */

The lines around an added line (the hunk's context) are read too, so that
a continuation or a comment is known as such; only added lines are
reported.

  xen_style.py PATCH...              patch files (git format-patch output,
                                     or any unified diff with a/ b/ paths)
  xen_style.py --git TREE RANGE      each commit of RANGE in the git tree
                                     TREE (e.g. v2..HEAD, or HEAD~9..)

One finding a line:
  PATCH:LINE: TARGET:TLINE: RULE: message
PATCH and LINE are the patch file (or the commit, for --git) and the line
in it; TARGET and TLINE the file the patch changes and the line there.
Exit status 1 if anything was found, 2 on a usage error.
"""
import os
import re
import subprocess
import sys

MAX_COLS = 79
CONTROL = ("if", "while", "for", "switch")
# What a line ends with when the next line starts a statement (and so is
# indented by a multiple of 4).
STATEMENT_ENDS = (";", "{", "}", ":", ",", ")")
LABEL = re.compile(r"^(\s*)([A-Za-z_]\w*)\s*:(?!:)")


def blank_literals(code, in_comment):
    """Code with string and character literals' contents and comments
    replaced by spaces (columns kept).  Returns (code, in_comment at the
    end, comments), comments being (start, end) columns of each comment
    part on the line, end None when it goes on past the line, start None
    when it began on an earlier line."""
    out = []
    comments = []
    i = 0
    n = len(code)
    start = None if in_comment else -1
    while i < n:
        if in_comment:
            j = code.find("*/", i)
            if j < 0:
                out.append(" " * (n - i))
                comments.append((start, None))
                return "".join(out), True, comments
            out.append(" " * (j + 2 - i))
            comments.append((start, j + 2))
            i = j + 2
            in_comment = False
            continue
        c = code[i]
        if code.startswith("/*", i):
            in_comment = True
            start = i
            out.append("  ")
            i += 2
            continue
        if code.startswith("//", i):
            # Kept visible: the cpp-comment rule looks for it.
            out.append("//" + " " * (n - i - 2))
            comments.append((i, n))
            return "".join(out), False, comments
        if c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            j = min(j, n - 1)
            out.append(c + " " * (j - i - 1) + (code[j] if j > i else ""))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_comment, comments


def string_spans(code):
    """(start, end) columns of the string literals of a line."""
    spans = []
    i = 0
    n = len(code)
    while i < n:
        if code[i] == '"':
            j = i + 1
            while j < n and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            spans.append((i, min(j, n - 1) + 1))
            i = j + 1
        else:
            i += 1
    return spans


def matching_paren(code, i):
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "(":
            depth += 1
        elif code[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


class FileState:
    """What is known at a line of the new side of one file."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.in_comment = False
        self.depth = 0
        self.prev_end = ";"
        self.in_macro = False


def check_line(text, st, finding):
    """Check one line of the new side (added or context) against the
    rules; finding(rule, message) is called only for added lines by the
    caller's wrapper.  Updates st."""
    was_comment = st.in_comment
    was_depth = st.depth
    prev_end = st.prev_end
    macro = st.in_macro
    code, st.in_comment, comments = blank_literals(text, st.in_comment)
    stripped = text.strip()
    lead = len(text) - len(text.lstrip(" \t"))

    # White space.
    if re.search(r"[ \t]+$", text):
        finding("trailing-space", "white space at the end of the line")
    if "\r" in text:
        finding("trailing-space", "carriage return in the line")
    if "\t" in text[:lead]:
        finding("tab", "tab in the indentation (4 spaces an indent level)")
    elif "\t" in text:
        finding("tab", "tab in the line (spaces only)")

    # Length: columns with tabs at 8.
    cols = len(text.expandtabs(8).rstrip("\r\n"))
    if cols > MAX_COLS:
        exp = text.expandtabs(8)
        if not any(s < MAX_COLS and e > MAX_COLS
                   for s, e in string_spans(exp)):
            finding("line-length",
                    "%d columns (less than 80, CODING_STYLE)" % cols)

    # Comments.
    if "//" in code:
        finding("cpp-comment", "// comment (only /* */ comments)")
    for start, end in comments:
        if start is not None and start >= 0 and end is None:
            # A comment opening here and going on: "/*" (or "/**") alone.
            after = text[start + 2:].lstrip("*").strip()
            if after:
                finding("comment-form",
                        "text after the '/*' that opens a multi-line "
                        "comment (put it on the next line)")
            if code[:start].strip():
                finding("comment-form",
                        "multi-line comment after code (its '/*' on a "
                        "line of its own)")
    if was_comment:
        closes = comments and comments[0][0] is None and \
            comments[0][1] is not None
        if closes:
            if not re.match(r"^\*+/$", stripped):
                finding("comment-form",
                        "the '*/' closing a multi-line comment on a line "
                        "of its own")
        elif not stripped.startswith("*"):
            finding("comment-form",
                    "a line inside a multi-line comment begins with '*'")

    cs = code.strip()
    # A line that starts with a binary or ternary operator continues the
    # expression of the line before.
    cont = re.match(r"^(\?|:(?!:)|&&|\|\||[-+*/%|&^] |==|!=|<|>)", cs)
    is_cpp = (not was_comment and cs.startswith("#")) or macro
    st.in_macro = code.rstrip().endswith("\\") and (
        is_cpp or macro)

    # Control keywords.
    for m in re.finditer(r"\b(%s)\b(\s*)\(" % "|".join(CONTROL), code):
        kw, sp = m.group(1), m.group(2)
        if sp != " ":
            finding("keyword-space",
                    "one space between '%s' and '(': '%s ( ... )'"
                    % (kw, kw))
        op = m.end() - 1
        if op + 1 < len(code) and code[op + 1] not in " \n":
            finding("keyword-space",
                    "a space after the '(' of '%s': '%s ( ... )'" % (kw, kw))
        cl = matching_paren(code, op)
        if cl is not None and cl > op + 1 and code[cl - 1] != " ":
            finding("keyword-space",
                    "a space before the ')' of '%s': '%s ( ... )'"
                    % (kw, kw))

    # Braces.
    if re.match(r"^\s*\}\s*else\b", code):
        finding("brace", "'}' and 'else' on lines of their own")
    ctl = re.match(r"^\s*(?:\}\s*)?(if|else|for|while|switch)\b", code)
    if ctl and "{" in code[ctl.end():]:
        finding("brace", "the '{' of the '%s' block on a line of its own"
                % ctl.group(1))
    elif (not ctl and not is_cpp and was_depth == 0
          and re.search(r"\)\s*\{\s*$", code)
          and "=" not in code and "({" not in code.replace(" ", "")
          and not re.match(r"^\s*(struct|union|enum)\b", code)):
        finding("brace", "the '{' of a function or block on a line of "
                "its own")

    # Indentation of a statement (not of continuation lines).
    if (not was_comment and not is_cpp and was_depth == 0 and cs
            and not cs.startswith("/*") and not cs.startswith("*")
            and not cont and prev_end in STATEMENT_ENDS):
        m = LABEL.match(code)
        if m and m.group(2) not in ("case", "default"):
            if not m.group(1):
                finding("label", "label '%s' not indented (at least one "
                        "blank)" % m.group(2))
        elif "\t" not in text[:lead] and lead % 4:
            finding("indent", "indented by %d (a multiple of 4)" % lead)

    # The state for the next line.
    if not is_cpp:
        st.depth = max(0, st.depth + code.count("(") - code.count(")"))
        if cs:
            st.prev_end = cs[-1]
            if re.search(r"\b(else|do)$", cs):
                st.prev_end = ";"
            elif cs.endswith(":") and not re.match(
                    r"^([A-Za-z_]\w*|case\b.*|default)\s*:$", cs):
                # The ':' of a conditional expression goes on.
                st.prev_end = "?"
        elif not stripped:
            st.prev_end = ";"


def tab_style(hunk):
    """Whether the lines around a hunk's added ones (its context and
    removed lines) are indented with tabs: a file kept in the style of the
    source it was imported from (Linux's), whose own style added lines
    follow (CODING_STYLE's exception)."""
    tabs = spaces = 0
    for _pline, kind, text in hunk:
        if kind == "+":
            continue
        if text.startswith("\t"):
            tabs += 1
        elif text.startswith("    "):
            spaces += 1
    return tabs > spaces


def parse_patch(lines):
    """The hunks of the C files of a patch: (target, new_file, first
    target line, [(patch line, kind, text)]), kind being '+', ' ' or '-'."""
    hunks = []
    target = None
    new_file = False
    cur = None
    for i, ln in enumerate(lines, 1):
        if ln.startswith("diff --git "):
            target, new_file, cur = None, False, None
            continue
        if cur is None:
            if ln.startswith("new file mode"):
                new_file = True
            elif ln.startswith("+++ "):
                path = ln[4:].split("\t")[0].strip()
                target = None if path == "/dev/null" else \
                    re.sub(r"^b/", "", path)
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", ln)
        if m:
            cur = (target, new_file, int(m.group(1)), [])
            if target and target.endswith((".c", ".h")):
                hunks.append(cur)
            continue
        if cur is None:
            continue
        if ln == "-- " or (ln and ln[0] not in " +-\\"):
            # The signature of format-patch, or the next mail's header.
            cur = None
            continue
        if ln.startswith("\\"):
            continue
        cur[3].append((i, ln[0] if ln else " ", ln[1:]))
    return hunks


def check_patch(name, lines, report):
    """Check one patch (its lines, without newlines).  report(name,
    pline, target, tline, rule, message) for each finding."""
    for target, new_file, tline, hunk in parse_patch(lines):
        linux = tab_style(hunk)
        st = FileState()
        for pline, kind, text in hunk:
            if kind == "-":
                continue
            found = []
            check_line(text, st, lambda r, msg: found.append((r, msg)))
            if kind == "+":
                if new_file and tline == 1 and not re.match(
                        r"^/\* SPDX-License-Identifier: \S.* \*/$", text):
                    found.insert(0, ("spdx", "a new file's first line is "
                                     "/* SPDX-License-Identifier: ... */"))
                if linux:
                    # Tabs are this file's indentation, and its control
                    # statements and braces are Linux's.
                    found = [f for f in found if f[0] not in
                             ("tab", "indent", "keyword-space", "brace")]
                    if text.startswith("    "):
                        found.append(("tab-file", "indented with spaces in "
                                      "a file indented with tabs (follow "
                                      "the file's own style)"))
                for rule, msg in found:
                    report(name, pline, target, tline, rule, msg)
            tline += 1


def git_commits(tree, rng):
    revs = subprocess.run(["git", "-C", tree, "rev-list", "--reverse", rng],
                          check=True, capture_output=True, text=True)
    for rev in revs.stdout.split():
        p = subprocess.run(["git", "-C", tree, "format-patch", "-1",
                            "--stdout", "--no-signature", rev],
                           check=True, capture_output=True, text=True)
        yield rev[:12], p.stdout.split("\n")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    findings = []

    def report(name, pline, target, tline, rule, msg):
        findings.append(1)
        print("%s:%d: %s:%d: %s: %s" % (name, pline, target, tline, rule,
                                        msg))

    if argv[1] == "--git":
        if len(argv) != 4:
            print("usage: xen_style.py --git TREE RANGE", file=sys.stderr)
            return 2
        try:
            for name, lines in git_commits(argv[2], argv[3]):
                check_patch(name, lines, report)
        except subprocess.CalledProcessError as e:
            print("xen_style: git: %s" % (e.stderr or e).strip(),
                  file=sys.stderr)
            return 2
    else:
        for path in argv[1:]:
            try:
                with open(path, encoding="utf-8", errors="replace",
                          newline="") as f:
                    lines = f.read().split("\n")
            except OSError as e:
                print("xen_style: %s" % e, file=sys.stderr)
                return 2
            check_patch(path, lines, report)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
