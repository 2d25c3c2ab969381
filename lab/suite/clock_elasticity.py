#!/usr/bin/env python3
"""How much of a process's time follows its SM clock, per benchmark, from a whole-suite ab.

usage: clock_elasticity.py MEDIANS_CSV

Reads medians.csv (lab/suite/whole-suite-ab-h200.sh: each point's per-process median time and
median clock ratio, both sides of a no-change ab) and, per benchmark, fits the elasticity beta in
log t = a_point,side - beta log clock by least squares on the deviations from each point's side
means (so a change between the sides could not leak into beta), pooled over the benchmark's
points. Prints beta and the median point's spread between processes (standard deviation, %) of
log t + e log clock for e = 0 (by time), 1 (per clock, as --per-clock compares) and beta.
"""
import collections
import csv
import math
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    sides = collections.defaultdict(list)  # (benchmark, point) -> [(log t, log c) per process] per side
    for row in csv.DictReader(open(sys.argv[1])):
        if row["status"] != "ok" or not row["process_clocks"] or row["point"].startswith("bench_spin."):
            continue
        t = [math.log(float(x)) for x in row["process_medians"].split()]
        c = [math.log(float(x)) for x in row["process_clocks"].split()]
        if len(t) >= 2 and len(t) == len(c):
            sides[row["point"]].append(list(zip(t, c)))
    groups = collections.defaultdict(list)  # benchmark -> per point: deviations from its side means
    for point, per_side in sides.items():
        dev = []
        for proc in per_side:
            mt = statistics.mean(t for t, _ in proc)
            mc = statistics.mean(c for _, c in proc)
            dev += [(t - mt, c - mc) for t, c in proc]
        benchmark = point.split("[", 1)[0]
        groups[benchmark].append((dev, len(dev) - len(per_side)))
    print("| benchmark | points | beta | spread by time | per clock (e = 1) | at beta |")
    print("|---|---|---|---|---|---|")
    for benchmark, points in sorted(groups.items()):
        stc = sum(t * c for dev, _ in points for t, c in dev)
        scc = sum(c * c for dev, _ in points for t, c in dev)
        beta = -stc / scc if scc > 0 else float("nan")

        def spread(e):
            return 100 * math.sqrt(statistics.median(
                sum((t + e * c) ** 2 for t, c in dev) / df for dev, df in points if df > 0))

        print(f"| {benchmark} | {len(points)} | {beta:.2f} | {spread(0):.3f}% | {spread(1):.3f}% | {spread(beta):.3f}% |")


if __name__ == "__main__":
    main()
