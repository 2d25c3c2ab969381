#!/usr/bin/env python3
"""Merge one mode's rounds of lab/untrusted/suite-h200.sh into one run of several processes (a
round a process), keeping each sample's clock ratio, so `pitot compare` (and --per-clock) reads
them as a multi-process run: what merge_processes (src/core/result.cpp) does inside `pitot run
--processes`, here for runs written to separate files.
usage: merge_rounds.py SUITE_DIR MODE ROUNDS OUT_JSON   (ROUNDS: 1,2,3 or all)"""
import glob, json, os, re, sys

src, mode, which, out = sys.argv[1:5]
paths = sorted(glob.glob(os.path.join(src, f"*-{mode}-*.json")), key=lambda p: int(re.search(r"-(\d+)\.json$", p).group(1)))
rounds = sorted({int(re.search(r"-(\d+)\.json$", p).group(1)) for p in paths})
keep = rounds if which == "all" else [int(r) for r in which.split(",")]
merged, benchmarks = {}, {}
for path in paths:
    r = int(re.search(r"-(\d+)\.json$", path).group(1))
    if r not in keep:
        continue
    process = keep.index(r)
    doc = json.load(open(path))
    for b in doc.get("benchmarks", []):
        benchmarks[(b.get("program"), b.get("name"))] = b
    for p in doc["points"]:
        key = (p["program"], p["name"])
        samples = p.get("samples") if isinstance(p.get("samples"), list) else []
        clocks = p.get("clock_ratios") if isinstance(p.get("clock_ratios"), list) else []
        if key not in merged:
            merged[key] = {k: v for k, v in p.items() if k not in ("stats", "clock_ratios", "process_medians")}
            merged[key].update(samples=[], sample_process=[], clock_ratios=[])
        elif p["status"] != "ok":
            merged[key]["status"], merged[key]["reason"] = p["status"], p.get("reason", "")
        m = merged[key]
        m["samples"] += samples
        m["sample_process"] += [process] * len(samples)
        # A round without a clock for every sample leaves the point with none: compared by time.
        m["clock_ratios"] = m["clock_ratios"] + clocks if m["clock_ratios"] is not None and len(clocks) == len(samples) else None
for m in merged.values():
    if not m["clock_ratios"]:
        del m["clock_ratios"]
json.dump({"benchmarks": list(benchmarks.values()), "points": list(merged.values())}, open(out, "w"))
