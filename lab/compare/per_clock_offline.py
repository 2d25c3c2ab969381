#!/usr/bin/env python3
"""pitot compare --per-clock on real GPU runs, offline (issue 33): the processes of a no-change
experiment (one pitot JSON per process, raw samples and clock_ratios kept) split into a base half
and a head half, pooled as `pitot run --processes` writes them, then compared by time and per clock.

usage: lab/compare/per_clock_offline.py PITOT OUT_DIR PROCESS_JSON...   (an even count, in run order;
  the odd-numbered ones go to base, the even-numbered ones to head, as ab alternates them)"""
import json
import os
import subprocess
import sys


def pooled(paths):
    points = {}
    for k, path in enumerate(paths):
        for p in json.load(open(path))["points"]:
            if p.get("status") != "ok" or len(p.get("clock_ratios") or []) != len(p.get("samples") or []):
                continue
            q = points.setdefault(p["name"], dict(p, samples=[], clock_ratios=[], sample_process=[]))
            q["samples"] += p["samples"]
            q["clock_ratios"] += p["clock_ratios"]
            q["sample_process"] += [k] * len(p["samples"])
    for q in points.values():
        q.pop("stats", None)  # the pooled median is the samples'
    doc = json.load(open(paths[0]))
    return dict(doc, points=list(points.values()))


def main():
    if len(sys.argv) < 5 or (len(sys.argv) - 3) % 2:
        sys.exit(__doc__)
    pitot, out, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    for side, paths in (("base", runs[0::2]), ("head", runs[1::2])):
        json.dump(pooled(paths), open(os.path.join(out, side + ".json"), "w"))
    for label, extra in (("by time", []), ("per clock", ["--per-clock"])):
        r = subprocess.run([pitot, "compare", os.path.join(out, "base.json"), os.path.join(out, "head.json"),
                            "--threshold", "1%", "--json"] + extra, capture_output=True, text=True)
        rows = json.loads(r.stdout)["points"]
        verdicts = {}
        for row in rows:
            verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
        used = sum(1 for row in rows if row["noise"].get("per_clock"))
        print(f"{label}: exit {r.returncode}, {len(rows)} points, {verdicts}, compared per clock: {used}")


if __name__ == "__main__":
    main()
