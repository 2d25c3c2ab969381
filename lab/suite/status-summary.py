#!/usr/bin/env python3
"""Summarize a `pitot run --json` of the bundled GPU suite: points by status and by clock, the
declines of the kernel clock, failures with their reasons, and wall time per program."""
import collections
import json
import sys

doc = json.load(open(sys.argv[1]))
points = doc["points"]
status = collections.Counter(p["status"] for p in points)
clock = collections.Counter((p["program"], p.get("backend_info", {}).get("clock", "-")) for p in points)
print(f"{len(points)} points: {dict(status)}")
for (program, c), n in sorted(clock.items()):
    print(f"  {program}: {c} {n}")
for p in points:
    if p["status"] == "failed":
        print(f"FAILED {p['program']}.{p['name']}: {p.get('reason', '')[:300]}")
dur = collections.defaultdict(float)
for p in points:
    dur[p["program"]] += p.get("duration", 0) or 0
print("point seconds by program:", {k: round(v, 1) for k, v in dur.items()})
