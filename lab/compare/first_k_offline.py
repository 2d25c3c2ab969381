#!/usr/bin/env python3
"""What a cap on each process's samples would do to pitot ab's verdicts (issue 33), offline: the
sides of a whole-suite ab (`--json-dir`: base.json and head.json, every sample kept with its
process and clock) cut to each process's first K samples and to the first N processes a side,
then compared by the real `pitot compare` (--threshold 1%, by time and --per-clock). N = 2 is the
first look. Also the spread between processes of the point medians at each K, and the samples a
point took (the sampling a cap would save).

usage: lab/compare/first_k_offline.py PITOT SIDES_DIR OUT_DIR [--k 3,5,10,0] [--processes 2,0]
  (K or N 0: all)"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys


def cut(doc, k, n):
    points = []
    for p in doc["points"]:
        t, r, proc = p.get("samples") or [], p.get("clock_ratios") or [], p.get("sample_process") or []
        if p.get("status") != "ok" or not (len(t) == len(proc) > 0):
            continue
        clocked = len(r) == len(t)  # a GPU point's clock over each sample; none on the CPU
        r = r if clocked else [1.0] * len(t)
        order = list(dict.fromkeys(proc))  # the processes in the order they ran
        keep = set(order[:n] if n else order)
        taken = collections.Counter()
        q = dict(p, samples=[], clock_ratios=[], sample_process=[])
        for v, c, s in zip(t, r, proc):
            if s in keep and (not k or taken[s] < k):
                taken[s] += 1
                q["samples"].append(v)
                q["clock_ratios"].append(c)
                q["sample_process"].append(s)
        for key in ("stats", "process_medians"):
            q.pop(key, None)  # recomputed from the samples kept
        if not clocked:
            del q["clock_ratios"]
        points.append(q)
    return dict(doc, points=points)


def write_cut(docs, k, n, out, tag):
    """Both sides cut (`cut`) and written to OUT/base-TAG.json and OUT/head-TAG.json; their paths."""
    paths = {}
    for side, doc in docs.items():
        paths[side] = os.path.join(out, f"{side}-{tag}.json")
        with open(paths[side], "w") as f:
            json.dump(cut(doc, k, n), f)
    return paths


def compare_look(pitot, paths, share, min_samples):
    """The real `pitot compare` of a look, as pitot ab judges it (per clock, 1%, the look's share of
    the error rates): its JSON report. Exits on any failure but 0 and 1."""
    r = subprocess.run([pitot, "compare", paths["base"], paths["head"], "--threshold", "1%", "--per-clock",
                        "--look-share", str(share), "--min-samples", str(min_samples), "--json"],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"pitot compare failed ({r.returncode}): {r.stderr}")
    return json.loads(r.stdout)


def spread(doc):
    """Median over points of the relative sd of per-process medians (by time, per clock)."""
    out = {"time": [], "clock": []}
    for p in doc["points"]:
        by = collections.defaultdict(list)
        for v, c, s in zip(p["samples"], p.get("clock_ratios") or [1.0] * len(p["samples"]), p["sample_process"]):
            by[s].append((v, v * c))
        if len(by) < 2:
            continue
        for i, key in enumerate(("time", "clock")):
            m = [statistics.median(x[i] for x in v) for v in by.values()]
            out[key].append(statistics.stdev(m) / statistics.mean(m))
    return {key: statistics.median(v) if v else float("nan") for key, v in out.items()}


def main():
    a = argparse.ArgumentParser(usage=__doc__)
    a.add_argument("pitot")
    a.add_argument("sides")
    a.add_argument("out")
    a.add_argument("--k", default="3,5,10,0")
    a.add_argument("--processes", default="2,0")
    args = a.parse_args()
    os.makedirs(args.out, exist_ok=True)
    docs = {side: json.load(open(os.path.join(args.sides, side + ".json"))) for side in ("base", "head")}
    samples = [len(p.get("samples") or []) / max(1, len(set(p.get("sample_process") or [0])))
               for p in docs["base"]["points"] if p.get("status") == "ok"]
    print(f"samples a point a process (base): median {statistics.median(samples):.1f}, mean {statistics.mean(samples):.1f}")
    for n in (int(x) for x in args.processes.split(",")):
        for k in (int(x) for x in args.k.split(",")):
            tag = f"n{n or 'all'}-k{k or 'all'}"
            paths = write_cut(docs, k, n, args.out, tag)
            s = spread(json.load(open(paths["base"])))
            line = [f"{tag}: spread of process medians by time {100 * s['time']:.2f}%, per clock {100 * s['clock']:.2f}%"]
            for label, extra in (("by time", []), ("per clock", ["--per-clock"])):
                r = subprocess.run([args.pitot, "compare", paths["base"], paths["head"], "--threshold", "1%", "--json"]
                                   + extra, capture_output=True, text=True)
                rows = json.loads(r.stdout)["points"] if r.stdout.strip() else []
                spin = collections.Counter(x["verdict"] for x in rows if "spin_kernel" in x["name"])
                rest = collections.Counter(x["verdict"] for x in rows if "spin_kernel" not in x["name"])
                line.append(f"  {label}: exit {r.returncode}; unchanged points {dict(rest)}; spin {dict(spin)}")
            print("\n".join(line), flush=True)


if __name__ == "__main__":
    main()
