# Issue 32's table, from what seed_style.sh wrote in OUT: each seed-style point under the files'
# own driver convention (own-driver-{1,2,3}.log), pitot's default (default-*.json) and
# `--self-timed device` (switch-*.json): the median of the process medians, the process medians,
# and their spread ((max - min) / median). usage: python seed_table.py OUT
import json
import os
import statistics
import sys

out = sys.argv[1]
GOALS = {"SeedGemm": 0.01, "SeedNorm": 0.03}  # issue 32: spread of process medians


def own_driver():
    """{point: [process medians]} from the three own-driver runs (the last line of each log)."""
    runs = []
    for i in (1, 2, 3):
        path = os.path.join(out, f"own-driver-{i}.log")
        try:
            runs.append(json.loads(open(path).read().strip().splitlines()[-1]))
        except (OSError, ValueError, IndexError) as e:
            print(f"{path}: {e}")
    return {name: [r[name] for r in runs if name in r] for name in (runs[0] if runs else {})}


def pitot(kind):
    """{point: (process medians, convention, clock)} from default-*.json or switch-*.json."""
    rows = {}
    for f in ("gemm", "norm"):
        path = os.path.join(out, f"{kind}-{f}.json")
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: {e}")
            continue
        for p in doc["points"]:
            info = p.get("backend_info", {})
            if p["status"] != "ok":
                print(f"{kind} {p['name']}: {p['status']}: {p.get('reason', '')}")
                continue
            rows[p["name"]] = (p.get("process_medians") or [p["stats"]["median"]], info.get("convention"),
                               info.get("clock", "-"))
    return rows


def line(name, how, medians, convention=None, clock=None):
    if not medians:
        return f"| {name} | {how} | - | - | - | |"
    med = statistics.median(medians)
    spread = (max(medians) - min(medians)) / med
    goal = GOALS[name.split(".")[0]]
    shown = ", ".join(f"{m * 1e6:.1f}" for m in medians)
    how = how if convention is None else f"{how} ({convention}, clock {clock})"
    return (f"| {name} | {how} | {med * 1e6:.1f} | {shown} | {spread:.2%} | "
            f"{'<=' if spread <= goal else '>'} {goal:.0%} |")


own, default, switch = own_driver(), pitot("default"), pitot("switch")
print("| point | convention | median of process medians (us) | process medians (us) | spread | goal |")
print("|---|---|---|---|---|---|")
for name in sorted(set(own) | set(default) | set(switch)):
    print(line(name, "the files' own driver: median of 20 after 10 warm-ups", own.get(name, [])))
    print(line(name, "pitot default", *default.get(name, ([], "-", "-"))))
    print(line(name, "pitot --self-timed device", *switch.get(name, ([], "-", "-"))))
