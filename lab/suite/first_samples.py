#!/usr/bin/env python3
"""Would fewer samples a process do? (issue 33): the spread between processes of each point's
median over only its first K samples, by time and per clock (time x the sample's clock ratio),
from runs that kept every sample: lab/suite/offsets-h200.sh's gemm/{lean,full}-N.json
(docs/results/raw/2026-12-05-h100-gemm-offsets.tar.xz).

usage: first_samples.py DIR [K ...]   (DIR holds lean-*.json, warm-*.json and full-*.json)"""
import collections
import glob
import json
import math
import os
import statistics
import sys


def spreads(paths, k):
    points = collections.defaultdict(list)
    for path in paths:
        for p in json.load(open(path))["points"]:
            if p["status"] == "ok":
                points[p["name"]].append((p["samples"][:k], p.get("clock_ratios", [])[:k]))
    by_time, per_clock = [], []
    for processes in points.values():
        if len(processes) < 3:
            continue
        by_time.append(100 * statistics.stdev(math.log(statistics.median(s)) for s, _ in processes))
        clocked = [(s, c) for s, c in processes if len(c) == len(s)]
        if len(clocked) >= 3:
            per_clock.append(100 * statistics.stdev(
                math.log(statistics.median(a * b for a, b in zip(s, c))) for s, c in clocked))
    return len(points), by_time, per_clock


def main():
    folder, ks = sys.argv[1], [int(k) for k in sys.argv[2:]] or [3, 5, 8, 10, 10**9]
    print("| limits | first K samples | points | sd of process medians by time (median, mean) | per clock |")
    print("|---|---|---|---|---|")
    for mode in ("lean", "warm", "full"):
        paths = sorted(glob.glob(os.path.join(folder, f"{mode}-*.json")))
        for k in ks:
            n, t, c = spreads(paths, k)
            label = "all" if k >= 10**9 else str(k)
            print(f"| {mode} ({len(paths)} processes) | {label} | {n} | {statistics.median(t):.2f}%, "
                  f"{statistics.mean(t):.2f}% | {statistics.median(c):.2f}%, {statistics.mean(c):.2f}% |")


if __name__ == "__main__":
    main()
