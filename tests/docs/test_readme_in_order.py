#!/usr/bin/env python3
"""Unit tests of readme_in_order.py (the README-in-order runner) on small made-up pages: how it
reads markers and blocks, what it refuses, and one run of a toy clone (exports carry over, each
block starts in the clone, files land where the page says, skips and preparations are reported,
a failing line stops the run naming it). The real README's plan is checked by readme_in_order_plan.

usage: test_readme_in_order.py   (run by ctest; seconds)
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import readme_in_order as r  # noqa: E402

FIRST = "## Two commands\n```sh\nscripts/run-suite.sh\nscripts/test.sh   # tests\n```\n"


class Parse(unittest.TestCase):
    def test_blocks_markers_and_plan(self):
        page = FIRST + (
            "## Yours\n<!-- file: CMakeLists.txt in ~/proj -->\n```cmake\nproject(x)\n```\n"
            "<!-- run: build/bin -->\n<!-- readme-test: skip ./gpu :: needs a GPU -->\n"
            "<!-- readme-test: prepare ./cpu --x :: echo ready -->\n"
            "```sh\n# a comment line\n./cpu --x   # runs\n\n./gpu --all\n```\n")
        blocks = r.parse(page)
        self.assertEqual([b.kind for b in blocks], ["sh", "file", "sh"])
        self.assertEqual((blocks[1].name, blocks[1].where, blocks[1].heading), ("CMakeLists.txt", "~/proj", "Yours"))
        self.assertEqual(blocks[2].run_dir, "build/bin")
        steps = r.plan(blocks, checks=[("./cpu", "it says so", ("output", "ok"))])
        lines = [(s[2].strip(), s[3], s[4], [c for c, _ in s[5]]) for s in steps]
        self.assertEqual(lines, [
            ("scripts/run-suite.sh", None, [], []),
            ("scripts/test.sh   # tests", None, [], []),
            ("./cpu --x   # runs", None, ["echo ready"], ["it says so"]),
            ("./gpu --all", "needs a GPU", [], []),
        ])

    def refused(self, page, checks=(), says=""):
        with self.assertRaises(r.ReadmeError) as e:
            r.plan(r.parse(page), checks=list(checks))
        self.assertIn(says, str(e.exception))

    def test_a_marker_that_matches_no_line_fails(self):
        self.refused(FIRST + "<!-- readme-test: skip pitot profile :: GPU -->\n```sh\npitot run x\n```\n",
                     says="matches no line")
        self.refused(FIRST + "<!-- readme-test: prepare pitot ab :: true -->\n```sh\npitot run x\n```\n",
                     says="matches no line")

    def test_a_check_that_matches_no_line_fails(self):
        self.refused(FIRST, checks=[("pitot gone", "a claim", ("output", "x"))], says="no longer has")

    def test_the_first_block_must_run_the_tests(self):
        self.refused("```sh\nscripts/run-suite.sh\n# scripts/test.sh\n```\n", says="scripts/test.sh")

    def test_every_block_is_run_or_saved(self):
        self.refused(FIRST + "```cpp\nint main() {}\n```\n", says="neither a sh block nor tagged")

    def test_a_verdict_marker_marks_its_line(self):
        page = FIRST + "<!-- readme-test: verdict pitot compare :: may be slower -->\n```sh\npitot run x\npitot compare a b\n```\n"
        self.assertEqual([(s[2], s[6]) for s in r.plan(r.parse(page), checks=[])][2:], [("pitot run x", False), ("pitot compare a b", True)])
        self.refused(FIRST + "<!-- readme-test: verdict pitot ab :: x -->\n```sh\npitot run x\n```\n", says="matches no line")

    def test_a_verdict_line_other_than_0_or_1_is_its_status(self):
        shell = r.Shell(dict(os.environ), 60)
        try:
            self.assertEqual(shell.run("sh -c 'exit 2'", echo=False, verdict=True)[0], 2)
            self.assertEqual(shell.run("echo alive", echo=False)[0], 0)  # the shell went on
        finally:
            shell.kill()

    def test_malformed_markers(self):
        self.refused(FIRST + "<!-- readme-test: skip pitot -->\n```sh\npitot\n```\n", says="must read")
        self.refused(FIRST + "<!-- file: a.cpp -->\n\nsome text\n```cpp\n```\n", says="followed by its fenced block")


TOY = """# toy
## First
```sh
scripts/test.sh   # the test command
export FOO=bar
cd /
```
<!-- file: a.txt in ~/proj -->
```text
hello
```
<!-- file: b.txt -->
```text
in the clone
```
## Second
<!-- readme-test: skip gpu-thing :: needs a GPU -->
<!-- readme-test: prepare cat b.txt :: mkdir ../base && trap "rm -rf '$PWD/../base'" EXIT && echo prepared -->
<!-- readme-test: verdict sh -c 'echo slower; exit 1' :: a verdict of slower -->
```sh
cat b.txt
test -d ../base
cd ~/proj && cat a.txt
echo "FOO=$FOO HOME=$HOME"
gpu-thing --all
sh -c 'echo slower; exit 1'
echo "after the verdict"
false; echo "after the failure"
echo never
```
"""


class ToyRun(unittest.TestCase):
    def test_run_in_order(self):
        with tempfile.TemporaryDirectory() as work:
            clone = os.path.join(work, "clone")
            os.makedirs(os.path.join(clone, "scripts"))
            with open(os.path.join(clone, "README.md"), "w") as f:
                f.write(TOY)
            with open(os.path.join(clone, "scripts", "test.sh"), "w") as f:
                f.write("#!/bin/sh\necho tests ran\n")
            os.chmod(os.path.join(clone, "scripts", "test.sh"), 0o755)
            git = ["git", "-C", clone, "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
            subprocess.run(["git", "init", "-q", clone], check=True)
            subprocess.run(git + ["add", "-A"], check=True)
            subprocess.run(git + ["commit", "-qm", "toy"], check=True)
            out, err = io.StringIO(), io.StringIO()
            saved = r.CHECKS, sys.argv
            r.CHECKS = [("echo \"FOO", "the export carried over", ("output", "FOO=bar HOME=.*readme-home-"))]
            sys.argv = ["readme_in_order.py", "--root", clone, "--line-timeout", "60"]
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    rc = r.main()
            finally:
                r.CHECKS, sys.argv = saved
            text = out.getvalue()
            self.assertEqual(rc, 1, text + err.getvalue())
            self.assertIn("tests ran", text)
            self.assertIn("in the clone", text)  # the second block started in the clone, not in /
            self.assertIn("hello", text)  # a.txt was saved in ~/proj
            self.assertIn("prepared", text)
            self.assertIn("check passed: the export carried over", text)
            self.assertIn("SKIPPED (needs a GPU): gpu-thing --all", text)
            self.assertIn("ok in 0 s (exit 1: its verdict was slower)", text)
            self.assertIn("\nafter the verdict\n", text)  # a verdict line's exit 1 does not end the shell
            self.assertNotIn("\nafter the failure\n", text)  # set -e: `false; ...` stops at false
            self.assertNotIn("never", text)
            self.assertIn("FAILED in 'Second': false; echo \"after the failure\"", err.getvalue())
            self.assertIn("exited 1", err.getvalue())
            self.assertFalse(os.path.exists(os.path.join(work, "base")), "the preparation's EXIT trap did not clean up")
            self.assertIn("readme-home-", text)  # HOME was a temporary folder, not the real one


if __name__ == "__main__":
    unittest.main()
