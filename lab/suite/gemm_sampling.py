#!/usr/bin/env python3
"""Tables for lab/suite/gemm-sampling-h200.sh: per --max-time, the spread of each point's process
medians (sd of the log over the processes; median and 90th percentile over the points), the
samples a point took and the wall of a process.
usage: lab/suite/gemm_sampling.py FOLDER"""
import collections
import glob
import json
import math
import os
import statistics
import sys

folder = sys.argv[1]
medians = collections.defaultdict(lambda: collections.defaultdict(list))
samples = collections.defaultdict(list)
for path in glob.glob(os.path.join(folder, "t*-r*.json")):
    t = os.path.basename(path)[1:].split("-r")[0]
    for p in json.load(open(path))["points"]:
        if p["status"] == "ok":
            medians[t][p["name"]].append(p["stats"]["median"])
            samples[t].append(p["stats"]["n"])
walls = collections.defaultdict(list)
for line in open(os.path.join(folder, "walls.txt")):
    f = line.split()
    walls[f[0]].append(float(f[-1]))
print("| --max-time | points | median sd | 90th pct sd | mean sd | samples a point (median) | process wall |")
print("|---|---|---|---|---|---|---|")
for t in sorted(medians, key=float):
    sds = sorted(100 * statistics.stdev([math.log(v) for v in m]) for m in medians[t].values() if len(m) >= 2)
    print(f"| {t} | {len(sds)} | {sds[len(sds) // 2]:.2f}% | {sds[int(0.9 * len(sds))]:.2f}% | {statistics.mean(sds):.2f}% | "
          f"{statistics.median(samples[t]):.0f} | {statistics.mean(walls[t]):.1f} s |")
