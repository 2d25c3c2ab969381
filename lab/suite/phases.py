#!/usr/bin/env python3
"""Where a suite run's time went (issue 33, item 3), from `pitot run --json` reports.

For each program: its points, their summed wall (duration), and that wall split by the phases
every timed point records in backend_info["phases"] (setup, warm-up, sampling, finish, teardown),
the device time of the cache flushes inside sampling (backend_info["flushes"]), the host's time
inside sampling on a GPU (backend_info["sampler_costs"]: queueing batches, waiting for the device,
reading the kernel clock's records and the card), and, when the
run's cost file is given, the process's start and exit beyond its points. Per point class (the
program and benchmark) too, with --by-benchmark.

usage: phases.py REPORT.json [REPORT.json ...] [--costs costs.json] [--by-benchmark]
"""
import argparse
import collections
import json
import sys

PHASES = ["setup", "warmup", "sampling", "deciding", "finish", "teardown"]
SAMPLER = ["queue", "wait", "clock_read", "card_read"]  # backend_info["sampler_costs"], inside sampling


def rows(reports, by_benchmark):
    sums = collections.defaultdict(lambda: collections.Counter())
    for path in reports:
        with open(path) as f:
            doc = json.load(f)
        for p in doc.get("points", []):
            key = p["program"] + ("." + p["benchmark"] if by_benchmark else "")
            s = sums[key]
            s["points"] += 1
            s[p.get("status", "ok")] += 1
            s["duration"] += p.get("duration", 0.0)
            info = p.get("backend_info", {})
            for name in PHASES:
                s[name] += info.get("phases", {}).get(name + "_seconds", 0.0)
            s["flush"] += info.get("flushes", {}).get("device_seconds", 0.0)
            for name in SAMPLER:
                s[name] += info.get("sampler_costs", {}).get(name + "_seconds", 0.0)
            s["samples"] += len(p.get("samples", [])) or (p.get("stats") or {}).get("n", 0)
    return sums


def process_seconds(costs_path):
    if not costs_path:
        return {}
    with open(costs_path) as f:
        doc = json.load(f)
    out = {}
    for e in doc.get("programs", []):
        name = e.get("program")
        out[name] = out.get(name, 0.0) + e.get("process_seconds", 0.0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--costs")
    ap.add_argument("--by-benchmark", action="store_true")
    a = ap.parse_args()
    sums = rows(a.reports, a.by_benchmark)
    start = process_seconds(a.costs)
    cols = ["points", "duration"] + PHASES + ["flush"] + SAMPLER + ["samples"]
    print("| what | " + " | ".join(cols) + (" | process start+exit |" if start else " |"))
    print("|---" * (len(cols) + 1 + bool(start)) + "|")
    total = collections.Counter()
    for key in sorted(sums, key=lambda k: -sums[k]["duration"]):
        s = sums[key]
        total.update(s)
        cells = [str(s["points"])] + [f"{s[c]:.1f}" for c in cols[1:-1]] + [str(s["samples"])]
        extra = f" {start.get(key, 0.0):.1f} |" if start else ""
        print(f"| {key} | " + " | ".join(cells) + " |" + extra)
    cells = [str(total["points"])] + [f"{total[c]:.1f}" for c in cols[1:-1]] + [str(total["samples"])]
    print("| all | " + " | ".join(cells) + " |" + (f" {sum(start.values()):.1f} |" if start else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
