#!/usr/bin/env python3
"""Compare's floor of samples a side against pitot ab's looks (issue 33), offline: the sides of a
whole-suite ab (`--json-dir`: base.json and head.json, every sample kept with its process and
clock) cut to the first N processes a side and compared by the real `pitot compare` (per clock,
1%, the look's share of the error rates) with `--min-samples 5` (compare's default) and 2 (ab's
since the sixth whole-suite run). A point whose one sample outlasts ab's lean --max-time has one
sample a process, so 5 a side held it undecided until the third look.

usage: lab/compare/min_samples_offline.py PITOT SIDES_DIR OUT_DIR"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from first_k_offline import compare_look, write_cut  # noqa: E402

pitot, sides, out = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
docs = {s: json.load(open(os.path.join(sides, s + ".json"))) for s in ("base", "head")}
for n, share in ((2, 0.5), (4, 0.125), (0, 0.125)):  # the first look, the second, every process
    paths = write_cut(docs, 0, n, out, str(n))
    for floor in (5, 2):
        rows = [x for x in compare_look(pitot, paths, share, floor)["points"] if not x["name"].startswith("bench_spin.")]
        held = sum("too few samples" in (x.get("note") or "") for x in rows)
        print(f"{n or 'all'} processes a side, share {share}, --min-samples {floor}: "
              f"{dict(collections.Counter(x['verdict'] for x in rows))}; too few samples: {held}", flush=True)
