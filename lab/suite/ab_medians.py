#!/usr/bin/env python3
"""The old and a new engine on the same points (lab/suite/cuts-h200.sh): per slice and new kind,
the medians new/old (each side's median over its rounds), beside old/old between rounds (the spread
any difference is read against), the sampling seconds a point spent and the 99% interval's width.

usage: ab_medians.py DIR   (DIR holds KIND-ROUND-SLICE.json; KIND old, and any others)
"""
import collections
import glob
import json
import math
import os
import statistics
import sys


def load(directory):
    """{(kind, slice): {point: [report point per round]}}"""
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(directory, "*-*-*.json"))):
        kind, _, name = os.path.basename(path)[:-5].split("-", 2)
        with open(path) as f:
            for p in json.load(f).get("points", []):
                if p.get("status") == "ok" and p.get("stats"):
                    runs[(kind, name)][p["name"]].append(p)
    return runs


def summary(ratios):
    logs = [math.log(r) for r in ratios]
    inside = sum(abs(x) <= math.log(1.01) for x in logs)
    return (f"{len(ratios)} | {math.exp(statistics.mean(logs)):.4f} | {inside}/{len(ratios)} | "
            f"{math.exp(max(abs(x) for x in logs)) - 1:.2%}")


def main():
    runs = load(sys.argv[1])
    slices = sorted({name for _, name in runs})
    kinds = sorted({kind for kind, _ in runs} - {"old"})
    print("| slice, kind | points | geo-mean new/old | within 1% | largest | old/old (rounds) within 1% | "
          "sampling s/point old | new | ci99 width old | new |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, kind in [(n, k) for n in slices for k in kinds]:
        old, new = runs.get(("old", name), {}), runs.get((kind, name), {})
        common = sorted(set(old) & set(new))
        if not common:
            continue
        med = lambda ps: statistics.median(p["stats"]["median"] for p in ps)
        ratios = [med(new[k]) / med(old[k]) for k in common]
        same = [old[k][1]["stats"]["median"] / old[k][0]["stats"]["median"] for k in common if len(old[k]) > 1]
        old_ab = f"{sum(abs(math.log(r)) <= math.log(1.01) for r in same)}/{len(same)}" if same else "-"
        sampling = lambda ps: statistics.mean(p["backend_info"]["phases"]["sampling_seconds"] for p in ps)
        width = lambda ps: statistics.mean((p["stats"]["ci99_hi"] - p["stats"]["ci99_lo"]) / p["stats"]["median"] for p in ps)
        s_old = statistics.mean(sampling(old[k]) for k in common)
        s_new = statistics.mean(sampling(new[k]) for k in common)
        w_old = statistics.mean(width(old[k]) for k in common)
        w_new = statistics.mean(width(new[k]) for k in common)
        print(f"| {name}, {kind} | {summary(ratios)} | {old_ab} | {s_old:.3f} | {s_new:.3f} | {w_old:.3%} | {w_new:.3%} |")


if __name__ == "__main__":
    main()
