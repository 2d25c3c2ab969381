#!/usr/bin/env python3
"""Each point's own clock elasticity against its benchmark's alone (issue 33), offline: the sides of
a whole-suite ab (`--json-dir`: base.json and head.json, every sample kept with its process and
clock) cut to the first N processes a side and compared per clock by two `pitot compare` builds
(1%, the look's share of the error rates, ab's --min-samples 2): OLD fits one elasticity per
benchmark, NEW weighs each point's within-process fit against it. Verdicts per look, and the
unchanged per benchmark where the two differ.

With --head-scale S every head sample is S times longer (a change of known size on real noise):
the slower share says what each rule can still call.

usage: lab/compare/point_elasticity_offline.py OLD_PITOT NEW_PITOT SIDES_DIR OUT_DIR [--head-scale S]"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from first_k_offline import compare_look, write_cut  # noqa: E402

old, new, sides, out = sys.argv[1:5]
scale = float(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[5] == "--head-scale" else 1.0
os.makedirs(out, exist_ok=True)
docs = {s: json.load(open(os.path.join(sides, s + ".json"))) for s in ("base", "head")}
for p in docs["head"]["points"]:
    p["samples"] = [v * scale for v in p.get("samples") or []]
    p.pop("stats", None)
    p.pop("process_medians", None)
for n, share in ((2, 0.5), (4, 0.125), (6, 0.125)):  # the first look, the second, the third
    paths = write_cut(docs, 0, n, out, str(n))
    by = {}
    for label, pitot in (("old", old), ("new", new)):
        points = compare_look(pitot, paths, share, 2)["points"]
        rows = [x for x in points if not x["name"].startswith("bench_spin.")]
        spin = [x["verdict"] for x in points if x["name"].startswith("bench_spin.")]
        by[label] = {x["name"]: x for x in rows}
        print(f"{n} processes a side, share {share}, {label}: "
              f"{dict(collections.Counter(x['verdict'] for x in rows))}; spin {spin}", flush=True)
    gained = collections.Counter()
    for name, x in by["new"].items():
        y = by["old"].get(name)
        if y and x["verdict"] != y["verdict"]:
            gained[(name.split("[")[0], y["verdict"] + " -> " + x["verdict"])] += 1
    for (bench, change), count in sorted(gained.items()):
        print(f"    {bench}: {change}: {count}")
