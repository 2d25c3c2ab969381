#!/usr/bin/env python3
"""Runs README.md top to bottom, as a new user would: every command block in the order written,
in one shell, so the state each block leaves (files, builds, installs, exported PATH, the active
venv) is the next one's start; and holds the examples to what their text claims (CHECKS below).

usage: readme_in_order.py [--dry-run] [--root DIR] [--readme FILE] [--not-fresh] [--keep-home]
                          [--line-timeout S]

Run it in a fresh clone (CI: .ci/run's first step). It builds everything the README builds, writes
bench_sort.py, .venv/ and asv-results/ into the clone, makes one empty commit there (below) and
creates ../base beside it (removed at the end). HOME is a fresh temporary folder, so `~/.local`,
`~/my_benchmarks`, pip's and asv's caches never touch the real home. `--dry-run` only parses and
prints the plan (blocks, lines, skips, preparations, checks); it fails as a run would on a README
whose markers no longer match it.

What the README's markers mean (HTML comments, invisible on the rendered page):
- `<!-- file: NAME -->` before a fenced block: the block is saved as NAME, relative to the clone
  (`<!-- file: NAME in DIR -->`: in DIR; `~/` is HOME). tests/docs/extract_blocks.py reads the same.
- `<!-- run: DIR -->` before a sh block: its lines run in DIR (relative to the clone). Every other
  sh block starts in the clone's root; a `cd` inside a block lasts until the block's end.
- `<!-- readme-test: skip PREFIX :: REASON -->` before a sh block: its lines that start with
  PREFIX are not run (e.g. they need a GPU); each one is reported with REASON.
- `<!-- readme-test: prepare PREFIX :: SHELL -->`: SHELL runs (in the same shell, reported) just
  before the line that starts with PREFIX: what the README says the user has and a fresh clone
  does not (a base build, results of an earlier commit).
- `<!-- readme-test: verdict PREFIX :: REASON -->`: the line that starts with PREFIX gives a
  verdict that may be "slower" (exit 1) as well as exit 0: on a shared machine two runs of the
  same code can differ for real (the machine's speed changed). Any other exit fails the run.
A marker whose PREFIX matches no line of its block fails the run, so markers cannot rot; every
fenced block must be a sh block or a `file:` block. Each line must exit 0 (a verdict line 0 or 1); a failing line stops
the run with its section, the line and its output.
"""
import argparse
import collections
import os
import queue
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time

FENCE = re.compile(r"^```(\S*)\s*$")
FILE_TAG = re.compile(r"^<!--\s*file:\s*(\S+)(?:\s+in\s+(\S+))?\s*-->\s*$")
RUN_TAG = re.compile(r"^<!--\s*run:\s*(\S+)\s*-->\s*$")
TEST_TAG = re.compile(r"^<!--\s*readme-test:\s*(skip|prepare|verdict)\s+(.+?)\s+::\s+(.+?)\s*-->\s*$")
ANY_TEST_TAG = re.compile(r"^<!--\s*readme-test:")
SHELL_LANGS = ("sh", "bash", "shell", "console")

