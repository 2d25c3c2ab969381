#!/usr/bin/env python3
"""Tables of docs/results/python-h200.md from lab/python/run-h200.sh's output folder (issue 15), computed from
the JSON files. Usage: lab/python/summary.py PYTHON15_DIR [SUITE16_DIR]
SUITE16_DIR (the C++ suite of issue 16, another call) adds the Python-vs-C++ medians by op."""
import collections
import json
import os
import statistics
import sys

out = sys.argv[1]
cpp_suite = sys.argv[2] if len(sys.argv) > 2 else None


def load(name):
    path = os.path.join(out, name + ".json")
    return {p["name"]: p for p in json.load(open(path))["points"]} if os.path.exists(path) else {}


def med_spread(p):
    m = p["process_medians"]
    mid = statistics.median(m)
    return mid, (max(m) - min(m)) / mid


print("## C++ and Python, same work, --processes 3")
print("| point | C++ median | C++ spread | Python median | Python spread | Python / C++ | difference |")
print("|---|---|---|---|---|---|---|")
pairs = (("cpp-copy", "py-copy", "torch copy_"), ("cpp-gemm", "py-gemm", "torch linear"),
         ("cpp-copy-again", "py-copy-handle", "CuPy, stream handle"))
for cpp, py, how in pairs:
    c, p = load(cpp), load(py)
    for name in p:
        q = c.get(name) or c.get(name.replace("memcpy_d2d_handle", "memcpy_d2d"))
        (a, sa), (b, sb) = med_spread(q), med_spread(p[name])
        unit, scale = ("µs", 1e6)
        print(f"| {name} ({how}) | {a * scale:.3f} µs | {sa * 100:.2f}% | {b * scale:.3f} µs | {sb * 100:.2f}% "
              f"| {b / a:.4f} | {(b - a) * 1e9:+.1f} ns |")

print("\n## Wall: JSON duration (per point, warm-up, setup and interleaved turns included)")
print("| run | points | samples | launches | duration, 3 processes | per sample | per launch (window) |")
print("|---|---|---|---|---|---|---|")
for name in ("cpp-copy", "py-copy", "cpp-copy-again", "py-copy-handle", "cpp-gemm", "py-gemm"):
    pts = load(name).values()
    samples = sum(len(p["samples"]) for p in pts)
    launches = sum(len(p["samples"]) * p["number"] for p in pts)
    window = max(p["duration"] for p in pts)  # interleaved points share one window
    print(f"| {name} | {len(pts)} | {samples} | {launches} | {window:.2f} s | {window / samples * 1e3:.2f} ms "
          f"| {window / launches * 1e6:.1f} µs |")

suite_path = os.path.join(out, "suite.json")
if os.path.exists(suite_path):
    suite = json.load(open(suite_path))["points"]
    print("\n## The Python suite through pitot run")
    print("status:", dict(collections.Counter(p["status"] for p in suite)))
    progs = collections.defaultdict(list)
    for p in suite:
        progs[p["program"]].append(p)
    spans = sorted((min(p["started_at"] / 1e3 for p in v), max(p["started_at"] / 1e3 + p["duration"] for p in v), k, v)
                   for k, v in progs.items())
    print("| program | points | first start (s) | points' span | per point | gap before |")
    print("|---|---|---|---|---|---|")
    prev = None
    for s, e, k, v in spans:
        gap = "" if prev is None else f"{s - prev:.1f} s"
        print(f"| {k} | {len(v)} | {s - spans[0][0]:.1f} | {e - s:.1f} s | {(e - s) / len(v):.3f} s | {gap} |")
        prev = e
    print("\n| benchmark | pass | points | clock | median range | samples (median) | stop: ci / time |")
    print("|---|---|---|---|---|---|---|")
    groups = collections.defaultdict(list)
    for p in suite:
        kind = "fwd+bwd" if "pass=fwd+bwd" in p["name"] else ("fwd" if "pass=fwd" in p["name"] else "")
        groups[(p["program"], p["benchmark"], kind)].append(p)
    for (prog, bench, kind), v in sorted(groups.items()):
        meds = [p["stats"]["median"] * 1e6 for p in v]
        clocks = collections.Counter(p["backend_info"].get("clock") for p in v)
        stops = collections.Counter(p["stop_reason"] for p in v)
        print(f"| {bench} | {kind} | {len(v)} | {', '.join(f'{k} {n}' for k, n in clocks.items())} "
              f"| {min(meds):.2f}-{max(meds):.2f} µs | {statistics.median(len(p['samples']) for p in v):.0f} "
              f"| {stops.get('ci', 0)} / {stops.get('time_limit', 0)} |")
    byname = {p["name"]: p for p in suite}
    print("\n## fwd+bwd / fwd of the same shape, by clock")
    ratios = collections.defaultdict(list)
    for p in suite:
        if "pass=fwd+bwd" in p["name"]:
            f = byname[p["name"].replace("pass=fwd+bwd", "pass=fwd")]
            ratios[(p["benchmark"], p["backend_info"].get("clock"))].append(p["stats"]["median"] / f["stats"]["median"])
    for (bench, clock), v in sorted(ratios.items()):
        print(f"| {bench} | {clock} | {len(v)} | {statistics.median(v):.2f} | {min(v):.2f}-{max(v):.2f} |")

    side = os.path.join(out, "sidebyside.jsonl")
    if os.path.exists(side):
        print("\n## Side by side (suite: 1 process; do_bench and torch.utils.benchmark: 5 runs in one process)")
        print("| op | pitot median | pitot 99% CI width | do_bench median | spread of 5 | torch.utils.benchmark median | spread of 5 |")
        print("|---|---|---|---|---|---|---|")
        for line in open(side):
            r = json.loads(line)
            p = {f"{q['program']}.{q['name']}": q for q in suite}.get(r["name"])
            st = p["stats"]
            ci = (st["ci99_hi"] - st["ci99_lo"]) / st["median"]
            db, tb = r.get("do_bench_medians"), r["torch_benchmark_medians"]
            print(f"| {r['name']} | {st['median'] * 1e6:.2f} µs ({p['backend_info'].get('clock')}) | {ci * 100:.2f}% "
                  f"| {statistics.median(db) * 1e6:.2f} µs | {r['do_bench_spread'] * 100:.2f}% "
                  f"| {statistics.median(tb) * 1e6:.2f} µs | {r['torch_benchmark_spread'] * 100:.2f}% |")

    if cpp_suite:
        cpp = {p["name"]: p for p in json.load(open(os.path.join(cpp_suite, "suite.json")))["points"] if p["status"] == "ok"}
        print("\n## Python suite / C++ suite (issue 16's call), same point names")
        for key, v in sorted(groups.items()):
            r = [p["stats"]["median"] / cpp[p["name"]]["stats"]["median"] for p in v if p["name"] in cpp]
            if r:
                print(f"| {key[1]} | {key[2]} | {len(r)} | {statistics.median(r):.3f} | {min(r):.3f}-{max(r):.3f} |")
