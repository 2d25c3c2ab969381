#!/usr/bin/env python3
"""pitot compare side by side with asv compare and benchstats, on the same synthetic cases.

usage: sidebyside.py --pitot PATH/TO/pitot [--trials N] [--seed S] [--out FILE.md]

Run it with a Python that has asv 0.6.6, benchstats and numpy, e.g.
  python3 -m venv build/venv-sidebyside && build/venv-sidebyside/bin/pip install asv==0.6.6 benchstats
  build/venv-sidebyside/bin/python lab/compare/sidebyside.py --pitot build/src/driver/pitot

Each case draws N seeded trials of (base samples, head samples). All trials of a case go into one
asv results database (a benchmark with a `trial` parameter, two commits of a throw-away git
repository, stats computed by asv_runner like asv itself), which is then read by
  * the real `asv compare` (default --factor 1.1, and --factor 1.02 to match pitot's threshold),
  * `pitot compare` (default: 2% threshold, 99% intervals),
  * benchstats' compareStats (Brunner-Munzel, alpha 0.001, its defaults),
and the share of trials each tool calls "slower" and "faster" is tabulated as markdown.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from asv_runner.statistics import compute_stats
from benchstats.compare import compareStats


# --- the cases --------------------------------------------------------------------------------
# Each returns (base, head) sample arrays for one trial; `unit` is "seconds" unless said.

def lognormal(rng, n, median, sigma):
    return median * np.exp(sigma * rng.standard_normal(n))


def heavy_tail(rng, n, median):
    x = lognormal(rng, n, median, 0.01)
    outliers = rng.random(n) < 0.1
    x[outliers] *= 1.2 + 1.8 * rng.random(outliers.sum())
    return x


def ticks(rng, n, median, sigma):
    return np.round(lognormal(rng, n, median, sigma) / 32e-9) * 32e-9


CASES = [
    ("A/A, 2% noise, 30 a side", "none",
     lambda r: (lognormal(r, 30, 1e-3, 0.02), lognormal(r, 30, 1e-3, 0.02)), "seconds"),
    ("A/A, 2% noise, 10 a side", "none",
     lambda r: (lognormal(r, 10, 1e-3, 0.02), lognormal(r, 10, 1e-3, 0.02)), "seconds"),
    ("A/A, heavy right tail, 30 a side", "none",
     lambda r: (heavy_tail(r, 30, 5e-6), heavy_tail(r, 30, 5e-6)), "seconds"),
    ("A/A, 32 ns timer ticks, 30 a side", "none",
     lambda r: (ticks(r, 30, 3.2e-6, 0.01), ticks(r, 30, 3.2e-6, 0.01)), "seconds"),
    ("A/A, 3 of 30 head samples 50x (outliers)", "none",
     lambda r: (lognormal(r, 30, 1e-3, 0.005), np.concatenate([lognormal(r, 27, 1e-3, 0.005), [5e-2] * 3])), "seconds"),
    ("0.5% slower, 0.2% noise, 200 a side", "below threshold",
     lambda r: (lognormal(r, 200, 1e-3, 0.002), lognormal(r, 200, 1.005e-3, 0.002)), "seconds"),
    ("5% slower, 1% noise, 30 a side", "slower",
     lambda r: (lognormal(r, 30, 1e-3, 0.01), lognormal(r, 30, 1.05e-3, 0.01)), "seconds"),
    ("5% slower, heavy right tail, 30 a side", "slower",
     lambda r: (heavy_tail(r, 30, 1e-3), heavy_tail(r, 30, 1.05e-3)), "seconds"),
    ("5% slower, 1% noise, 10 a side", "slower",
     lambda r: (lognormal(r, 10, 1e-3, 0.01), lognormal(r, 10, 1.05e-3, 0.01)), "seconds"),
    ("15% slower, 1% noise, 30 a side", "slower",
     lambda r: (lognormal(r, 30, 1e-3, 0.01), lognormal(r, 30, 1.15e-3, 0.01)), "seconds"),
    ("2x slower, 3 a side (tiny)", "too few samples",
     lambda r: (lognormal(r, 3, 1e-3, 0.01), lognormal(r, 3, 2e-3, 0.01)), "seconds"),
    ("throughput 10% lower (GB/s), 30 a side", "slower",
     lambda r: (lognormal(r, 30, 100.0, 0.01), lognormal(r, 30, 90.0, 0.01)), "GB/s"),
]


# --- one asv database per case ------------------------------------------------------------------

COMMITS = []


def make_repo(path):
    """Two fixed commits (fixed names and dates, so fixed hashes), like asv-sample's make-repo.sh."""
    env = dict(os.environ, GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@example.invalid", GIT_COMMITTER_NAME="s",
               GIT_COMMITTER_EMAIL="s@example.invalid", GIT_CONFIG_NOSYSTEM="1", HOME=path)
    os.makedirs(path)
    run = lambda *a, **kw: subprocess.run(["git", "-C", path, *a], env={**env, **kw}, check=True,
                                          capture_output=True, text=True).stdout.strip()
    run("init", "-q")
    run("symbolic-ref", "HEAD", "refs/heads/main")
    hashes = []
    for i, date in enumerate(["2024-01-01T00:00:00+0000", "2024-01-02T00:00:00+0000"]):
        with open(os.path.join(path, "f"), "w") as f:
            f.write(str(i))
        run("add", "f")
        run("-c", "commit.gpgsign=false", "commit", "-q", "-m", f"c{i}", GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        hashes.append(run("rev-parse", "HEAD"))
    return hashes


def write_database(root, trials, unit):
    hashes = make_repo(os.path.join(root, "repo"))
    with open(os.path.join(root, "asv.conf.json"), "w") as f:
        json.dump({"version": 1, "project": "sidebyside", "repo": "repo", "branches": ["main"], "dvcs": "git",
                   "environment_type": "existing", "results_dir": "results", "html_dir": "html"}, f)
    name = "case.time_x" if unit == "seconds" else "case.track_x"
    params = [[repr(str(i)) for i in range(len(trials))]]
    os.makedirs(os.path.join(root, "results", "box"))
    with open(os.path.join(root, "results", "benchmarks.json"), "w") as f:
        json.dump({name: {"name": name, "type": "time" if unit == "seconds" else "track", "unit": unit,
                          "params": params, "param_names": ["trial"], "version": "1"}, "version": 2}, f)
    with open(os.path.join(root, "results", "box", "machine.json"), "w") as f:
        json.dump({"machine": "box", "version": 1}, f)
    columns = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
               "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]
    for side, commit in enumerate(hashes):
        cols = {c: [] for c in columns}
        for trial in trials:
            samples = [float(x) for x in trial[side]]
            value, stats = compute_stats(samples, 1)
            cols["result"].append(value)
            for key in ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat"):
                cols["stats_" + key].append(stats[key])
            cols["samples"].append(samples)
        row = [cols["result"], params, "1", 1704067200000, 1.0] + [cols["stats_" + k] for k in
               ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat")] + [cols["samples"]]
        doc = {"commit_hash": commit, "env_name": "e", "date": 1704067200000 + side * 86400000,
               "params": {"machine": "box"}, "python": "", "requirements": {}, "env_vars": {},
               "result_columns": columns, "results": {name: row}, "version": 2}
        with open(os.path.join(root, "results", "box", f"{commit[:8]}-e.json"), "w") as f:
            f.write(json.dumps(doc))  # Python's dialect: Infinity for open intervals, like asv
    return hashes


# --- the three tools ----------------------------------------------------------------------------

def asv_verdicts(root, hashes, n, factor):
    out = subprocess.run([sys.executable, "-m", "asv", "compare", "--config", os.path.join(root, "asv.conf.json"),
                          "--factor", str(factor), hashes[0], hashes[1]],
                         capture_output=True, text=True, check=True).stdout
    verdicts = ["none"] * n
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.search(r"\('(\d+)'\)$", cells[-1]) if len(cells) >= 5 else None
        if not m:
            continue
        mark = cells[0]
        verdicts[int(m.group(1))] = {"+": "slower", "-": "faster"}.get(mark, "none")
    return verdicts


def pitot_verdicts(pitot, root, hashes, n):
    res = subprocess.run([pitot, "compare", hashes[0][:8], hashes[1][:8], "--results-dir",
                          os.path.join(root, "results"), "--json"], capture_output=True, text=True)
    if res.returncode not in (0, 1):
        raise RuntimeError(f"pitot compare failed: {res.stderr}")
    verdicts = ["none"] * n
    for p in json.loads(res.stdout)["points"]:
        trial = int(re.search(r"trial='(\d+)'", p["name"]).group(1))
        verdicts[trial] = p["verdict"]
    return verdicts


def benchstats_verdicts(trials, unit):
    base = {f"t{i}": {"m": np.asarray(t[0])} for i, t in enumerate(trials)}
    head = {f"t{i}": {"m": np.asarray(t[1])} for i, t in enumerate(trials)}
    result = compareStats(base, head, method="brunnermunzel", alpha=0.001, debug_log=False)
    higher_better = unit != "seconds"
    verdicts = []
    for i in range(len(trials)):
        r = result.results.get(f"t{i}", {}).get("m")
        if r is None or r.result == "~":
            verdicts.append("none")
        elif (r.result == "<") != higher_better:  # '<': base below head
            verdicts.append("slower")
        else:
            verdicts.append("faster")
    return verdicts


def share(verdicts, what):
    return 100.0 * sum(v == what for v in verdicts) / len(verdicts)


def cell(verdicts):
    s, f = share(verdicts, "slower"), share(verdicts, "faster")
    text = f"{s:.1f}% slower"
    if f:
        text += f", {f:.1f}% faster"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pitot", required=True, help="the pitot driver executable")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20240101)
    ap.add_argument("--out", help="also write the markdown table here")
    args = ap.parse_args()
    pitot = os.path.abspath(args.pitot)

    lines = [f"| case | truth | pitot compare (2%, 99%) | asv compare (factor 1.1) | asv compare --factor 1.02 "
             f"| benchstats (Brunner-Munzel, α 0.001) |",
             "|---|---|---|---|---|---|"]
    for index, (title, truth, draw, unit) in enumerate(CASES):
        rng = np.random.default_rng(args.seed + index)
        trials = [draw(rng) for _ in range(args.trials)]
        with tempfile.TemporaryDirectory(prefix="pitot-sidebyside-") as root:
            hashes = write_database(root, trials, unit)
            p = pitot_verdicts(pitot, root, hashes, len(trials))
            a = asv_verdicts(root, hashes, len(trials), 1.1)
            a2 = asv_verdicts(root, hashes, len(trials), 1.02)
        b = benchstats_verdicts(trials, unit)
        incon = share(p, "inconclusive")
        pitot_cell = cell(p) + (f" ({incon:.0f}% inconclusive)" if incon else "")
        lines.append(f"| {title} | {truth} | {pitot_cell} | {cell(a)} | {cell(a2)} | {cell(b)} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines) + "\n"
    print(f"\n{args.trials} seeded trials per case (seed {args.seed}).\n")
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