# What the README's text claims of a line, checked right after it ran. (PREFIX, claim, how):
# how is ("output", REGEX): the line's output matches; or ("shell", COMMAND): COMMAND exits 0 in
# the README's shell (same folder, same environment). A PREFIX that matches no line fails the run.
CHECKS = [
    ("scripts/build.sh && cmake --install build --prefix ~/.local",
     "pitot and pitot-asv are in ~/.local/bin",
     ("shell", 'test -x "$HOME/.local/bin/pitot" && test -x "$HOME/.local/bin/pitot-asv"')),
    ('export PATH="$HOME/.local/bin:$PATH"',
     "pitot is the installed one",
     ("shell", '[ "$(command -v pitot)" = "$HOME/.local/bin/pitot" ]')),
    ("cmake --build build && build/my_bench",
     "build/my_bench prints a table of medians with their spread, every point of sort_ints",
     ("output", r"(?s)sort_ints\[n=1000,order=random\].*sort_ints\[n=100000,order=sorted\]")),
    ("pip install -v ./python",
     "the venv holds the module and, with libzip installed, the driver: pitot is .venv/bin/pitot",
     ("shell", 'python -c "import pitot" && [ "$(command -v pitot)" = "$PWD/.venv/bin/pitot" ]')),
    ("python bench_sort.py --filter sort_floats",
     "random input sorts many times slower than sorted (tests/docs/readme_python.py)",
     ("shell", 'python tests/docs/readme_python.py "$PWD"')),
    ("python bench_sort.py --list --json -",
     "a program's --list --json answer, naming both benchmarks",
     ("output", r'(?s)"name": *"sort_floats".*"name": *"[^"]*time_sum"')),
    ("pitot run bench_sort.py build/benchmarks/cpu",
     "one asv database, each program's rows in its own environment (C++ and Python apart)",
     ("shell", 'python "$PWD/tests/docs/readme_in_order.py" --check-envs asv-results/results')),
    ("./bench_examples --json out.json --csv out.csv",
     "the JSON and CSV files are written",
     ("shell", "test -s out.json && test -s out.csv")),
    ("./bench_examples --asv-dir asv-results/results --machine mybox",
     "an asv results file for machine mybox",
     ("shell", "ls asv-results/results/mybox/*.json >/dev/null")),
    ('export PATH="$PWD/build/src/driver:$PATH"',
     "pitot is the build's",
     ("shell", '[ "$(command -v pitot)" = "$PWD/build/src/driver/pitot" ]')),
    ("pitot init --dir asv-results",
     "run-suite.sh made it already: init says so",
     ("output", r"already set up")),
    ("pitot compare ab/base.json ab/head.json --markdown -o comment.md",
     "the markdown comment is written",
     ("shell", "grep -q '|' comment.md")),
    ("scripts/pitot-asv --config asv-results/asv.conf.json publish",
     "asv's dashboard is published into the config's html_dir",
     ("shell", "test -f asv-results/html/index.html")),
]


class ReadmeError(Exception):
    """The README and this runner disagree (a marker, a block, a check); exit 2."""


class Block:
    def __init__(self, kind, heading, line_no, lines, lang="", name=None, where=None, run_dir=None):
        self.kind = kind  # "sh" or "file"
        self.heading = heading
        self.line_no = line_no  # 1-based line of the opening fence
        self.lines = lines
        self.lang = lang
        self.name = name  # file blocks: NAME
        self.where = where  # file blocks: DIR of `in DIR`, else None (the clone)
        self.run_dir = run_dir  # sh blocks: DIR of `<!-- run: DIR -->`, else None (the clone)
        self.skips = []  # (prefix, reason, marker line)
        self.prepares = []  # (prefix, shell, marker line)
        self.verdicts = []  # (prefix, reason, marker line)

    def commands(self):
        """(index, line) of the block's command lines: blank lines and whole-line comments are not commands."""
        return [(i, line) for i, line in enumerate(self.lines) if line.strip() and not line.lstrip().startswith("#")]


def parse(text, page="README.md"):
    """The README's fenced blocks, in order, with their markers. Raises ReadmeError."""
    lines = text.splitlines()
    blocks = []
    heading = "(top)"
    pending_file = pending_run = None
    pending_tests = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif FILE_TAG.match(line):
            m = FILE_TAG.match(line)
            pending_file = (m.group(1), m.group(2), i + 1)
        elif RUN_TAG.match(line):
            pending_run = (RUN_TAG.match(line).group(1), i + 1)
        elif ANY_TEST_TAG.match(line):
            m = TEST_TAG.match(line)
            if not m:
                raise ReadmeError(f"{page}:{i + 1}: a readme-test marker must read "
                                  f"'<!-- readme-test: skip|prepare|verdict LINE-PREFIX :: TEXT -->': {line}")
            pending_tests.append((m.group(1), m.group(2), m.group(3), i + 1))
        elif FENCE.match(line):
            lang = FENCE.match(line).group(1)
            end = i + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            if end >= len(lines):
                raise ReadmeError(f"{page}:{i + 1}: a fenced block that is never closed")
            body = lines[i + 1:end]
            if pending_file:
                if pending_run or pending_tests:
                    raise ReadmeError(f"{page}:{i + 1}: a file: block cannot also carry run: or readme-test markers")
                name, where, _ = pending_file
                blocks.append(Block("file", heading, i + 1, body, lang, name=name, where=where))
            elif lang in SHELL_LANGS:
                b = Block("sh", heading, i + 1, body, lang, run_dir=pending_run[0] if pending_run else None)
                for kind, prefix, what, at in pending_tests:
                    {"skip": b.skips, "prepare": b.prepares, "verdict": b.verdicts}[kind].append((prefix, what, at))
                blocks.append(b)
            else:
                raise ReadmeError(f"{page}:{i + 1}: a ```{lang} block that is neither a sh block nor tagged "
                                  f"'<!-- file: NAME -->': the README test can neither run nor save it")
            pending_file = pending_run = None
            pending_tests = []
            i = end
        elif line.strip() and (pending_file or pending_run or pending_tests):
            what = pending_file[2] if pending_file else pending_run[1] if pending_run else pending_tests[0][3]
            raise ReadmeError(f"{page}:{what}: a marker must be followed by its fenced block (line {i + 1} is text)")
        i += 1
    if pending_file or pending_run or pending_tests:
        raise ReadmeError(f"{page}: a marker at the end has no block after it")
    return blocks


