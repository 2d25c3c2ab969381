#!/usr/bin/env python3
"""Summarize repeated runs: pitot JSON files (bench_copy --json), torch_timers.py JSON lines and
ncu CSV, into one markdown table per tool: median over runs, spread (max-min)/median of the
runs' medians, bandwidth and wall time per point. Standard library only."""
import argparse
import csv
import glob
import json
import statistics
import sys
from collections import defaultdict


def spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else float("nan")


def fmt_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3f} µs"
    return f"{seconds * 1e3:.4f} ms"


def pitot_rows(paths, walls):
    medians = defaultdict(list)
    durations = defaultdict(list)
    bytes_of = {}
    extra = defaultdict(list)
    for path in paths:
        doc = json.load(open(path))
        for p in doc["points"]:
            if p.get("status") != "ok":
                print(f"{path}: {p['name']}: {p.get('status')}: {p.get('reason')}", file=sys.stderr)
                continue
            medians[p["name"]].append(p["stats"]["median"])
            durations[p["name"]].append(p.get("duration", float("nan")))
            bytes_of[p["name"]] = p["counters"]["bytes"]
            extra[p["name"]].append((p["number"], len(p["samples"]), p.get("discarded_samples", 0),
                                     statistics.median(p.get("clock_ratios") or [float("nan")])))
    rows = []
    wall_per_point = statistics.median(walls) if walls else float("nan")
    for name, ms in medians.items():
        med = statistics.median(ms)
        b = bytes_of[name]
        number, samples, discarded, clock = extra[name][0]
        rows.append({
            "tool": "pitot (cold)", "work": name, "median": med, "spread": spread(ms), "runs": len(ms),
            "tbps": b / med / 1e12 if b else None, "wall": wall_per_point,
            "note": f"{number} launches/sample, {statistics.median(e[1] for e in extra[name]):.0f} samples, "
                    f"{sum(e[2] for e in extra[name])} discarded, clock {clock:.3f} of nominal",
        })
    return rows


def torch_rows(paths):
    by = defaultdict(list)
    walls = defaultdict(list)
    for path in paths:
        for line in open(path):
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            key = (r["tool"], f"{r['work']}[n={r['n']}]", r["n"])
            by[key].append(r["median_s"])
            walls[key].append(r["wall_s"])
    rows = []
    for (tool, work, n), ms in by.items():
        med = statistics.median(ms)
        rows.append({"tool": tool, "work": work, "median": med, "spread": spread(ms), "runs": len(ms),
                     "tbps": 2 * 4 * n / med / 1e12, "wall": statistics.median(walls[(tool, work, n)]), "note": ""})
    return rows


def ncu_durations(path):
    """Seconds of each launch in `ncu --csv --page raw --metrics gpu__time_duration.sum` output (ns).
    Also used by lab/kernel-clock/summary.py."""
    durations = []
    with open(path) as f:
        for r in csv.DictReader([l for l in f if l.startswith('"')]):
            try:
                durations.append(float(r.get("gpu__time_duration.sum", "").replace(",", "")) * 1e-9)
            except ValueError:
                continue  # the units row
    return durations


def ncu_rows(specs):
    """POINT=FILE pairs of `ncu --csv --page raw --metrics gpu__time_duration.sum` output."""
    rows = []
    for spec in specs:
        point, _, path = spec.rpartition("=")  # point names hold '=' too; paths here do not
        durations = ncu_durations(path)
        if durations:
            rows.append({"tool": "ncu gpu__time_duration", "work": point, "median": statistics.median(durations),
                         "spread": spread(durations), "runs": len(durations), "tbps": None, "wall": float("nan"),
                         "note": "launches in one process, caches flushed"})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pitot", nargs="*", default=[], help="pitot --json files, one per run")
    parser.add_argument("--pitot-walls", help="file of 'seconds points' lines, one per pitot run")
    parser.add_argument("--torch", nargs="*", default=[], help="torch_timers.py outputs, one per run")
    parser.add_argument("--ncu", action="append", default=[], help="POINT=FILE: ncu --csv --page raw output for a point")
    args = parser.parse_args()
    walls = []
    if args.pitot_walls:
        for line in open(args.pitot_walls):
            seconds, points = line.split()
            walls.append(float(seconds) / int(points))
    rows = pitot_rows(sorted(args.pitot), walls) + torch_rows(sorted(args.torch))
    rows += ncu_rows(args.ncu)
    print("| tool | work | runs | median | spread (max-min)/median | TB/s | wall per point | notes |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        tbps = f"{r['tbps']:.3f}" if r["tbps"] else "–"
        wall = f"{r['wall']:.2f} s" if r["wall"] == r["wall"] else "–"
        print(f"| {r['tool']} | {r['work']} | {r['runs']} | {fmt_time(r['median'])} | {r['spread'] * 100:.3f}% | {tbps} | {wall} | {r['note']} |")


if __name__ == "__main__":
    main()
