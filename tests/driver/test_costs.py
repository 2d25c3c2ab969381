#!/usr/bin/env python3
"""What a run costs, said before it is spent (src/driver/run/costs.hpp, src/driver/ab/plan.hpp).

usage: test_costs.py CASE PITOT PROGRAMS_DIR
CASE: estimate | budget | corrupt | nothing | lean | per_clock | interrupted | confirm | one_sample | warm
Each case has its own cost file (XDG_CACHE_HOME in a temporary folder). The points are the
trivial ones of drv_ok, each made to cost a known time: --min-time and --max-time 0.2 s of
sampling, so a process's wall is about 5 x 0.2 s whatever the machine's load.
"""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PITOT, PROGRAMS = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
FIXED = ["--warmup", "0", "--min-samples", "2", "--min-time", "0.2", "--max-time", "0.2"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def workdir():
    d = tempfile.mkdtemp(prefix="pitot-costs-test-")
    atexit.register(lambda: failures or shutil.rmtree(d, ignore_errors=True))  # kept when a check failed
    return d


def env_for(d):
    return dict(os.environ, XDG_CACHE_HOME=os.path.join(d, "cache"))


def cost_file(d):
    return os.path.join(d, "cache", "pitot", "costs.json")


def pitot(args, d, cwd=None):
    t0 = time.monotonic()
    r = subprocess.run([PITOT] + args, cwd=cwd or d, env=env_for(d), capture_output=True, text=True)
    r.wall = time.monotonic() - t0
    return r


def prog(name):
    return os.path.join(PROGRAMS, "drv_" + name)


def estimated_seconds(text, label="about"):
    m = re.search(label + r" ([\d.]+) (s|min|h)\b", text)
    check(m is not None, f"an estimate in: {text}")
    return float(m.group(1)) * {"s": 1, "min": 60, "h": 3600}[m.group(2)] if m else float("nan")


def case_estimate():
    """Recorded once, estimated, run again: the estimate within 25% of the second run's wall."""
    d = workdir()
    run = ["run", prog("ok"), "--no-asv", "--processes", "3", "--progress", "none"] + FIXED
    r = pitot(run + ["--estimate"], d)
    check(r.returncode == 0, f"--estimate without history exits 0 ({r.stderr})")
    check("a floor from the knobs" in r.stdout and "not history" in r.stdout, f"says it is a floor: {r.stdout}")
    check("5 points, 3 processes" in r.stdout, f"counts points and processes: {r.stdout}")
    r = pitot(run, d)
    check(r.returncode == 0, f"first run exits 0 ({r.stderr})")
    check(os.path.exists(cost_file(d)), "the first run writes the cost file")
    r = pitot(run + ["--estimate"], d)
    check("from the last run of the same programs" in r.stdout, f"the estimate comes from history: {r.stdout}")
    estimate = estimated_seconds(r.stdout)
    second = pitot(run, d)
    check(second.returncode == 0, f"second run exits 0 ({second.stderr})")
    print(f"estimate {estimate:.2f} s, second run {second.wall:.2f} s", flush=True)
    check(abs(estimate - second.wall) <= 0.25 * second.wall,
          f"estimate {estimate:.2f} s within 25% of the wall {second.wall:.2f} s")
    # Other knobs: other costs; the history of these does not stand for them.
    r = pitot(["run", prog("ok"), "--no-asv", "--estimate", "--max-time", "0.3"], d)
    check("not history" in r.stdout, f"other knobs fall back to the floor: {r.stdout}")


def case_warm():
    """A first process that pays once what later ones do not (drv_marked beside "cold" sleeps 3 s at
    its first point, as a fresh machine compiles cuDNN's plans): the estimate is the warm cost."""
    d = workdir()
    os.makedirs(os.path.join(d, "bin"))
    shutil.copy(prog("marked"), os.path.join(d, "bin"))
    open(os.path.join(d, "bin", "cold"), "w").close()
    run = ["run", os.path.join(d, "bin", "drv_marked"), "--no-asv", "--processes", "3", "--progress", "none"] + FIXED
    first = pitot(run, d)
    check(first.returncode == 0 and not os.path.exists(os.path.join(d, "bin", "cold")),
          f"the first run exits 0, its first process the cold one ({first.stderr})")
    estimate = estimated_seconds(pitot(run + ["--estimate"], d).stdout)
    second = pitot(run, d)
    print(f"first run {first.wall:.2f} s, estimate {estimate:.2f} s, second run {second.wall:.2f} s", flush=True)
    check(second.returncode == 0 and abs(estimate - second.wall) <= 0.25 * second.wall,
          f"estimate {estimate:.2f} s within 25% of the warm run's wall {second.wall:.2f} s "
          f"(the first: {first.wall:.2f})")


def ab(d, budget, first, extra=()):
    args = ["ab", prog("ok"), prog("ok"), "--threshold", "0", "--processes", str(first), "--max-processes", "20",
            "--budget", str(budget), "--progress", "plain"] + FIXED + list(extra)
    r = pitot(args, d)
    check(r.returncode in (0, 1), f"pitot ab exits 0 or 1 ({r.returncode}: {r.stderr})")
    m = re.search(r"pitot ab: (\d+) process(?:es)? a side", r.stderr)
    check(m is not None, f"pitot ab says its processes: {r.stderr}")
    done = int(m.group(1)) if m else 0
    # One round: a process of each side, as this run measured it.
    round_seconds = r.wall / max(1, done)
    print(f"budget {budget} s: {done} processes a side in {r.wall:.2f} s ({round_seconds:.2f} s a round)", flush=True)
    check(r.wall <= budget + round_seconds,
          f"--budget {budget}: {r.wall:.2f} s is within the budget and one round ({round_seconds:.2f} s)")
    return r, done


def case_budget():
    """--budget is never passed by more than one round, from the first look on."""
    d = workdir()
    # History first (the same knobs as ab's below): a process costs about 1 s, a round about 2 s.
    r = pitot(["run", prog("ok"), "--no-asv"] + FIXED, d)
    check(r.returncode == 0, f"recording run exits 0 ({r.stderr})")
    # The first look (8 a side, about 16 s) does not fit in 6 s: it gets the 2 a side that do.
    r, done = ab(d, 6, 8)
    check("would pass --budget 6" in r.stderr, f"says the first look does not fit: {r.stderr}")
    check("gets 2 a side" in r.stderr and done >= 2, f"the first look cut to 2 processes a side: {r.stderr}")
    # Trivial points can be told apart even at 2+2 processes (threshold 0): the list is checked
    # when the report has points left inconclusive, as it almost always has.
    m = re.search(r"(\d+) inconclusive", r.stdout)
    if m and int(m.group(1)) > 0:
        check(f"{m.group(1)} point{'s' if int(m.group(1)) > 1 else ''} left undecided when the time budget "
              "(--budget 6) ran out" in r.stderr, f"lists the points left undecided: {r.stderr}")
        check(re.search(r"drv_ok\.work\[i=\d\]: beyond about [\d.]+% \(interval", r.stderr) is not None,
              f"each with the smallest change it could have called: {r.stderr}")
    # A stop at a later look (2 a side take about 4 s, 4 about 8 s): where depends on the rounds'
    # measured cost, but never past the budget by more than a round (checked in ab()).
    r, done = ab(d, 11, 2)
    check(2 <= done < 20, f"stops at a look before --max-processes, got {done} a side")


def case_corrupt():
    """A corrupt cost file: a note, the run goes on, and the file is replaced by a good one."""
    d = workdir()
    os.makedirs(os.path.dirname(cost_file(d)))
    with open(cost_file(d), "w") as f:
        f.write('{"format": 1, "programs": [ {{{ not json')
    r = pitot(["run", prog("ok"), "--no-asv", "--progress", "plain"] + FIXED, d)
    check(r.returncode == 0, f"a corrupt cost file is not fatal ({r.returncode}: {r.stderr})")
    check("is not one pitot can read" in r.stderr and "ignored" in r.stderr, f"says it is ignored: {r.stderr}")
    with open(cost_file(d)) as f:
        doc = json.load(f)
    check([p["program"] for p in doc["programs"]] == ["drv_ok"], f"replaced by this run's costs: {doc}")
    check(len(doc["programs"][0]["points"]) == 5, f"every point's cost: {doc}")
    r = pitot(["run", prog("ok"), "--no-asv", "--estimate"] + FIXED, d)
    check("from the last run" in r.stdout and "not one pitot can read" not in r.stderr,
          f"the next estimate reads it: {r.stdout} {r.stderr}")


def case_nothing():
    """--estimate runs nothing: no asv row, no cost file change, for pitot run and pitot ab."""
    d = workdir()
    subprocess.run(["git", "init", "-q", d], check=True)
    subprocess.run(["git", "-C", d, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
                    "--allow-empty", "-m", "one"], check=True)
    r = pitot(["init"], d)
    check(r.returncode == 0, f"pitot init exits 0 ({r.stderr})")
    r = pitot(["run", prog("ok"), "--no-asv"] + FIXED, d)  # a cost file to leave alone
    with open(cost_file(d), "rb") as f:
        before = f.read()
    stamp = os.stat(cost_file(d)).st_mtime_ns
    r = pitot(["run", prog("ok"), "--estimate"] + FIXED, d)
    check(r.returncode == 0, f"pitot run --estimate exits 0 ({r.stderr})")
    sha = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    r = pitot(["ab", prog("ok"), prog("ok"), "--base-commit", sha, "--head-commit", sha, "--estimate"] + FIXED, d)
    check(r.returncode == 0, f"pitot ab --estimate exits 0 ({r.stderr})")
    check("first look (2 processes a side)" in r.stdout and "at most (12 a side" in r.stdout,
          f"ab's estimate has the first look and the worst case: {r.stdout}")
    results = os.path.join(d, "results")
    rows = [f for _, _, files in os.walk(results) for f in files if f.endswith(".json")] if os.path.isdir(results) else []
    check(rows == [], f"no asv rows written: {rows}")
    with open(cost_file(d), "rb") as f:
        check(f.read() == before and os.stat(cost_file(d)).st_mtime_ns == stamp, "the cost file is unchanged")


def case_lean():
    """pitot ab's children sample lean unless told otherwise; the user's limits win."""
    d = workdir()
    r = pitot(["ab", "--help"], d)
    check("--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10" in r.stdout, f"--help names the lean limits: {r.stdout}")
    for extra, bound in [([], "0.035"), (["--max-time", "0.3"], "0.305"), (["--min-time", "0.5"], "0.505"),
                         (["--warmup", "0"], "0.03 s")]:
        r = pitot(["ab", prog("ok"), prog("ok"), "--estimate"] + extra, d)
        check(r.returncode == 0, f"ab --estimate {extra} exits 0 ({r.stderr})")
        check(f"--max-time = {bound}" in r.stdout, f"ab {extra}: a point bounded at {bound}: {r.stdout}")


def case_per_clock():
    """pitot ab compares GPU points at the nominal clock unless --by-time, and its JSON report says
    which; --per-clock, the default now, is still accepted, but not beside --by-time."""
    d = workdir()
    quick = ["--processes", "2", "--max-processes", "2", "--warmup", "0", "--min-samples", "2", "--min-time", "0",
             "--max-time", "0.01", "--json"]
    for extra, expected in [([], True), (["--per-clock"], True), (["--by-time"], False)]:
        r = pitot(["ab", prog("ok"), prog("ok")] + quick + extra, d)
        check(r.returncode in (0, 1), f"ab {extra} runs ({r.returncode}: {r.stderr[-300:]})")
        report = json.loads(r.stdout or "{}")
        check(report.get("per_clock") is expected, f"ab {extra}: the report's per_clock is {expected}: "
              f"{report.get('per_clock')}")
    r = pitot(["ab", prog("ok"), prog("ok"), "--per-clock", "--by-time"] + quick, d)
    check(r.returncode == 2 and "--by-time" in r.stderr, f"--per-clock with --by-time: exit 2 naming them "
          f"({r.returncode}: {r.stderr[-300:]})")


def case_interrupted():
    """ab stopped by SIGINT after its first look: the undecided points say it was interrupted, not
    that a budget ran out."""
    d = workdir()
    # Threshold 0: nothing is unchanged, as no two processes of drv_jitter read alike (drv_ok's
    # trivial body reads the same on every process where the clock is coarse, and is then called
    # unchanged at ±0%); confidence 0.999999: nothing slower or faster at 2+2 processes.
    args = ["ab", prog("jitter"), prog("jitter"), "--threshold", "0", "--confidence", "0.999999", "--processes", "2",
            "--max-processes", "20", "--progress", "plain", "--json"] + FIXED
    p = subprocess.Popen([PITOT] + args, cwd=d, env=env_for(d), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    # The first look is 2 processes a side of drv_jitter's 5 points: 20 progress lines; the 21st is
    # the next round's, so the report of the first look exists when SIGINT comes.
    progress, lines = 0, []
    for line in p.stderr:
        lines.append(line)
        progress += line.startswith("[")
        if progress > 20:
            break
    check(progress > 20, f"ab still running after its first look: {''.join(lines[-5:])}")
    p.send_signal(signal.SIGINT)
    out, rest = p.communicate(timeout=60)
    said = "".join(lines[-3:]) + rest
    check(p.returncode == 1, f"an interrupted ab exits 1, as an interrupted run does ({p.returncode}): {said}")
    notes = [row.get("note", "") for row in json.loads(out or "{}").get("points", [])
             if row.get("verdict") == "inconclusive"]
    check(notes, f"points left undecided at the interruption: {out} {said}")
    check(all("undecided when the run was interrupted" in n for n in notes),
          f"every undecided point says the run was interrupted: {notes}")
    check(not any("ran out" in n for n in notes), f"no budget ran out: {notes}")


def marked_sides():
    """A work folder with base/ and head/ each holding drv_marked, head's beside a file "slower"
    (twice the work): a head build made slower without a second build."""
    d = workdir()
    for side in ("base", "head"):
        os.makedirs(os.path.join(d, side))
        shutil.copy(prog("marked"), os.path.join(d, side))
    open(os.path.join(d, "head", "slower"), "w").close()
    return d


def case_confirm():
    """A point called slower is run again for the next look and called slower there too, on its new
    processes: not judged again on the same ones (ab/schedule.hpp, Kept); head twice as slow."""
    d = marked_sides()
    # Looks at 2, 4 and 6: a point first called at a look runs again and is confirmed at the next
    # (on a loaded machine a point may first be called at 4, not 2; never held at its first call).
    r = pitot(["ab", "base", "head", "--processes", "2", "--max-processes", "6", "--threshold", "10%", "--warmup", "0",
               "--min-samples", "5", "--min-time", "0.02", "--max-time", "0.05", "--json"], d)
    check(r.returncode == 1, f"ab of a head twice as slow exits 1 ({r.returncode}: {r.stderr[-300:]})")
    points = json.loads(r.stdout or "{}").get("points", [])
    check(len(points) == 5, f"drv_marked's 5 points compared: {r.stdout[-500:]}")
    confirmed = 0
    for p in points:
        n, m, note = p["base"].get("processes"), p["head"].get("processes"), p.get("note") or ""
        check(p.get("verdict") == "slower" and n == m and n in (4, 6),
              f"{p.get('name')}: slower, on 4 or 6 processes a side: {p.get('verdict')}, {n} + {m}")
        check(n != 4 or "not yet confirmed" not in note, f"{p.get('name')}: confirmed at 4: {note}")
        confirmed += "not yet confirmed" not in note
    check(confirmed >= 1, f"some point confirmed on new processes: {[p.get('note') for p in points]}")
    # One look only (4 a side, the whole error rate): the calls stand, and say they were not confirmed.
    r = pitot(["ab", "base", "head", "--processes", "4", "--max-processes", "4", "--threshold", "10%", "--warmup", "0",
               "--min-samples", "5", "--min-time", "0.02", "--max-time", "0.05", "--json"], d)
    slower = [p for p in json.loads(r.stdout or "{}").get("points", []) if p.get("verdict") == "slower"]
    check(r.returncode == 1 and slower, f"one look: slower points, exit 1 ({r.returncode}: {r.stderr[-300:]})")
    for p in slower:
        check("called at the last look (4+4 processes), not yet confirmed on new ones: the process budget"
              in (p.get("note") or ""), f"{p.get('name')}: says it was not confirmed: {p.get('note')}")


def case_one_sample():
    """A point that gives one sample a process (its one sample outlasting --max-time) is judged
    from its processes, not held back by compare's floor of 5 samples a side: 4 processes a side of
    one sample each, a head twice as slow."""
    d = marked_sides()
    r = pitot(["ab", "base", "head", "--processes", "4", "--max-processes", "4", "--threshold", "10%", "--warmup", "0",
               "--min-samples", "2", "--max-samples", "1", "--min-time", "0", "--max-time", "0.05", "--json"], d)
    points = json.loads(r.stdout or "{}").get("points", [])
    check(r.returncode == 1 and len(points) == 5, f"ab of a head twice as slow, one sample a process: exit 1 over 5 "
          f"points ({r.returncode}: {r.stderr[-300:]})")
    notes = [p.get("note") or "" for p in points]
    check(not any("too few samples" in n for n in notes), f"no point held back for want of samples: {notes}")
    verdicts = [p.get("verdict") for p in points]
    # One sample a process on a shared CPU can catch a preemption and widen one point's interval:
    # most, not all, must be called.
    check(verdicts.count("slower") >= 3 and not {"unchanged", "faster"} & set(verdicts),
          f"most points slower, none unchanged or faster: {verdicts}")


if __name__ == "__main__":
    {"estimate": case_estimate, "budget": case_budget, "corrupt": case_corrupt, "nothing": case_nothing,
     "lean": case_lean, "per_clock": case_per_clock, "interrupted": case_interrupted, "confirm": case_confirm,
     "one_sample": case_one_sample, "warm": case_warm}[sys.argv[1]]()
    if failures:
        print(f"{len(failures)} check(s) failed", flush=True)
        sys.exit(1)
    print("ok", flush=True)