def plan(blocks, checks=None, page="README.md"):
    """Each sh line's action: the list of (block, index, line, skip reason or None, [prepare shells],
    [checks]). Raises ReadmeError when a marker or a check matches no line, or the README's first
    command block lost the test command."""
    checks = CHECKS if checks is None else checks
    sh_blocks = [b for b in blocks if b.kind == "sh"]
    if not sh_blocks:
        raise ReadmeError(f"{page} has no sh block")
    first = [line for _, line in sh_blocks[0].commands()]
    if not any(line.split("#")[0].split() and line.split()[0] == "scripts/test.sh" for line in first):
        raise ReadmeError(f"{page}'s first command block ({sh_blocks[0].heading}, line {sh_blocks[0].line_no}) no "
                          "longer runs scripts/test.sh: CI runs the README's test command through this runner "
                          "(.ci/run), so it would stop running the tests. Put scripts/test.sh back, or change "
                          ".ci/run to call the new test command itself.")
    steps = []
    used_checks = set()
    for b in sh_blocks:
        used_skips, used_prepares, used_verdicts = set(), set(), set()
        for index, line in b.commands():
            text = line.strip()
            skip = next(((k, reason) for k, (prefix, reason, _) in enumerate(b.skips) if text.startswith(prefix)), None)
            if skip:
                used_skips.add(skip[0])
            prepares = []
            for k, (prefix, shell, _) in enumerate(b.prepares):
                if text.startswith(prefix):
                    used_prepares.add(k)
                    prepares.append(shell)
            verdict = next((k for k, (prefix, _, _) in enumerate(b.verdicts) if text.startswith(prefix)), None)
            if verdict is not None:
                used_verdicts.add(verdict)
            line_checks = []
            for k, (prefix, claim, how) in enumerate(checks):
                if text.startswith(prefix):
                    used_checks.add(k)
                    line_checks.append((claim, how))
            steps.append((b, index, line, skip[1] if skip else None, prepares, line_checks, verdict is not None))
        for k, (prefix, _, at) in enumerate(b.skips):
            if k not in used_skips:
                raise ReadmeError(f"{page}:{at}: the skip marker's prefix '{prefix}' matches no line of the block "
                                  f"at line {b.line_no}: mend or remove the marker")
        for k, (prefix, _, at) in enumerate(b.prepares):
            if k not in used_prepares:
                raise ReadmeError(f"{page}:{at}: the prepare marker's prefix '{prefix}' matches no line of the block "
                                  f"at line {b.line_no}: mend or remove the marker")
        for k, (prefix, _, at) in enumerate(b.verdicts):
            if k not in used_verdicts:
                raise ReadmeError(f"{page}:{at}: the verdict marker's prefix '{prefix}' matches no line of the block "
                                  f"at line {b.line_no}: mend or remove the marker")
    for k, (prefix, claim, _) in enumerate(checks):
        if k not in used_checks:
            raise ReadmeError(f"the check '{claim}' names a line starting with '{prefix}' that {page} no longer "
                              "has: mend CHECKS in tests/docs/readme_in_order.py with the README")
    return steps


