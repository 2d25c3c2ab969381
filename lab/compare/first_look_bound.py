#!/usr/bin/env python3
"""How many no-change points a whole-suite `pitot ab` could call unchanged at its first look, if
the spread of each point's process medians were known (issue 33, item 1), from the medians.csv of
lab/suite/whole-suite-ab-h200.sh.

Two questions, by time and per clock:
- the pooled prior (stats/pooled.cpp, limma's squeezeVar) of each program's and each benchmark's
  points: its degrees of freedom d0, flat as pitot fits it and with a trend in log time (a point's
  spread predicted by its duration);
- the share of points a first look of N + N processes (share 1/2 of the error rates) calls
  unchanged at a 1% threshold when each point's variance has the weight of D0 extra degrees of
  freedom at the value all its processes give (an upper bound: the same processes say both).

usage: first_look_bound.py MEDIANS_CSV [--processes N] [--threshold 0.01]   (needs numpy, scipy)"""
import argparse
import collections
import csv
import math
import statistics

import numpy as np
from scipy.optimize import brentq
from scipy.special import digamma, polygamma
from scipy.stats import t as student_t


def sides_of(path, column):
    sides = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["status"] == "ok" and r[column]:
            sides[r["point"]][r["side"]] = [math.log(float(x)) for x in r[column].split()]
    return {p: s for p, s in sides.items() if "base" in s and "head" in s and "bench_spin" not in p}


def spread(x, y):
    ss = sum(sum((a - m) ** 2 for a in v) for v, m in ((x, statistics.mean(x)), (y, statistics.mean(y))))
    return ss, len(x) + len(y) - 2


def prior_df(variances, dfs, log_times=None):
    """d0 by moments of log s² (Smyth 2004), around a line in log time when given."""
    s2, d = np.array(variances), np.array(dfs, dtype=float)
    e = np.log(s2) - digamma(d / 2) + np.log(d / 2)
    if log_times is not None:
        t = np.array(log_times)
        e = e - np.polyval(np.polyfit(t, e, 1), t)
    excess = np.var(e, ddof=1) - np.mean(polygamma(1, d / 2))
    if excess <= 0:
        return math.inf
    return 2 * math.exp(brentq(lambda l: polygamma(1, math.exp(l)) - excess, -18, 18))


def priors(sides):
    for level in ("program", "benchmark"):
        groups = collections.defaultdict(list)
        for p, s in sides.items():
            ss, df = spread(s["base"], s["head"])
            if df > 0 and ss > 0:
                groups[p.split(".")[0] if level == "program" else p.split("[")[0]].append((ss / df, df, s["base"][0]))
        for g, rows in sorted(groups.items()):
            if len(rows) >= 8:
                v, d, t = zip(*rows)
                print(f"| {g} | {len(rows)} | {prior_df(v, d):.2f} | {prior_df(v, d, t):.2f} |")


def first_look(sides, n, threshold, d0):
    decided = total = 0
    for s in sides.values():
        x, y = s["base"], s["head"]
        if len(x) < n or len(y) < n:
            continue
        total += 1
        ss_all, df_all = spread(x, y)
        ss, df = spread(x[:n], y[:n])
        known = ss_all / df_all if df_all > 0 else ss / df
        var = (d0 * known + ss) / (d0 + df)
        half = student_t.ppf(1 - 0.05 * 0.5, d0 + df) * math.sqrt(var * 2 / n)
        est = statistics.mean(y[:n]) - statistics.mean(x[:n])
        decided += abs(est) + half < math.log1p(threshold)
    return decided, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("medians")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--threshold", type=float, default=0.01)
    a = ap.parse_args()
    for label, column in (("by time", "process_medians"), ("per clock", "process_per_clock")):
        sides = sides_of(a.medians, column)
        print(f"\n{label}: the pooled prior's degrees of freedom\n\n| group | points | d0 flat | d0 with a trend in log time |\n|---|---|---|---|")
        priors(sides)
        print(f"\n{label}: unchanged at a first look of {a.processes} + {a.processes} processes, variance known with D0 degrees of freedom\n")
        for d0 in (0, 4, 16, 1000):
            decided, total = first_look(sides, a.processes, a.threshold, d0)
            print(f"- D0 {d0}: {decided} of {total} ({100 * decided / max(total, 1):.1f}%)")


if __name__ == "__main__":
    main()
