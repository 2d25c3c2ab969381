#!/usr/bin/env python3
"""Summarizes lab/card/run-h200.sh's folder: energy per call per point across the runs (one
process each), its average watts beside nvidia-smi's power reading over the same seconds, time
medians with the energy phase on and off, the card's state per point, the guard's wait and the
cooling curve. Usage: summary.py OUT_DIR"""
import csv
import glob
import json
import os
import statistics
import sys
import time

folder = sys.argv[1] if len(sys.argv) > 1 else "."


def points(path):
    try:
        return {p["name"]: p for p in json.load(open(path))["points"] if p.get("status") == "ok"}
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: unreadable ({e})")
        return {}


def track(p, name):
    for t in p.get("tracks", []):
        if t["name"] == name:
            return t["value"]
    return None


def smi_rows(path):
    """(unix seconds, sm MHz, temperature C, power W) from nvidia-smi's CSV."""
    rows = []
    for r in csv.reader(open(path)):
        try:
            stamp = time.mktime(time.strptime(r[0].strip().split(".")[0], "%Y/%m/%d %H:%M:%S"))
            stamp += float("0." + r[0].strip().split(".")[1]) if "." in r[0] else 0
            rows.append((stamp, float(r[1].split()[0]), float(r[3]), float(r[4].split()[0])))
        except (ValueError, IndexError):
            continue
    return rows


on = [points(f) for f in sorted(glob.glob(os.path.join(folder, "energy-on-*.json")))]
off = [points(f) for f in sorted(glob.glob(os.path.join(folder, "energy-off-*.json")))]
offseq = [points(f) for f in sorted(glob.glob(os.path.join(folder, "energy-offseq-*.json")))]
smi = smi_rows(os.path.join(folder, "smi-run.csv")) if os.path.exists(os.path.join(folder, "smi-run.csv")) else []
names = sorted(set().union(*[set(r) for r in on])) if on else []
print(f"\nEnergy per call, {len(on)} runs of one process each (--energy 1), and time medians on/off ({len(off)} off runs)")
print(f"{'point':45} {'J/call median':>13} {'spread':>8} {'W (pitot)':>10} {'W (smi)':>8} {'time on/off':>11} {'on/offseq':>9} {'SM MHz':>7} {'max C':>6}")
for n in names:
    joules = [track(r[n], "energy_joules_per_call") for r in on if n in r]
    joules = [j for j in joules if j]
    watts = [track(r[n], "energy_watts") for r in on if n in r]
    watts = [w for w in watts if w]
    smi_w = []
    for r in on:
        if n not in r:
            continue
        e = r[n].get("backend_info", {}).get("energy", {})
        # The window ends where the cool-back after it starts (the point's last act).
        end = r[n]["started_at"] / 1000.0 + r[n]["duration"] - e.get("cooled_seconds", 0)
        smi_w += [w for (t, _, _, w) in smi if end - e.get("window_seconds", 1.0) <= t <= end]
    t_on = [r[n]["stats"]["median"] for r in on if n in r and r[n].get("stats")]
    t_off = [r[n]["stats"]["median"] for r in off if n in r and r[n].get("stats")]
    ratio = statistics.median(t_on) / statistics.median(t_off) if t_on and t_off else float("nan")
    t_seq = [r[n]["stats"]["median"] for r in offseq if n in r and r[n].get("stats")]
    ratio_seq = statistics.median(t_on) / statistics.median(t_seq) if t_on and t_seq else float("nan")
    clock = [track(r[n], "card_sm_clock_mhz") for r in on + off if n in r]
    temp = [track(r[n], "card_temperature_c") for r in on + off if n in r]
    jm = statistics.median(joules) if joules else float("nan")
    spread = (max(joules) - min(joules)) / jm if joules else float("nan")
    print(f"{n:45} {jm:13.4g} {spread:8.2%} {statistics.median(watts) if watts else float('nan'):10.1f} "
          f"{statistics.median(smi_w) if smi_w else float('nan'):8.1f} {ratio:11.4f} {ratio_seq:9.4f} "
          f"{statistics.median([c for c in clock if c]) if any(clock) else float('nan'):7.0f} "
          f"{max([c for c in temp if c]) if any(temp) else float('nan'):6.0f}")
for r in on[:1]:
    for n, p in sorted(r.items()):
        e = p.get("backend_info", {}).get("energy")
        c = p.get("backend_info", {}).get("card")
        print(f"  {n}: energy {json.dumps(e)}\n    card {json.dumps(c)}")
guard = points(os.path.join(folder, "guard.json"))
for n, p in guard.items():
    print(f"guard: {n}: {json.dumps(p.get('backend_info', {}).get('card', {}).get('cool_down'))}")
cooling = os.path.join(folder, "cooling.csv")
if os.path.exists(cooling):
    rows = smi_rows(cooling)
    if rows:
        t0 = rows[0][0]
        print("cooling (s, C, W): " + ", ".join(f"{t - t0:.0f}:{c:.0f}:{w:.0f}" for t, _, c, w in rows[::4]))
