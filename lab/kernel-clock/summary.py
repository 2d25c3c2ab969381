#!/usr/bin/env python3
"""Summarize the clocks part of lab/kernel-clock/run-h200.sh: per point and clock, the median of the run medians, their spread
((max - min) / median), the wall time per point, and ncu's gpu__time_duration beside them.
Standard library only."""
import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "timers"))
from summarize import ncu_durations  # noqa: E402  (the one reader of ncu's CSV)


def ncu_medians(specs):
    """POINT=FILE pairs of `ncu --csv --page raw --metrics gpu__time_duration.sum` output (ns)."""
    out = {}
    for spec in specs:
        point, _, path = spec.rpartition("=")  # point names hold '=' too; paths do not
        try:
            durations = ncu_durations(path)
        except OSError:
            continue
        if durations:
            out[point] = statistics.median(durations)
    return out


def us(seconds):
    return "-" if seconds is None else f"{seconds * 1e6:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", nargs="+", default=[], help="pitot --json outputs of bench_copy")
    parser.add_argument("--walls", help="lines 'CLOCK SECONDS': wall time of each process")
    parser.add_argument("--ncu", action="append", default=[], help="POINT=FILE: ncu --csv --page raw output")
    args = parser.parse_args()

    medians = defaultdict(list)  # (point, clock used) -> run medians
    walls = defaultdict(list)    # (point, clock) -> per-point wall
    busy = defaultdict(list)     # (point) -> kernel clock's busy medians
    events_in_kernel = defaultdict(list)  # (point) -> events reading inside the kernel-clock runs
    notes = set()
    for path in args.runs:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            notes.add(f"{path}: unreadable ({e})")
            continue
        asked = doc.get("config", {}).get("clock", "?")
        for p in doc.get("points", []):
            if p.get("status") != "ok" or not p.get("stats"):
                notes.add(f"{path}: {p.get('name')} {p.get('status')}: {p.get('reason')}")
                continue
            info = p.get("backend_info", {})
            clock = info.get("clock", "?")
            if asked != "default" and clock != asked:
                notes.add(f"{path}: asked for --clock {asked}, got {clock} ({info.get('kernel_clock_unavailable', '')})")
            medians[(p["name"], clock)].append(p["stats"]["median"])
            walls[(p["name"], clock)].append(p.get("duration", float("nan")))
            kc = info.get("kernel_clock")
            if kc:
                if kc.get("busy_seconds") is not None:
                    busy[p["name"]].append(kc["busy_seconds"])
                if kc.get("events_seconds") is not None:
                    events_in_kernel[p["name"]].append(kc["events_seconds"])
    ncu = ncu_medians(args.ncu)
    process_walls = defaultdict(list)
    if args.walls:
        with open(args.walls) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    process_walls[parts[0]].append(float(parts[1]))

    print("| point | clock | runs | median of run medians (µs) | spread of run medians | wall per point (s) "
          "| ncu gpu__time_duration (µs) | vs ncu | busy (µs) | events in kernel runs (µs) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    points = sorted({k[0] for k in medians}, key=lambda n: (not n.startswith("empty"), len(n), n))
    for point in points:
        for clock in ("kernel", "events"):
            ms = medians.get((point, clock))
            if not ms:
                continue
            med = statistics.median(ms)
            spread = (max(ms) - min(ms)) / med * 100 if med > 0 else float("nan")
            wall = statistics.median(walls[(point, clock)])
            ref = ncu.get(point)
            vs = "-" if ref is None else f"{(med - ref) * 1e6:+.3f} µs ({(med / ref - 1) * 100:+.1f}%)"
            b = us(statistics.median(busy[point])) if clock == "kernel" and busy[point] else "-"
            e = us(statistics.median(events_in_kernel[point])) if clock == "kernel" and events_in_kernel[point] else "-"
            print(f"| {point} | {clock} | {len(ms)} | {us(med)} | {spread:.2f}% | {wall:.3f} | {us(ref)} | {vs} | {b} | {e} |")
    for clock, ws in sorted(process_walls.items()):
        print(f"\nprocess wall, --clock {clock}: median {statistics.median(ws):.2f} s over {len(ws)} processes")
    for n in sorted(notes):
        print(f"note: {n}")


if __name__ == "__main__":
    main()
