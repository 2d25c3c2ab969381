#!/usr/bin/env python3
"""Would pairing a round's base and head processes cancel their noise? (issue 33)

Reads a whole-suite ab's medians.csv (lab/suite/whole-suite-ab-h200.sh) and, per program and per
decade of the point's time, compares the per-process variance of the log medians (each side about
its own mean, averaged over both sides) with half the variance of the differences of the k-th
processes of the two sides (what a paired comparison would see). A ratio well under 1 means the
k-th processes shared something that pairing would cancel.
With a second medians.csv, also the base medians of the second run against the first's.

usage: lab/suite/paired_spread.py MEDIANS.csv [OTHER_MEDIANS.csv]
"""
import collections
import csv
import math
import statistics
import sys


def load(path):
    sides = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["status"] == "ok" and r["process_medians"]:
            sides[r["point"]][r["side"]] = [float(x) for x in r["process_medians"].split()]
    return sides


def var(x):
    m = sum(x) / len(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1)


def spreads(sides):
    groups = collections.defaultdict(list)
    for point, s in sides.items():
        if "base" not in s or "head" not in s:
            continue
        n = min(len(s["base"]), len(s["head"]))
        if n < 2:
            continue
        b = [math.log(v) for v in s["base"][:n]]
        h = [math.log(v) for v in s["head"][:n]]
        unpaired = (var(b) + var(h)) / 2
        paired = var([y - x for x, y in zip(b, h)]) / 2
        decade = int(math.floor(math.log10(s["base"][0])))
        groups[(point.split(".")[0], decade)].append((unpaired, paired))
    print("| program | time | points | rms sd unpaired | rms sd paired (/sqrt 2) | median sd unpaired | median sd paired |")
    print("|---|---|---|---|---|---|---|")
    for (program, decade), rows in sorted(groups.items()):
        u = sorted(a for a, _ in rows)
        p = sorted(b for _, b in rows)
        print(f"| {program} | 1e{decade} s | {len(rows)} | {100 * math.sqrt(sum(u) / len(u)):.2f}% | "
              f"{100 * math.sqrt(sum(p) / len(p)):.2f}% | {100 * math.sqrt(u[len(u) // 2]):.2f}% | "
              f"{100 * math.sqrt(p[len(p) // 2]):.2f}% |")


def medians_against(first, second):
    groups = collections.defaultdict(list)
    for point, s in second.items():
        if "base" in s and "base" in first.get(point, {}):
            a, b = statistics.median(first[point]["base"]), statistics.median(s["base"])
            groups[(point.split(".")[0], int(math.floor(math.log10(a))))].append(math.log(b / a))
    print("\n| program | time | points | base median, second run / first |")
    print("|---|---|---|---|")
    for (program, decade), rows in sorted(groups.items()):
        print(f"| {program} | 1e{decade} s | {len(rows)} | {100 * (math.exp(statistics.median(rows)) - 1):+.2f}% |")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    run = load(sys.argv[-1])
    spreads(run)
    if len(sys.argv) == 3:
        medians_against(load(sys.argv[1]), run)