def print_plan(blocks, steps):
    for b in blocks:
        if b.kind == "file":
            print(f"file  {b.where + '/' if b.where else ''}{b.name}  ({b.heading}, line {b.line_no})")
            continue
        print(f"block line {b.line_no} ({b.heading}), in {b.run_dir or 'the clone'}:")
        for blk, index, line, skip, prepares, line_checks, verdict in steps:
            if blk is not b:
                continue
            for shell in prepares:
                print(f"  prepare: {shell}")
            print(f"  {'skip' if skip else 'run '}: {line.strip()}" + (f"   [skipped: {skip}]" if skip else "") +
                  ("   [a verdict: exit 0 or 1]" if verdict else ""))
            for claim, _ in line_checks:
                print(f"  check: {claim}")
    runs = sum(1 for s in steps if not s[3])
    print(f"{len(steps)} command lines: {runs} run, {len(steps) - runs} skipped; "
          f"{sum(len(s[5]) for s in steps)} checks; {sum(1 for b in blocks if b.kind == 'file')} files")


def check_envs(results):
    """--check-envs DIR: in each machine's folder of an asv results database, no environment holds
    both C++ programs' and Python files' rows (the driver used to file a mixed run under one env)."""
    if not os.path.isdir(results):
        sys.exit(f"--check-envs: {results} is not a folder")
    import json
    seen_python = seen_cpp = False
    for machine in sorted(os.listdir(results)):
        folder = os.path.join(results, machine)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json") or name == "machine.json":
                continue
            with open(os.path.join(folder, name)) as f:
                doc = json.load(f)
            env = doc.get("env_name", name)
            keys = list(doc.get("results", {}))
            python = [k for k in keys if k.startswith("bench_sort.")]  # README's Python file
            cpp = [k for k in keys if k.startswith(("bench_examples.", "bench_engine."))]  # build/benchmarks/cpu
            seen_python |= bool(python)
            seen_cpp |= bool(cpp)
            if python and cpp:
                sys.exit(f"--check-envs: {machine}/{name} (env {env}) holds Python rows ({python[0]}) and others "
                         f"({cpp[0]}): each program's rows must carry its own environment")
    if not (seen_python and seen_cpp):
        sys.exit(f"--check-envs: expected rows of bench_sort.py and of C++ programs under {results} "
                 f"(python: {seen_python}, C++: {seen_cpp})")
    print(f"--check-envs: C++ and Python rows are in separate environments under {results}")


