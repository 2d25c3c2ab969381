#!/usr/bin/env python3
"""End-to-end tests of `pitot run` with programs that misbehave (see misbehave.cpp).

usage: test_driver.py CASE PITOT PROGRAMS_DIR [ASV_CHECK]
CASE: misbehaving | interrupt | concurrent | tools | first_contact | faults | envs | programs | asv
Each case works in a fresh temporary git repository with `pitot init`'s asv.conf.json.
"""
import atexit
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PITOT, PROGRAMS = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
FAST = ["--warmup", "0", "--min-samples", "3", "--min-time", "0", "--max-time", "0.02", "--progress", "plain"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def prog(name):
    return os.path.join(PROGRAMS, "drv_" + name)


def make_repo():
    d = tempfile.mkdtemp(prefix="pitot-driver-test-")
    atexit.register(lambda: failures or shutil.rmtree(d, ignore_errors=True))  # kept when a check failed
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    subprocess.run(["git", "init", "-q", "-b", "main", d], check=True, env=env)
    with open(os.path.join(d, "README"), "w") as f:
        f.write("x\n")
    subprocess.run(["git", "-C", d, "add", "README"], check=True, env=env)
    subprocess.run(["git", "-C", d, "commit", "-q", "-m", "one"], check=True, env=env)
    r = subprocess.run([PITOT, "init"], cwd=d, capture_output=True, text=True)
    check(r.returncode == 0, f"pitot init exits 0 ({r.stderr})")
    return d


def pitot(args, cwd, **kw):
    return subprocess.run([PITOT] + args, cwd=cwd, capture_output=True, text=True, **kw)


def load_results(repo, results="results"):
    """(benchmarks.json, {machine: [results docs]}) with asv's Python JSON dialect."""
    res = os.path.join(repo, results)
    with open(os.path.join(res, "benchmarks.json")) as f:
        benchmarks = json.load(f)
    out = {}
    for m in os.listdir(res):
        md = os.path.join(res, m)
        if not os.path.isdir(md):
            continue
        docs = []
        for name in sorted(os.listdir(md)):
            if name.endswith(".json") and name != "machine.json":
                with open(os.path.join(md, name)) as f:
                    docs.append(json.load(f))  # python's json reads NaN/Infinity
        out[m] = docs
    return benchmarks, out


def row_results(repo, program, machine="testbox", results="results"):
    _, machines = load_results(repo, results)
    docs = machines.get(machine, [])
    if not docs:
        return None
    row = docs[0]["results"].get(f"{program}.work")
    if row is None:
        return None
    cols = dict(zip(docs[0]["result_columns"], row))
    return cols["result"] if cols["result"] is not None else [None] * 5


def misbehaving(repo, expect_reason):
    """Each program fails exactly point i=2 (id 2) and records the others."""
    for name, reason in expect_reason.items():
        out = os.path.join(repo, f"{name}.json")
        r = pitot(["run", prog(name), "--machine", "testbox", "--json", out] + FAST, repo, timeout=240)
        print(f"--- {name}: exit {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}", flush=True)
        check(r.returncode == 1, f"{name}: pitot run exits 1 (got {r.returncode})")
        values = row_results(repo, f"drv_{name}")
        check(values is not None, f"{name}: its row is in the results file")
        if values is None:
            continue
        for i, v in enumerate(values):
            if i == 2:
                check(v is None, f"{name}: point 2 is null (failed) in asv, got {v}")
            else:
                check(isinstance(v, float) and math.isfinite(v) and v > 0, f"{name}: point {i} measured, got {v}")
        with open(out) as f:
            points = {p["id"]: p for p in json.load(f)["points"]}
        check(points.get(2, {}).get("status") == "failed", f"{name}: point 2 failed in --json")
        check(reason in points.get(2, {}).get("reason", ""), f"{name}: reason mentions '{reason}': {points.get(2, {}).get('reason')!r}")
        check(all(points.get(i, {}).get("status") == "ok" for i in (0, 1, 3, 4)), f"{name}: other points ok in --json")


def case_misbehaving():
    repo = make_repo()
    misbehaving(repo, {
        "segv": "SIGSEGV",
        "abort": "SIGABRT",
        "hang": "timed out",
        "garbage": "not a pitot result line",
        "early_exit": "without finishing its report",
    })
    # Megabytes on stdout/stderr: every point ok, exit 0.
    r = pitot(["run", prog("spam"), "--machine", "testbox"] + FAST, repo, timeout=120)
    check(r.returncode == 0, f"spam: exit 0 (got {r.returncode}: {r.stderr[-500:]})")
    values = row_results(repo, "drv_spam")
    check(values is not None and all(isinstance(v, float) for v in values), f"spam: all points measured: {values}")
    # Crashing at start: every point failed, after exactly one restart, exit 1.
    out = os.path.join(repo, "startup.json")
    r = pitot(["run", prog("startup_crash"), "--machine", "testbox", "--json", out] + FAST, repo, timeout=60)
    check(r.returncode == 1, f"startup_crash: exit 1 (got {r.returncode})")
    with open(out) as f:
        pts = json.load(f)["points"]
    check(len(pts) == 5 and all(p["status"] == "failed" for p in pts), "startup_crash: all 5 points failed")
    check(all("before reporting any point" in p["reason"] for p in pts[1:]), f"startup_crash: reason says so: {pts[-1]['reason']!r}")
    # Usage errors: exit 2, nothing written.
    r = pitot(["run", "/nonexistent/prog", "--machine", "testbox"], repo)
    check(r.returncode == 2 and "neither" in r.stderr, f"missing program: exit 2 with a message ({r.stderr})")
    # A corrupt results file is refused and left as it is.
    bench = os.path.join(repo, "results", "benchmarks.json")
    with open(bench, "w") as f:
        f.write("{ not json")
    r = pitot(["run", prog("ok"), "--machine", "testbox"] + FAST, repo, timeout=60)
    check(r.returncode == 2, f"corrupt benchmarks.json: exit 2 (got {r.returncode})")
    check("benchmarks.json" in r.stderr, f"corrupt benchmarks.json: named in the message: {r.stderr[-300:]}")
    with open(bench) as f:
        check(f.read() == "{ not json", "corrupt benchmarks.json: left untouched")
    return repo


def case_interrupt():
    repo = make_repo()
    slow = FAST[:6] + ["--max-time", "0.05", "--progress", "plain"]
    # A private copy of the program (same file name, so the same asv name), so the orphan check
    # below cannot see the same program run by another test in parallel (ctest -j).
    os.makedirs(os.path.join(repo, "private"))
    program = os.path.join(repo, "private", os.path.basename(prog("trivial")))
    shutil.copy2(prog("trivial"), program)
    for sig in (signal.SIGINT, signal.SIGKILL):
        results = f"results-{sig.name}"
        p = subprocess.Popen([PITOT, "run", program, "--machine", "testbox", "--interleave", "1",
                              "--asv-dir", results] + slow,
                             cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # Wait until some points are in, then interrupt mid-run.
        seen = 0
        start = time.time()
        while seen < 20 and time.time() - start < 60:
            line = p.stdout.readline()
            if not line:
                break
            seen += line.startswith("[")
        os.kill(p.pid, sig)
        rest = p.communicate(timeout=60)[0]
        print(f"--- {sig.name}: exit {p.returncode}\n{rest[-600:]}", flush=True)
        if sig == signal.SIGINT:
            check(p.returncode == 1, f"SIGINT: exit 1 (got {p.returncode})")
            check("interrupted" in rest, "SIGINT: the summary says interrupted")
        values = row_results(repo, "drv_trivial", results=results)
        check(values is not None, f"{sig.name}: results file readable")
        if values:
            done = sum(isinstance(v, float) and math.isfinite(v) for v in values)  # not run: NaN
            check(done >= 15, f"{sig.name}: finished points kept ({done})")
        # No child left running.
        time.sleep(0.5)
        ps = subprocess.run(["pgrep", "-f", program], capture_output=True, text=True).stdout.split()
        check(not ps, f"{sig.name}: no orphan benchmark process ({ps})")
        leftovers = [n for n in os.listdir(os.path.join(repo, results, "testbox")) if ".tmp" in n]
        check(not leftovers, f"{sig.name}: no temporary files left ({leftovers})")
    return repo


def case_concurrent():
    repo = make_repo()
    procs = []
    for name in ("ok", "spam"):
        procs.append(subprocess.Popen([PITOT, "run", prog(name), "--machine", "testbox", "--interleave", "1"] + FAST,
                                      cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    procs.append(subprocess.Popen([PITOT, "run", prog("trivial"), "--machine", "testbox", "--filter", r"i=[0-9]?[0-9]\]"]
                                  + FAST, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    codes = [p.wait(timeout=240) for p in procs]
    check(codes == [0, 0, 0], f"three drivers at once: all exit 0 ({codes})")
    for name, n in (("ok", 5), ("spam", 5)):
        values = row_results(repo, f"drv_{name}")
        check(values is not None and all(isinstance(v, float) for v in values), f"concurrent {name}: all points kept: {values}")
    values = row_results(repo, "drv_trivial")
    check(values is not None and sum(isinstance(v, float) and math.isfinite(v) for v in values) == 100,
          "concurrent trivial: 100 points kept")
    return repo


def case_tools():
    repo = make_repo()
    r = pitot(["list", prog("ok"), prog("trivial")], repo)
    check(r.returncode == 0 and "drv_ok.work" in r.stdout and "1005 points" in r.stdout, f"list table: {r.stdout[-300:]}")
    r = pitot(["list", "--json", prog("ok")], repo)
    check(r.returncode == 0 and json.loads(r.stdout)["programs"][0]["program"] == "drv_ok", "list --json")
    r = pitot(["init"], repo)
    check(r.returncode == 0 and "already set up" in r.stdout, f"init again, same settings: exit 0, says so ({r.stderr})")
    r = pitot(["init", "--branch", "other"], repo)
    check(r.returncode == 2 and 'branches ["main"], init would write ["other"]' in r.stderr,
          f"init refuses to overwrite other settings, naming them: {r.stderr}")
    with open(os.path.join(repo, "asv.conf.json")) as f:
        conf = json.load(f)
    check(conf["version"] == 1 and conf["branches"] == ["main"] and conf["results_dir"] == "results", f"init config: {conf}")
    r = pitot(["machine", prog("ok"), "--machine", "testbox", "--record"], repo)
    check(r.returncode == 0 and os.path.exists(os.path.join(repo, "results", "testbox", "machine.json")), f"machine --record: {r.stderr}")
    # Shards 1/2 and 2/2 in separate folders, merged: every point once.
    for k in (1, 2):
        r = pitot(["run", prog("ok"), prog("trivial"), "--filter", r"i=[0-9]\]", "--machine", "testbox", "--shard", f"{k}/2",
                   "--asv-dir", f"shard{k}"] + FAST, repo, timeout=120)
        check(r.returncode == 0, f"shard {k}/2 exits 0 ({r.stderr[-300:]})")
    r = pitot(["merge", "results", "shard1", "shard2"], repo)
    check(r.returncode == 0, f"merge exits 0 ({r.stderr})")
    for name, n in (("ok", 5), ("trivial", 10)):
        values = row_results(repo, f"drv_{name}")
        got = [isinstance(v, float) for v in (values or [])][:n]
        check(len(got) == n and all(got), f"merged {name}: points 0..{n-1} present: {values and values[:n]}")
    r = pitot(["merge", "results", "/nonexistent"], repo)
    check(r.returncode == 2, "merge of a missing folder: exit 2")
    # A results file of asv's old version: merge and compare refuse it with the writer's message
    # (asv/database.hpp), and leave it as it is.
    old_dir = os.path.join(repo, "shard-old", "testbox")
    shutil.copytree(os.path.join(repo, "shard1"), os.path.join(repo, "shard-old"))
    old_file = next(os.path.join(old_dir, n) for n in sorted(os.listdir(old_dir)) if n != "machine.json")
    with open(old_file) as f:
        text = re.sub(r'^"version": 2(,?)$', r'"version": 1\1', f.read(), flags=re.M)
    with open(old_file, "w") as f:
        f.write(text)
    wanted = "has version 1, but pitot reads and writes version 2 (asv 0.6); convert it with `asv update`"
    r = pitot(["merge", "results", "shard-old"], repo)
    check(r.returncode == 2 and wanted in r.stderr and "nothing was merged" in r.stderr,
          f"merge of a version 1 results file: exit 2, the one message ({r.returncode}: {r.stderr[-300:]})")
    r = pitot(["compare", old_file, old_file], repo)
    check(r.returncode == 2 and wanted in r.stderr,
          f"compare of a version 1 results file: exit 2, the one message ({r.returncode}: {r.stderr[-300:]})")
    with open(old_file) as f:
        check(f.read() == text, "the version 1 results file is left as it is")
    processes(repo)
    return repo


def case_first_contact():
    """What a new user meets first: init into a new folder, its hint, and the messages for typos."""
    repo = make_repo()
    os.remove(os.path.join(repo, "asv.conf.json"))
    r = pitot(["init", "--dir", "asv-results"], repo)
    check(r.returncode == 0 and os.path.isfile(os.path.join(repo, "asv-results", "asv.conf.json")),
          f"init --dir creates the missing folder ({r.returncode}: {r.stderr})")
    check("pitot run --build-dir BUILD --config asv-results/asv.conf.json (writes asv-results/results)" in r.stdout,
          f"init's hint names the config and where results go: {r.stdout}")
    # The hint's command writes where asv reads: results_dir of the config.
    r = pitot(["run", prog("ok"), "--config", "asv-results/asv.conf.json", "--machine", "testbox"] + FAST, repo, timeout=120)
    check(r.returncode == 0 and os.path.isfile(os.path.join(repo, "asv-results", "results", "benchmarks.json")),
          f"run --config writes asv-results/results ({r.stderr[-300:]})")
    # Without --config, pitot run finds asv-results/asv.conf.json; --asv-dir asv-results means its results too.
    shutil.rmtree(os.path.join(repo, "asv-results", "results"))
    for extra in ([], ["--asv-dir", "asv-results"]):
        r = pitot(["run", prog("ok"), "--machine", "testbox"] + extra + FAST, repo, timeout=120)
        check(r.returncode == 0 and os.path.isfile(os.path.join(repo, "asv-results", "results", "benchmarks.json"))
              and not os.path.exists(os.path.join(repo, "asv-results", "benchmarks.json")),
              f"run {extra} writes asv-results/results, not asv-results ({r.stderr[-300:]})")
    r = pitot(["init", "--dir", "a/b"], repo)
    check(r.returncode == 0 and os.path.isfile(os.path.join(repo, "a", "b", "asv.conf.json")), "init --dir a/b: nested folders")
    # Version, unknown command, typos, bad knob values: one plain message, exit 2 (0 for --version).
    r = pitot(["--version"], repo)
    check(r.returncode == 0 and re.fullmatch(r"pitot \d+\.\d+\.\d+\n", r.stdout), f"--version: {r.stdout!r}")
    r = pitot(["frobnicate"], repo)
    check(r.returncode == 2 and "unknown command 'frobnicate'; commands: ab, compare, init, list" in r.stderr, f"unknown command: {r.stderr}")
    r = pitot(["rnu"], repo)
    check(r.returncode == 2 and "did you mean 'run'?" in r.stderr, f"mistyped command: {r.stderr}")
    r = pitot(["run", prog("ok"), "--max-tme", "1"], repo)
    check(r.returncode == 2 and "did you mean --max-time?" in r.stderr, f"mistyped flag: {r.stderr}")
    for value, words in (("-1", "give a number above 0"), ("nan", "not a finite number"), ("inf", "not a finite number")):
        r = pitot(["run", prog("ok"), "--max-time", value], repo)
        check(r.returncode == 2 and words in r.stderr and len(r.stderr) < 200, f"--max-time {value}: {r.stderr}")
    r = pitot(["list", prog("trivial"), "--filter", r"i=7\]"], repo)
    check(r.returncode == 0 and r.stdout.endswith("\n1 point in 1 program\n"), f"list: {r.stdout[-200:]}")
    # --timing and --clock are refused before any program starts (a missing program is not even
    # looked for), in the programs' own words.
    for args in (["--timing", "lukewarm"], ["--clock", "wall"], ["--timing", "hot", "--clock", "kernel"]):
        r = pitot(["run", "/nonexistent/drv_none"] + args, repo)
        p = subprocess.run([prog("ok"), "--quiet"] + args, capture_output=True, text=True, timeout=60)
        said = r.stderr.strip().removeprefix("pitot run: ").split(" (see ")[0]
        check(r.returncode == 2 and p.returncode == 2 and said and said in p.stderr and "drv_none" not in r.stderr,
              f"run {args}: the program's message, before any program: {r.stderr!r} vs {p.stderr!r}")
    # The knobs' bounds are the programs' own (one table, src/core/knobs.hpp): a value just past
    # one is refused by both, by pitot run before any program starts.
    for args in (["--graph-launches", "1000001"], ["--seed", "-1"], ["--seed", "1.5"], ["--energy", "601"]):
        r = pitot(["run", "/nonexistent/drv_none"] + args, repo)
        p = subprocess.run([prog("ok"), "--quiet"] + args, capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and p.returncode == 2 and args[0] in r.stderr and "drv_none" not in r.stderr,
              f"run {args}: refused by pitot run and by the program: {r.stderr!r} vs {p.stderr!r}")
    return repo


def case_faults():
    """Issue 13's driver-side faults: each check here failed before its fix."""
    import resource
    repo = make_repo()
    # exit(2) in a body charges only that point; bytes that are not UTF-8 on stderr and on the
    # result channel do not cost the --json report; a 300 MiB result line is refused early.
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    misbehaving(repo, {
        "exit2": "exited with code 2",
        "bad_bytes": "not a pitot result line",
        "big_line": "longer than",
    })
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    # The largest child counts (the program that writes the line holds it too); under
    # AddressSanitizer (.ci/run sets ASAN_OPTIONS) every process carries its shadow memory: 406 MiB
    # was seen there, 300-odd without.
    limit = 500 if "ASAN_OPTIONS" in os.environ else 400
    check(peak_mib < limit, f"a 300 MiB result line: the driver's memory stays under {limit} MiB (peak {peak_mib:.0f} "
                            f"MiB, before {before / 1024:.0f})")
    with open(os.path.join(repo, "bad_bytes.json"), "rb") as f:
        raw = f.read()
    check(b"\xef\xbf\xbd" in raw, "bad_bytes: the stray bytes are replaced by U+FFFD in --json")
    r = pitot(["run", prog("bad_bytes"), "--no-asv"] + FAST, repo, timeout=120)
    check(r.returncode == 1 and "failed" in r.stdout, f"bad_bytes: the summary is printed ({r.returncode}: {r.stderr[-300:]})")

    # Points never run (not selected by --filter) are NaN in asv, not null (failed).
    r = pitot(["run", prog("ok"), "--machine", "filterbox", "--filter", r"i=1\]"] + FAST, repo, timeout=60)
    check(r.returncode == 0, f"--filter run exits 0 ({r.stderr[-300:]})")
    values = row_results(repo, "drv_ok", machine="filterbox")
    check(values is not None and isinstance(values[1], float) and math.isfinite(values[1])
          and all(isinstance(v, float) and math.isnan(v) for i, v in enumerate(values) if i != 1),
          f"--filter: the points not run are NaN, not null: {values}")
    # ... and compare does not call them newly failed.
    full, part = os.path.join(repo, "full.json"), os.path.join(repo, "part.json")
    pitot(["run", prog("ok"), "--no-asv", "--json", full] + FAST, repo, timeout=60)
    _, machines = load_results(repo)
    part_file = [os.path.join(repo, "results", "filterbox", n) for n in os.listdir(os.path.join(repo, "results", "filterbox"))
                 if n != "machine.json" and n.endswith(".json")][0]
    r = pitot(["compare", full, part_file], repo, timeout=60)
    print("--- compare full vs filtered:", r.returncode, r.stdout[-800:], r.stderr[-300:])
    check("newly failed" not in r.stdout and r.returncode != 1 or "failed" not in r.stdout,
          f"compare: points not run are not newly failed ({r.returncode}): {r.stdout[-400:]}")

    # compare: deep nesting is refused cleanly (no crash), and so is an input without results.
    deep = os.path.join(repo, "deep.json")
    with open(deep, "w") as f:
        f.write("[" * 50000 + "]" * 50000)
    r = pitot(["compare", full, deep], repo, timeout=60)
    check(r.returncode == 2 and "deeper" in r.stderr, f"compare of 50,000 levels: exit 2 with a message ({r.returncode}: {r.stderr[-300:]})")
    for text in ("", "  \n", "[]", "[[[]]]", '{"points": []}', '{"programs": [{"points": []}]}'):
        empty = os.path.join(repo, "empty.json")
        with open(empty, "w") as f:
            f.write(text)
        r = pitot(["compare", full, empty], repo, timeout=60)
        check(r.returncode == 2 and "no results" in r.stderr, f"compare of {text!r}: exit 2, no results ({r.returncode}: {r.stderr[-300:]})")
    # run and merge refuse a deep database file too, with exit 2.
    os.makedirs(os.path.join(repo, "deepdb"))
    with open(os.path.join(repo, "deepdb", "benchmarks.json"), "w") as f:
        f.write("[" * 50000 + "]" * 50000)
    r = pitot(["run", prog("ok"), "--machine", "testbox", "--asv-dir", "deepdb"] + FAST, repo, timeout=60)
    check(r.returncode == 2, f"run into a deeply nested database: exit 2 ({r.returncode}: {r.stderr[-300:]})")

    # --axis takes one value: the program path after it stays a positional.
    out = os.path.join(repo, "axis.json")
    r = pitot(["run", "--axis", "i=1", prog("ok"), "--no-asv", "--json", out] + FAST, repo, timeout=60)
    check(r.returncode == 0, f"run --axis i=1 PROG: exit 0 ({r.returncode}: {r.stderr[-300:]})")
    if r.returncode == 0:
        with open(out) as f:
            check(len(json.load(f)["points"]) == 1, "run --axis i=1 PROG: one point")

    # Stale temporary files of dead writers are removed under the lock; a live writer's stay.
    dead = subprocess.Popen(["true"])
    dead.wait()
    mdir = os.path.join(repo, "results", "testbox")
    os.makedirs(mdir, exist_ok=True)
    stale = os.path.join(mdir, f".x.json.tmp-{dead.pid}-0")
    stale_top = os.path.join(repo, "results", f".benchmarks.json.tmp-{dead.pid}-3")
    live = os.path.join(mdir, f".x.json.tmp-{os.getpid()}-0")
    for path in (stale, stale_top, live):
        with open(path, "w") as f:
            f.write("{")
    r = pitot(["run", prog("ok"), "--machine", "testbox"] + FAST, repo, timeout=60)
    check(r.returncode == 0, f"run after a killed driver: exit 0 ({r.stderr[-300:]})")
    check(not os.path.exists(stale) and not os.path.exists(stale_top), "stale temporary files of a dead writer removed")
    check(os.path.exists(live), "a live writer's temporary file is left alone")

    # .timeout() per point: `stuck` (.timeout(3)) hangs in its setup beside `work` (60 s). With 2
    # points interleaved the old bound was 2 x 60 s; now at most 2 x 3 s (+ grace) per point.
    for extra, source in (([], ".timeout()"), (["--timeout", "3"], "--timeout 3")):
        out = os.path.join(repo, "setup_hang.json")
        t0 = time.time()
        r = pitot(["run", prog("setup_hang"), "--no-asv", "--json", out, "--interleave", "2"] + extra + FAST, repo,
                  timeout=200)
        took = time.time() - t0
        check(r.returncode == 1 and took < 40, f"setup hang {extra}: stopped in {took:.0f} s (< 40), exit {r.returncode}")
        with open(out) as f:
            points = {p["name"]: p for p in json.load(f)["points"]}
        stuck = points.get("stuck[j=0]", {})
        check(stuck.get("status") == "failed" and "3 s" in stuck.get("reason", "") and source in stuck.get("reason", ""),
              f"setup hang {extra}: the reason names the 3 s timeout and {source}: {stuck.get('reason')!r}")
        check(sum(p["status"] == "ok" for p in points.values()) == 4, f"setup hang {extra}: the 4 work points ok")
    return repo


def processes(repo):
    """--processes K: each program K times, samples pooled, per-process medians kept (JSON and asv)."""
    out = os.path.join(repo, "processes.json")
    r = pitot(["run", prog("ok"), "--machine", "procbox", "--processes", "3", "--json", out] + FAST, repo, timeout=240)
    check(r.returncode == 0, f"--processes 3 exits 0 ({r.stderr[-300:]})")
    with open(out) as f:
        points = json.load(f)["points"]
    check(len(points) == 5, f"--processes 3: one merged result per point, got {len(points)}")
    for p in points:
        check(len(p.get("process_medians", [])) == 3, f"{p['name']}: 3 process medians, got {p.get('process_medians')}")
        check(sorted(set(p.get("sample_process", []))) == [0, 1, 2] and len(p["sample_process"]) == len(p["samples"]),
              f"{p['name']}: sample_process names processes 0-2 for every sample")
    _, machines = load_results(repo)
    doc = machines.get("procbox", [{}])[0]
    pm = doc.get("pitot_process_medians", {})
    check(len(pm) == 5 and all(len(v) == 3 for v in pm.values()), f"asv file: per-process medians of 5 points: {pm}")
    cols = dict(zip(doc["result_columns"], doc["results"]["drv_ok.work"]))
    # Pooled: stats_repeat counts every sample, the column keeps at most 101 (docs/asv-format.md §5).
    check(all(cols["stats_repeat"][i] == len(points[i]["samples"]) and len(s) == min(len(points[i]["samples"]), 101)
              for i, s in enumerate(cols["samples"])), "asv row: samples pooled")
    # A point that crashes in a process is failed, and says in which.
    out = os.path.join(repo, "processes-segv.json")
    pitot(["run", prog("segv"), "--machine", "procbox", "--processes", "2", "--json", out] + FAST, repo, timeout=240)
    with open(out) as f:
        failed = [p for p in json.load(f)["points"] if p["status"] == "failed"]
    check(len(failed) == 1 and "in process 1 of 2" in failed[0]["reason"], f"failed in a process: {failed}")
    # A program's own --processes (no driver): a replicate writes its points when it ends, so the
    # one that crashes loses them all, each naming the process and its signal; the program's name
    # stays its own (the replicate runs /proc/self/exe under the program's argv[0]).
    out = os.path.join(repo, "program-processes-segv.json")
    r = subprocess.run([prog("segv"), "--processes", "2", "--json", out] + FAST[:-2], cwd=repo,
                       capture_output=True, text=True, timeout=240)
    check(r.returncode == 1, f"program --processes 2 with a crash exits 1 ({r.returncode}, {r.stderr[-300:]})")
    with open(out) as f:
        points = {p["name"]: p for p in json.load(f)["points"]}
    check(len(points) == 5 and all(p["status"] == "failed" and "in process 1 of 2: the process was killed by signal 11 "
                                   "(SIGSEGV)" in p.get("reason", "") for p in points.values()),
          f"program --processes: each point names the process and its signal: {[p.get('reason') for p in points.values()]}")
    out = os.path.join(repo, "program-processes-ok.json")
    r = subprocess.run([prog("ok"), "--processes", "2", "--json", out] + FAST[:-2], cwd=repo,
                       capture_output=True, text=True, timeout=240)
    with open(out) as f:
        names = {p["program"] for p in json.load(f)["points"]}
    check(r.returncode == 0 and names == {"drv_ok"}, f"program --processes: the replicates keep the program's name: {names}")


def case_asv(asv_check):
    repo = case_misbehaving()
    # The corrupt file from the last step would fail asv: put a valid one back by running again.
    os.remove(os.path.join(repo, "results", "benchmarks.json"))
    for name in ("segv", "hang", "spam", "ok"):
        pitot(["run", prog(name), "--machine", "testbox"] + FAST, repo, timeout=120)
    # Per-process medians in a top-level key: asv must still load the file cleanly.
    pitot(["run", prog("ok"), "--machine", "testbox", "--processes", "2"] + FAST, repo, timeout=120)
    r = subprocess.run([sys.executable, asv_check, repo], capture_output=True, text=True)
    print(r.stdout[-3000:], r.stderr[-3000:])
    check(r.returncode == 0, "the real asv loads the folder without warnings")


def case_envs():
    """Each program's rows carry its own env (issue 21): a Release program and one that reports an
    unoptimized build, run together, leave one history each; `pitot compare BASE HEAD` of two
    commits then pairs each env with its counterpart without asking for --env."""
    repo = make_repo()
    debug = os.path.join(repo, "drv_debug")  # drv_trivial, but its --list says: built without optimization
    with open(debug, "w") as f:
        f.write(f"""#!{sys.executable}
import json, os, subprocess, sys
real = {prog("trivial")!r}
if "--list" not in sys.argv:
    os.execv(real, [real] + sys.argv[1:])  # keeps the result descriptor the driver opened
out = subprocess.run([real] + sys.argv[1:], capture_output=True, text=True)
answer = json.loads(out.stdout)
answer["requirements"]["build_type"] = "unoptimized"
print(json.dumps(answer))
""")
    os.chmod(debug, 0o755)
    env = dict(os.environ, GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid")
    commits = []
    for i in range(2):
        if i:
            subprocess.run(["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "two"], check=True, env=env)
        commits.append(subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip())
        r = pitot(["run", prog("ok"), debug, "--machine", "testbox", "--axis", "i=0,1"] + FAST, repo, timeout=240)
        check(r.returncode == 0, f"run of two builds exits 0 ({r.returncode}: {r.stderr[-800:]})")
        warning = [line for line in r.stderr.splitlines() if "WARNING" in line]
        check(len(warning) == 1 and "WARNING: drv_trivial built without optimization" in warning[0]
              and "drv_ok" not in warning[0], f"the warning names the unoptimized program only: {warning}")
    _, machines = load_results(repo)
    rows = {}
    for doc in machines.get("testbox", []):
        if doc["commit_hash"] == commits[0]:
            rows[doc["env_name"]] = sorted(doc["results"])
    by_build = {("unoptimized" in e): names for e, names in rows.items()}
    check(len(rows) == 2, f"two envs for the first commit: {sorted(rows)}")
    check(by_build.get(True) == ["drv_trivial.work"], f"the unoptimized env holds drv_trivial only: {rows}")
    check(by_build.get(False) == ["drv_ok.work"], f"the optimized env holds drv_ok only: {rows}")
    r = pitot(["compare", commits[0][:10], commits[1][:10]], repo)
    check(r.returncode in (0, 1) and "drv_ok.work" in r.stdout and "drv_trivial.work" in r.stdout,
          f"compare of two commits with two envs compares both ({r.returncode}: {r.stdout[-800:]}{r.stderr[-500:]})")
    check(all(e in r.stdout for e in rows), f"compare names the env pairs it compared: {r.stdout[:800]}")
    print(r.stdout)
    only = sorted(rows)[0]
    r = pitot(["compare", commits[0][:10], commits[1][:10], "--env", only], repo)
    check(r.returncode in (0, 1) and ("drv_ok.work" in r.stdout) != ("drv_trivial.work" in r.stdout),
          f"--env still picks one env ({r.returncode}: {r.stdout[-500:]}{r.stderr[-300:]})")


def case_programs():
    """Issue 32: a folder of programs runs only pitot programs (a shared library, a script and an
    ELF executable of another kind beside them are skipped, named in one note), and a program that
    cannot be listed costs only its own points (named on stderr and in --json, exit 1)."""
    repo = make_repo()
    folder = os.path.join(repo, "bin")
    os.makedirs(folder)
    for name in ("ok", "list_crash"):
        shutil.copy2(prog(name), folder)
    shutil.copy2(PITOT, os.path.join(folder, "tool"))  # an ELF executable, not a benchmark program
    with open(os.path.join(folder, "run.sh"), "w") as f:
        f.write("#!/bin/sh\necho 'not a benchmark'\n")
    os.chmod(os.path.join(folder, "run.sh"), 0o755)
    # A shared library, executable as a build folder's often are.
    with open(os.path.join(repo, "x.c"), "w") as f:
        f.write("int x(void) { return 1; }\n")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("c++")
    subprocess.run([cc, "-shared", "-fPIC", "-o", os.path.join(folder, "libx.so"), os.path.join(repo, "x.c")], check=True)
    os.chmod(os.path.join(folder, "libx.so"), 0o755)
    skipped = [os.path.join("bin", n) for n in ("libx.so", "run.sh", "tool")]

    out = os.path.join(repo, "folder.json")
    r = pitot(["run", "bin", "--machine", "testbox", "--json", out] + FAST, repo, timeout=120)
    print(f"--- run of the folder: exit {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}", flush=True)
    check(r.returncode == 1, f"a folder with a broken program: exit 1 (got {r.returncode})")
    notes = [line for line in r.stderr.splitlines() if "not pitot programs" in line]
    check(len(notes) == 1 and "skipped 3 files" in notes[0] and all(n in notes[0] for n in skipped)
          and "drv_ok" not in notes[0], f"one note names the 3 files skipped: {notes}")
    with open(out) as f:
        doc = json.load(f)
    check({p["program"] for p in doc["points"]} == {"drv_ok"} and all(p["status"] == "ok" for p in doc["points"])
          and len(doc["points"]) == 5, f"only drv_ok's points ran, all ok: {[p['program'] for p in doc['points']]}")
    failed = doc.get("programs_failed", [])
    check(len(failed) == 1 and failed[0]["program"] == "drv_list_crash"
          and failed[0]["path"] == os.path.join("bin", "drv_list_crash")
          and "libmissing.so.1 not found" in failed[0]["reason"] and "SIGABRT" in failed[0]["reason"],
          f"--json names the program that could not be listed, its path and reason: {failed}")
    said = [line for line in r.stderr.splitlines() if "FAILED" in line]
    check(len(said) == 1 and "drv_list_crash" in said[0], f"stderr names the broken program once: {said}")
    check("could not be listed" in r.stdout and "drv_list_crash" in r.stdout, f"the summary names it: {r.stdout[-500:]}")
    values = row_results(repo, "drv_ok")
    check(values is not None and all(isinstance(v, float) and math.isfinite(v) for v in values),
          f"drv_ok's rows are in the database: {values}")

    # pitot list reports the broken program, lists the others, exit 1; the note again.
    r = pitot(["list", "--json", "bin"], repo, timeout=60)
    doc = json.loads(r.stdout or "{}")
    check(r.returncode == 1 and [p["program"] for p in doc.get("programs", [])] == ["drv_ok"]
          and [p["program"] for p in doc.get("programs_failed", [])] == ["drv_list_crash"]
          and "drv_list_crash" in r.stderr and "skipped 3 files" in r.stderr,
          f"list --json of the folder: exit 1, the good program, the broken one ({r.returncode}: {r.stderr[-400:]})")
    # Every program broken: nothing can run, an input error (exit 2) with the program's words.
    r = pitot(["run", prog("list_crash"), "--machine", "testbox"] + FAST, repo, timeout=60)
    check(r.returncode == 2 and "libmissing.so.1 not found" in r.stderr, f"only a broken program: exit 2 ({r.returncode}: {r.stderr[-300:]})")
    # A folder of no pitot program at all: exit 2, saying so.
    os.remove(os.path.join(folder, "drv_ok"))
    os.remove(os.path.join(folder, "drv_list_crash"))
    r = pitot(["run", "bin", "--no-asv"] + FAST, repo, timeout=60)
    check(r.returncode == 2 and "holds no pitot program" in r.stderr, f"a folder without programs: exit 2 ({r.returncode}: {r.stderr[-300:]})")
    # A program named on the command line runs as before, marker or not (a wrapper script).
    wrapper = os.path.join(repo, "wrapped")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec {prog('ok')} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    r = pitot(["run", wrapper, "--no-asv"] + FAST, repo, timeout=60)
    check(r.returncode == 0, f"a wrapper script named on the command line runs ({r.returncode}: {r.stderr[-300:]})")

    # pitot ab: a head program that cannot be listed does not stop the comparison; exit 1.
    for side, names in (("base", ["ok"]), ("head", ["ok", "list_crash"])):
        os.makedirs(os.path.join(repo, side))
        for name in names:
            shutil.copy2(prog(name), os.path.join(repo, side))
    r = pitot(["ab", "base", "head", "--processes", "2", "--max-processes", "2", "--json-dir", "ab"] + FAST, repo, timeout=240)
    print(f"--- ab: exit {r.returncode}\n{r.stdout[-800:]}{r.stderr[-800:]}", flush=True)
    check(r.returncode == 1 and "drv_ok.work" in r.stdout and "drv_list_crash" in r.stderr,
          f"ab with a broken head program: compares the rest, exit 1 ({r.returncode})")
    with open(os.path.join(repo, "ab", "head.json")) as f:
        failed = json.load(f).get("programs_failed", [])
    check([p["program"] for p in failed] == ["drv_list_crash"], f"ab's head.json names it: {failed}")
    return repo


case = sys.argv[1]
if case == "misbehaving":
    case_misbehaving()
elif case == "interrupt":
    case_interrupt()
elif case == "concurrent":
    case_concurrent()
elif case == "tools":
    case_tools()
elif case == "first_contact":
    case_first_contact()
elif case == "faults":
    case_faults()
elif case == "envs":
    case_envs()
elif case == "programs":
    case_programs()
elif case == "asv":
    case_asv(sys.argv[4])
else:
    sys.exit(f"unknown case {case}")
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
