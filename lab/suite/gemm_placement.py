#!/usr/bin/env python3
"""Tables for lab/suite/gemm-placement-h200.sh: per GEMM size, the spread of the eight buffer sets
within each process (sd of the log medians) against the spread of one set's medians over the
processes. usage: lab/suite/gemm_placement.py FOLDER"""
import collections
import glob
import json
import math
import os
import statistics
import sys

runs = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "p*.json"))):
    med = {}
    for p in json.load(open(path))["points"]:
        if p["status"] == "ok":
            med[tuple(p["values"])] = math.log(p["stats"]["median"])  # (n, set)
    runs.append(med)
sizes = sorted({k[0] for r in runs for k in r})
print("| n | within a process: sd over the 8 sets (each process) | between processes: sd of each set (median over sets) | process means (us) |")
print("|---|---|---|---|")
for n in sizes:
    within = [100 * statistics.stdev([r[(n, s)] for s in range(8) if (n, s) in r]) for r in runs]
    between = [100 * statistics.stdev([r[(n, s)] for r in runs if (n, s) in r]) for s in range(8)]
    means = [1e6 * math.exp(statistics.mean([r[(n, s)] for s in range(8) if (n, s) in r])) for r in runs]
    print(f"| {n} | {', '.join(f'{w:.2f}%' for w in within)} | {statistics.median(between):.2f}% | "
          f"{', '.join(f'{m:.1f}' for m in means)} |")
rotated = sorted({k for r in runs for k in r if len(k) == 1})  # gemm_rotated: (n,)
if rotated:
    print("\n| n | rotated over 8 sets: sd of the process medians | process medians (us) |")
    print("|---|---|---|")
    for k in rotated:
        logs = [r[k] for r in runs if k in r]
        print(f"| {k[0]} | {100 * statistics.stdev(logs):.2f}% | {', '.join(f'{1e6 * math.exp(v):.1f}' for v in logs)} |")
