#!/usr/bin/env python3
"""pitot run's fence (docs/untrusted.md, "The fence"), end to end with fenced.cpp, a program whose
points each try one way out and report what happened.

Fenced (--sandbox require): a write outside its scratch folder and a connection to a non-loopback
address are refused, a write to its scratch folder works and the folder is gone afterwards, and
/dev/shm is its own. The same program with --sandbox off gets out, so the checks can fail. Where
this machine cannot fence (a fake bwrap that fails as in a container, or none on PATH): --sandbox
require exits 2 with the reason and runs nothing; auto runs, saying "sandbox: none (...)" on
stderr and in the JSON report. The fenced cases are skipped (exit 77) where bwrap cannot run here.

usage: sandbox.py PITOT FENCED_PROGRAM"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

PITOT, PROGRAM = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []
# What bwrap says in a container that forbids user namespaces (bubblewrap 0.8, Debian 12).
CONTAINER_ERROR = ("bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
                   "non-privileged user namespaces. On e.g. debian this can be enabled with "
                   "'sysctl kernel.unprivileged_userns_clone=1'.")


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def clean(work):
    """What a run before left: its report, and what an unfenced program wrote."""
    for left in ("report.json", "outside/escaped", "tmp/kept", f"/dev/shm/pitot-fence-{os.getpid()}"):
        if os.path.exists(os.path.join(work, left)):
            os.remove(os.path.join(work, left))


def run(work, args, path=None):
    """pitot run of the program under --untrusted with `args`: (process, report or None)."""
    clean(work)
    out = os.path.join(work, "report.json")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"), TMPDIR=os.path.join(work, "tmp"),
               FENCE_TEST_OUTSIDE=os.path.join(work, "outside"), FENCE_TEST_SHM_NAME=f"pitot-fence-{os.getpid()}")
    if path is not None:
        env["PATH"] = path
    r = subprocess.run([PITOT, "run", PROGRAM, "--untrusted", "--no-asv", "--json", out, "--progress", "plain"] + args,
                       capture_output=True, text=True, timeout=120, env=env, cwd=work)
    report = None
    if os.path.exists(out):
        with open(out) as f:
            report = json.load(f)
    return r, report


def outcomes(report):
    return {p["name"]: p.get("reason", "") for p in report["points"]} if report else {}


def fenced(work):
    r, report = run(work, ["--sandbox", "require"])
    check(r.returncode == 0, f"fenced: pitot run exits 0 ({r.returncode}: {r.stderr})")
    check("pitot run: sandbox: bwrap (" in r.stderr, f"fenced: the run says it is fenced ({r.stderr})")
    check(report is not None and report.get("sandbox", "").startswith("bwrap"), "fenced: the report says bwrap")
    seen = outcomes(report)
    outside = os.path.join(work, "outside", "escaped")
    check(seen.get("escape[try=write_outside]", "").startswith(f"refused: write {outside} (Read-only file system)"),
          f"fenced: a write outside the scratch folder is refused: {seen.get('escape[try=write_outside]')!r}")
    check(not os.path.exists(outside), "fenced: nothing was written outside")
    scratch = seen.get("escape[try=write_scratch]", "")
    tmp = os.path.join(work, "tmp")
    check(scratch.startswith(f"done: write {tmp}/pitot-scratch-"), f"fenced: its scratch folder is writable: {scratch!r}")
    check(os.listdir(tmp) == [], f"fenced: the scratch folder is removed after the run: {os.listdir(tmp)}")
    shm = seen.get("escape[try=write_shm]", "")
    check(shm.startswith("done: "), f"fenced: /dev/shm of its own is writable: {shm!r}")
    check(not os.path.exists(f"/dev/shm/pitot-fence-{os.getpid()}"), "fenced: the host's /dev/shm is untouched")
    network = seen.get("escape[try=network]", "")
    check(network.startswith("refused: connect 198.51.100.1:9 (Network is unreachable)"),
          f"fenced: no route out of the loopback: {network!r}")


def unfenced(work):
    r, report = run(work, ["--sandbox", "off"])
    check(r.returncode == 0, f"off: pitot run exits 0 ({r.returncode}: {r.stderr})")
    check("pitot run: sandbox: off (--sandbox off)" in r.stderr, f"off: the run says it is not fenced ({r.stderr})")
    check(report is not None and report.get("sandbox") == "off (--sandbox off)", "off: the report says off")
    seen = outcomes(report)
    check(seen.get("escape[try=write_outside]", "").startswith("done: "),
          f"off: without the fence the write outside gets through: {seen.get('escape[try=write_outside]')!r}")
    clean(work)


def unavailable(work, path, words):
    """Where this machine cannot fence: require refuses with the reason, auto runs and says so."""
    r, report = run(work, ["--sandbox", "require"], path=path)
    check(r.returncode == 2, f"require, {words}: exit 2 ({r.returncode}: {r.stderr})")
    check(r.stderr.startswith("pitot run: --sandbox require: no sandbox on this machine: ") and words in r.stderr,
          f"require, {words}: the reason is said ({r.stderr!r})")
    check(report is None, f"require, {words}: nothing ran, no report")
    r, report = run(work, [], path=path)  # auto, the default under --untrusted
    check(r.returncode == 0, f"auto, {words}: the run goes on ({r.returncode}: {r.stderr})")
    check("pitot run: sandbox: none (" in r.stderr and words in r.stderr, f"auto, {words}: one line says so ({r.stderr})")
    said = (report or {}).get("sandbox", "")
    check(said.startswith("none (") and words in said, f"auto, {words}: the report says so ({said!r})")
    check(len(outcomes(report)) == 4, f"auto, {words}: the points ran")


def fake_bwrap(work):
    """A folder holding a bwrap that fails as one does in a container without user namespaces."""
    folder = os.path.join(work, "fake-bin")
    os.makedirs(folder)
    script = os.path.join(folder, "bwrap")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\necho \"{CONTAINER_ERROR}\" >&2\nexit 1\n")
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
    return folder


def main():
    work = tempfile.mkdtemp(prefix="pitot-sandbox-test-")
    for sub in ("tmp", "outside", "cache"):
        os.makedirs(os.path.join(work, sub))
    can_fence = shutil.which("bwrap") and subprocess.run(
        ["bwrap", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "--", "true"],
        capture_output=True).returncode == 0
    unavailable(work, fake_bwrap(work) + os.pathsep + os.environ.get("PATH", ""), "No permissions to creating new namespace")
    unavailable(work, os.path.join(work, "empty-path"), "bwrap is not installed")
    if can_fence:
        fenced(work)
    unfenced(work)
    if failures:
        print(f"{len(failures)} check(s) failed; the run's files are kept in {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    if not can_fence:
        print("skipped the fenced cases: bwrap cannot run on this machine")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
