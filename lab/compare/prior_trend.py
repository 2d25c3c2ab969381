#!/usr/bin/env python3
"""The pooled prior of the process spread (src/driver/compare/stats/pooled.cpp), per program: its
degrees of freedom fitted flat (as compare fits it) against a linear and a quadratic trend in the
point's log time (limma's trend=TRUE). From a whole-suite ab's medians.csv
(lab/suite/whole-suite-ab-h200.sh), the first K processes a side, GEMM and attention at the
nominal clock with their fitted elasticities, the rest by time. Needs numpy and scipy.
usage: prior_trend.py MEDIANS_CSV [K]"""
import collections
import csv
import sys

import numpy as np
from scipy.special import digamma, polygamma

ELASTICITY = {"gemm": 0.75, "attention": 0.78}  # docs/results/whole-suite-ab.md, fitted


def trigamma(x):
    return polygamma(1, x)


def inverse_trigamma(y):
    lo, hi = np.log(1e-8), np.log(1e8)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if trigamma(np.exp(mid)) > y else (lo, mid)
    return np.exp((lo + hi) / 2)


def main():
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    rows = collections.defaultdict(dict)
    for r in csv.DictReader(open(sys.argv[1])):
        if r["status"] != "ok" or not r["process_medians"]:
            continue
        t = np.array([float(x) for x in r["process_medians"].split()])
        c = np.array([float(x) for x in r["process_clocks"].split()]) if r["process_clocks"] else None
        rows[r["point"]][r["side"]] = (t, c)
    groups = collections.defaultdict(list)
    for point, sides in rows.items():
        if "base" not in sides or "head" not in sides:
            continue
        program = point.split(".")[0]
        e = next((v for name, v in ELASTICITY.items() if name in program), 0.0)
        logs = []
        for t, c in (sides["base"], sides["head"]):
            clocked = c is not None and len(c) >= k
            logs.append(np.log(t[:k]) + (e * np.log(c[:k]) if clocked else 0))
        if min(len(v) for v in logs) < k:
            continue
        ss = sum(((v - v.mean()) ** 2).sum() for v in logs)
        df = sum(len(v) for v in logs) - 2
        groups[program].append((ss / df, df, np.mean(np.concatenate(logs))))
    for program, g in sorted(groups.items()):
        s2, df, lt = (np.array(col) for col in zip(*g))
        keep = s2 > 0
        s2, df, lt = s2[keep], df[keep], lt[keep]
        if len(s2) < 4:
            continue
        e = np.log(s2) - digamma(df / 2) + np.log(df / 2)  # unbiased for log sigma^2
        sampling = trigamma(df / 2).mean()

        def prior_df(fit_columns):
            design = np.vstack(fit_columns).T
            coef, *_ = np.linalg.lstsq(design, e, rcond=None)
            excess = (e - design @ coef).var(ddof=design.shape[1]) - sampling
            return 2 * inverse_trigamma(excess) if excess > 0 else float("inf")

        one = np.ones_like(lt)
        print(f"{program:18s} points {len(e):4d}  prior df: flat {prior_df([one]):6.1f}, "
              f"linear in log time {prior_df([one, lt]):6.1f}, quadratic {prior_df([one, lt, lt ** 2]):6.1f}")


if __name__ == "__main__":
    main()