class Shell:
    """One bash, fed line by line like a terminal; each line's output is streamed and kept."""

    def __init__(self, env, line_timeout):
        self.token = "@@readme-line-done-" + secrets.token_hex(8) + "@@"
        self.line_timeout = line_timeout
        self.proc = subprocess.Popen(["bash", "--noprofile", "--norc"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        self.out = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        # set -e: a failing command inside a line (`a; b`) stops the run too, not only the line's
        # last status; pipefail: `a | b` fails when a does.
        self.send("set -e -o pipefail\n")

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.out.put(raw.decode("utf-8", "replace"))
        self.out.put(None)

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def run(self, command, echo=True, verdict=False):
        """(status, output lines). status None: the shell exited (set -e), its exit code in .exit_code.
        verdict: a non-zero exit is returned as the status instead of ending the shell."""
        # The line runs in this shell (so `export`, `cd` and `. activate` last), stdin closed so a
        # command cannot eat the lines that follow. The newline before `}` ends a trailing comment.
        keep = " && __readme_rc=0 || __readme_rc=$?" if verdict else "; __readme_rc=$?"
        self.send("{\n" + command + "\n} </dev/null" + keep + "\nprintf '\\n%s %d\\n' " + self.token + " $__readme_rc\n")
        kept = collections.deque(maxlen=400)
        blank = ""
        deadline = time.monotonic() + self.line_timeout
        while True:
            try:
                item = self.out.get(timeout=max(1.0, deadline - time.monotonic()))
            except queue.Empty:
                item = ""
            if item == "" and time.monotonic() >= deadline:
                self.kill()
                kept.append(f"(readme test: no end after {self.line_timeout:.0f} s: killed)\n")
                self.exit_code = "timeout"
                return None, list(kept)
            if item is None:
                self.exit_code = self.proc.wait()
                return None, list(kept)
            if self.token in item:
                before = item[:item.index(self.token)]
                if before.strip():
                    kept.append(before)
                    if echo:
                        sys.stdout.write(before + "\n")
                return int(item.split(self.token)[1].split()[0]), list(kept)
            if blank:  # an empty line held back: the one printed before the end marker is not output
                kept.append(blank)
                if echo:
                    sys.stdout.write(blank)
                blank = ""
            if item == "\n":
                blank = item
                continue
            kept.append(item)
            if echo:
                sys.stdout.write(item)
                sys.stdout.flush()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=600)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc.stdout.close()

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def clean_env(home, real_home):
    """The user's environment with a fresh HOME: no PATH entry in the real home (~/.pyenv/shims,
    ~/.cargo/bin), no folder there to write into (XDG_*, *_HOME, caches), no active venv."""
    env = dict(os.environ)
    for key in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "PITOT_PYTHON", "PITOT_ASV", "PITOT_ASV_VENV",
                "PITOT_ASV_CONFIG", "PITOT_BUILD_DIR", "PITOT_ASV_DIR", "OLDPWD", "CDPATH", "BASH_ENV", "ENV"):
        env.pop(key, None)
    real = os.path.realpath(real_home) if real_home else None
    dropped = []
    if real and real != "/":
        for key, value in list(env.items()):
            writes = (key.startswith(("XDG_", "PYENV", "PIP_CACHE", "PYTHONUSER")) or key.endswith("_HOME")
                      or "CACHE" in key)  # folders programs write into; a file they only read (PIP_CERT) stays
            if writes and key != "HOME" and (value == real or value.startswith(real + os.sep)):
                dropped.append(key)
                del env[key]
        parts = env.get("PATH", "").split(os.pathsep)
        kept = [p for p in parts if not (os.path.realpath(p) == real or os.path.realpath(p).startswith(real + os.sep))]
        dropped += [p for p in parts if p not in kept]
        env["PATH"] = os.pathsep.join(kept)
    env["HOME"] = home
    env["PWD"] = home
    return env, dropped


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    help="the clone to run in (default: the one holding this script)")
    ap.add_argument("--readme", help="the page (default: ROOT/README.md)")
    ap.add_argument("--dry-run", action="store_true", help="parse and print the plan; run nothing")
    ap.add_argument("--not-fresh", action="store_true",
                    help="run although the clone has untracked or ignored files (a second run, for debugging)")
    ap.add_argument("--keep-home", action="store_true", help="leave the temporary HOME in place and say where")
    ap.add_argument("--line-timeout", type=float, default=3600, help="seconds one line may take (default 3600)")
    ap.add_argument("--check-envs", metavar="RESULTS", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.check_envs:
        check_envs(a.check_envs)
        return 0

    root = os.path.abspath(a.root)
    readme = a.readme or os.path.join(root, "README.md")
    try:
        with open(readme, encoding="utf-8") as f:
            blocks = parse(f.read(), os.path.basename(readme))
        steps = plan(blocks, page=os.path.basename(readme))
    except (OSError, ReadmeError) as e:
        print(f"readme test: {e}", file=sys.stderr)
        return 2
    if a.dry_run:
        print_plan(blocks, steps)
        return 0

    if not os.path.isdir(os.path.join(root, ".git")):
        print(f"readme test: {root} is not a git clone: run this in a fresh clone (git clone URL DIR)", file=sys.stderr)
        return 2
    # What an earlier build or run left (ignored by git: build*/, .venv/, asv-results/) would let a
    # line pass on old state; other untracked files (a CI runner's own) do not matter.
    dirty = "\n".join(e for e in git(root, "status", "--porcelain", "--ignored").stdout.splitlines()
                      if e.startswith("!!") and "__pycache__" not in e and not e.endswith(".pyc"))
    if dirty and not a.not_fresh:
        print(f"readme test: {root} is not a fresh clone (it holds what git ignores:\n{dirty[:2000]}\n): the README "
              "starts from a fresh clone and this run writes into it. Clone it (git clone ROOT /tmp/x) and run "
              "the clone's tests/docs/readme_in_order.py, or pass --not-fresh to run on top of what is there.",
              file=sys.stderr)
        return 2

    home = tempfile.mkdtemp(prefix="readme-home-")
    env, dropped = clean_env(home, os.environ.get("HOME"))
    print(f"readme test: HOME is a fresh {home}; left out of the environment (they point into the real home): "
          f"{', '.join(dropped) or 'nothing'}", flush=True)
    shell = Shell(env, a.line_timeout)
    written = []
    timings = []
    skipped = []
    failure = None
    started = time.monotonic()

    def here(path):
        """A README path: ~/ is the temporary HOME; anything else is relative to the clone."""
        if path == "~" or path.startswith("~/"):
            return os.path.join(home, path[2:])
        return os.path.normpath(os.path.join(root, path))

    def fail(section, line, why, output):
        nonlocal failure
        tail = "".join(output[-120:])
        failure = (f"readme test: FAILED in '{section}': {line.strip()}\n  {why}\n"
                   f"--- its last output ---\n{tail}--- end ---")

    step_iter = iter(steps)
    current = None
    try:
        for b in blocks:
            if failure:
                break
            if b.kind == "file":
                path = os.path.join(here(b.where) if b.where else root, b.name)
                rel = os.path.relpath(path, root)
                if not rel.startswith("..") and git(root, "ls-files", "--error-unmatch", rel).returncode == 0:
                    fail(b.heading, f"<!-- file: {b.name} -->", f"{rel} is a file of the repository: the README "
                         "would have the user overwrite it (give the block `in DIR`)", [])
                    break
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(b.lines) + "\n")
                written.append(path)
                print(f"\n[readme] {b.heading}: saved {path}", flush=True)
                continue
            start_dir = here(b.run_dir) if b.run_dir else root
            print(f"\n[readme] == {b.heading} (README line {b.line_no}), in {start_dir}", flush=True)
            status, output = shell.run(f"cd {sh_quote(start_dir)}", echo=True)
            if status != 0:
                fail(b.heading, f"cd {start_dir}", f"the block's folder is missing (exit {status})", output)
                break
            for blk, index, line, skip, prepares, line_checks, verdict in steps:
                if blk is not b:
                    continue
                current = line
                if skip:
                    print(f"[readme] SKIPPED ({skip}): {line.strip()}", flush=True)
                    skipped.append((b.heading, line.strip(), skip))
                    continue
                for shell_text in prepares:
                    print(f"[readme] prepare (not in the README's text): {shell_text}", flush=True)
                    t0 = time.monotonic()
                    status, output = shell.run(shell_text)
                    timings.append((b.heading, "(prepare) " + shell_text, time.monotonic() - t0))
                    if status != 0:
                        fail(b.heading, line, f"its preparation exited {status if status is not None else shell.exit_code}: "
                             f"{shell_text}", output)
                        break
                if failure:
                    break
                print(f"[readme] $ {line.strip()}", flush=True)
                t0 = time.monotonic()
                status, output = shell.run(line, verdict=verdict)
                took = time.monotonic() - t0
                timings.append((b.heading, line.strip(), took))
                if status != 0 and not (verdict and status == 1):
                    code = status if status is not None else shell.exit_code
                    must = "a verdict line must exit 0 or 1" if verdict else "each README line must exit 0"
                    fail(b.heading, line, f"exited {code} after {took:.0f} s ({must})", output)
                    break
                print(f"[readme] ok in {took:.0f} s" + (" (exit 1: its verdict was slower)" if status == 1 else ""),
                      flush=True)
                for claim, (how, what) in line_checks:
                    if how == "output":
                        ok = re.search(what, "".join(output)) is not None
                        check_out = []
                    else:
                        print(f"[readme] check: {what}", flush=True)
                        status, check_out = shell.run(what)
                        ok = status == 0
                    if not ok:
                        fail(b.heading, line, f"it ran, but does not do what the README says: {claim}",
                             check_out or output)
                        break
                    print(f"[readme] check passed: {claim}", flush=True)
                if failure:
                    break
    except KeyboardInterrupt:
        failure = f"readme test: interrupted during: {current}"
    finally:
        shell.close()  # its EXIT trap (a preparation's clean-up) runs here

    total = time.monotonic() - started
    print("\n[readme] time per line:")
    for section, line, took in timings:
        print(f"  {took:7.0f} s  {line}   ({section})")
    print(f"  {total:7.0f} s  in all ({total / 60:.1f} min)")
    if skipped:
        print(f"[readme] {len(skipped)} line(s) not run:")
        for section, line, why in skipped:
            print(f"  {line}   ({section}): {why}")
    if a.keep_home:
        print(f"[readme] HOME kept: {home}")
    else:
        shutil.rmtree(home, ignore_errors=True)
    if failure:
        print(failure, file=sys.stderr, flush=True)
        return 1
    print(f"[readme] passed: {sum(1 for t in timings if not t[1].startswith('(prepare)'))} lines ran in order, {len(skipped)} skipped, "
          f"{sum(len(s[5]) for s in steps if not s[3])} claims checked")
    return 0


def sh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    sys.exit(main())
