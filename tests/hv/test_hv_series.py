#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/hv-series.py on a small series of its own: markers, apply, stage,
export with the user's identity (and its refusal without one), check's
one-line refusals, and import's round trip from per-line git trees."""
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(TOP, "scripts", "hv-series.py")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


SRC = """/* @file from=core */
/* SPDX-License-Identifier: GPL-2.0-only */
int core;
/* @if from=extra */
int extra;
/* @end */
/* @if until=extra */
int placeholder;
/* @end */
/* @if line=new */
void handler(void);
/* @end */
/* @if line=old */
void handler(struct regs *r);
/* @end */
"""

MAKEFILE = "obj-y += a.o\nobj-y += b.o\nobj-y += c.o\nobj-y += d.o\nobj-y += e.o\nobj-y += f.o\n"
HOOK_OLD = """--- a/xen/Makefile
+++ b/xen/Makefile
@@ -1,6 +1,7 @@
 obj-y += a.o
 obj-y += b.o
 obj-y += c.o
+obj-y += bench.o
 obj-y += d.o
 obj-y += e.o
 obj-y += f.o
"""


class Series(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        self.hv = os.path.join(self.t, "top", "hv-patch")
        write(os.path.join(self.hv, "series"), "core\nextra\n")
        write(os.path.join(self.hv, "lines"), "new 4.2*\nold 4.1*\n")
        write(os.path.join(self.hv, "patches/core/message"),
              "x86: core\n\nThe core.\n---\nv3: nothing new\n")
        write(os.path.join(self.hv, "patches/extra/message"), "x86: extra\n\nMore.\n")
        write(os.path.join(self.hv, "patches/core/old.diff"), HOOK_OLD)
        write(os.path.join(self.hv, "patches/core/new.diff"), HOOK_OLD)
        write(os.path.join(self.hv, "src/xen/bench.c"), SRC)
        self.tree = os.path.join(self.t, "tree")
        write(os.path.join(self.tree, "xen/Makefile"), MAKEFILE)

    def tearDown(self):
        self.tmp.cleanup()

    def gen(self, *args, env=None, ok=True):
        r = subprocess.run([sys.executable, GEN, "--hv", self.hv] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, **(env or {})))
        if ok:
            self.assertEqual(r.returncode, 0, r.stderr)
        else:
            self.assertNotEqual(r.returncode, 0, r.stdout)
        return r

    def test_apply_takes_each_lines_part(self):
        self.gen("apply", "--quiet", "--line", "old", "--tree", self.tree)
        self.assertEqual(read(os.path.join(self.tree, "xen/bench.c")),
                         "/* SPDX-License-Identifier: GPL-2.0-only */\nint core;\n"
                         "int extra;\nvoid handler(struct regs *r);\n")
        self.assertIn("obj-y += bench.o", read(os.path.join(self.tree, "xen/Makefile")))

    def test_hook_into_a_file_the_tree_lacks_is_left_out_and_said(self):
        with open(os.path.join(self.hv, "patches/core/old.diff"), "a", encoding="utf-8") as f:
            f.write("diff --git a/tools/policy.te b/tools/policy.te\n--- a/tools/policy.te\n"
                    "+++ b/tools/policy.te\n@@ -1 +1 @@\n-a\n+a b\n")
        r = self.gen("apply", "--quiet", "--line", "old", "--tree", self.tree)
        self.assertIn("has no tools/policy.te: patches/core/old.diff's change to it left out",
                      r.stderr)
        self.assertIn("obj-y += bench.o", read(os.path.join(self.tree, "xen/Makefile")))
        write(os.path.join(self.tree, "tools/policy.te"), "a\n")
        t = os.path.join(self.t, "t3")
        write(os.path.join(t, "xen/Makefile"), MAKEFILE)
        write(os.path.join(t, "tools/policy.te"), "a\n")
        self.gen("apply", "--quiet", "--line", "old", "--tree", t)
        self.assertEqual(read(os.path.join(t, "tools/policy.te")), "a b\n")

    def test_stage_stops_at_its_patch(self):
        self.gen("stage", "--quiet", "--line", "new", "--upto", "core", "--tree", self.tree)
        self.assertEqual(read(os.path.join(self.tree, "xen/bench.c")),
                         "/* SPDX-License-Identifier: GPL-2.0-only */\nint core;\n"
                         "int placeholder;\nvoid handler(void);\n")

    def test_hook_that_does_not_apply_names_itself(self):
        write(os.path.join(self.tree, "xen/Makefile"), MAKEFILE.replace("c.o", "x.o").replace("d.o", "y.o"))
        r = self.gen("apply", "--quiet", "--line", "old", "--tree", self.tree, ok=False)
        self.assertIn("hv-patch/patches/core/old.diff does not apply", r.stderr)

    def test_hash_differs_per_line_and_follows_the_source(self):
        a = self.gen("hash", "--line", "old").stdout
        b = self.gen("hash", "--line", "new").stdout
        self.assertNotEqual(a, b)
        write(os.path.join(self.hv, "src/xen/bench.c"), SRC.replace("int core;", "long core;"))
        self.assertNotEqual(a, self.gen("hash", "--line", "old").stdout)

    def test_names_lists_the_patches_that_change_the_line(self):
        # fix has a hook on old only: nothing of it is on new.
        write(os.path.join(self.hv, "series"), "core\nextra\nfix\n")
        write(os.path.join(self.hv, "patches/fix/message"), "x86: fix\n\nA fix.\n")
        write(os.path.join(self.hv, "patches/fix/old.diff"), HOOK_OLD)
        self.assertEqual(self.gen("names", "--line", "old").stdout, "core\nextra\nfix\n")
        self.assertEqual(self.gen("names", "--line", "new").stdout, "core\nextra\n")
        self.gen("names", "--line", "nosuch", ok=False)

    def test_check_refuses_with_file_and_line(self):
        self.gen("check")
        write(os.path.join(self.hv, "src/xen/bench.c"),
              SRC.replace("@if from=extra", "@if from=nosuch"))
        r = self.gen("check", ok=False)
        self.assertEqual(r.stderr.strip(),
                         "hv-series: hv-patch/src/xen/bench.c:4: no patch 'nosuch' in %s/series"
                         % self.hv)
        write(os.path.join(self.hv, "src/xen/bench.c"), SRC.replace("/* @end */\n", "", 1))
        r = self.gen("check", ok=False)
        self.assertIn("hv-patch/src/xen/bench.c:6: @if inside @if", r.stderr)
        write(os.path.join(self.hv, "src/xen/bench.c"), SRC)
        write(os.path.join(self.hv, "patches/stray/message"), "x\n\ny\n")
        r = self.gen("check", ok=False)
        self.assertIn("hv-patch/patches/stray: not in hv-patch/series", r.stderr)

    def test_export_is_from_the_user_with_notes(self):
        env = {"GIT_CONFIG_GLOBAL": os.path.join(self.t, "gitconfig"), "HOME": self.t}
        write(env["GIT_CONFIG_GLOBAL"], "[user]\n\tname = A Developer\n\temail = a@example.org\n")
        out = os.path.join(self.t, "out")
        self.gen("export", "--line", "new", "--tree", self.tree, "--out", out, env=env)
        files = sorted(os.listdir(out))
        self.assertEqual(files, ["0000-cover-letter.patch", "0001-x86-core.patch",
                                 "0002-x86-extra.patch"])
        p1 = read(os.path.join(out, files[1]))
        self.assertIn("From: A Developer <a@example.org>", p1)
        self.assertIn("Signed-off-by: A Developer <a@example.org>", p1)
        self.assertIn("v3: nothing new", p1.split("\n---\n", 1)[1])
        self.assertIn("+int placeholder;", p1)
        self.assertIn("+void handler(void);", p1)
        p2 = read(os.path.join(out, files[2]))
        self.assertIn("-int placeholder;", p2)
        self.assertIn("+int extra;", p2)

    def test_export_without_identity_is_refused(self):
        env = {"GIT_CONFIG_GLOBAL": os.path.join(self.t, "empty"), "HOME": self.t,
               "GIT_CONFIG_NOSYSTEM": "1"}
        write(env["GIT_CONFIG_GLOBAL"], "")
        r = self.gen("export", "--line", "new", "--tree", self.tree,
                     "--out", os.path.join(self.t, "out"), env=env, ok=False)
        self.assertIn("no git identity", r.stderr)

    def test_absorb_keeps_each_part_where_it_was(self):
        new = os.path.join(self.t, "new.c")
        write(new, "/* SPDX-License-Identifier: GPL-2.0-only */\nint core;\nint added;\n"
                   "int extra;\nvoid handler(int x);\n")
        self.gen("absorb", "--line", "new", "--file", "xen/bench.c", "--new", new)
        self.gen("check")
        self.gen("stage", "--quiet", "--line", "old", "--upto", "core", "--tree", self.tree)
        self.assertEqual(read(os.path.join(self.tree, "xen/bench.c")),
                         "/* SPDX-License-Identifier: GPL-2.0-only */\nint core;\nint added;\n"
                         "int placeholder;\nvoid handler(struct regs *r);\n")
        t = os.path.join(self.t, "t2")
        write(os.path.join(t, "xen/Makefile"), MAKEFILE)
        self.gen("apply", "--quiet", "--line", "new", "--tree", t)
        self.assertEqual(read(os.path.join(t, "xen/bench.c")), read(new))

    def test_import_round_trip(self):
        # Per-line trees made by apply, one commit per patch: import them
        # into a fresh hv-patch and apply again: the same trees.
        trees = {}
        for line in ("new", "old"):
            d = os.path.join(self.t, "git-" + line)
            write(os.path.join(d, "xen/Makefile"), MAKEFILE)
            g = ["git", "-C", d, "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run(["git", "init", "-q", d], check=True)
            subprocess.run(g + ["add", "-A"], check=True)
            subprocess.run(g + ["commit", "-qm", "base"], check=True)
            subprocess.run(g + ["tag", "base"], check=True)
            for name in ("core", "extra"):
                subprocess.run(g + ["checkout", "-q", "base", "--", "."], check=True)
                self.gen("stage", "--quiet", "--line", line, "--upto", name, "--tree", d)
                subprocess.run(g + ["add", "-A"], check=True)
                subprocess.run(g + ["commit", "-qm", "x86: " + name + "\n\nbody"], check=True)
            trees[line] = d
        before = read(os.path.join(self.hv, "src/xen/bench.c"))
        os.remove(os.path.join(self.hv, "src/xen/bench.c"))
        self.gen("import", "--base", "base", "--tree", "new=" + trees["new"],
                 "--tree", "old=" + trees["old"])
        self.gen("check")
        for line in ("new", "old"):
            t = os.path.join(self.t, "again-" + line)
            write(os.path.join(t, "xen/Makefile"), MAKEFILE)
            self.gen("apply", "--quiet", "--line", line, "--tree", t)
            self.assertEqual(read(os.path.join(t, "xen/bench.c")),
                             read(os.path.join(trees[line], "xen/bench.c")))
        self.assertNotEqual(before, "")


if __name__ == "__main__":
    unittest.main(verbosity=1)
