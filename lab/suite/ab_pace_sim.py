#!/usr/bin/env python3
"""pitot ab's looks replayed offline: today's lockstep rounds against programs at their own pace.

usage: ab_pace_sim.py PITOT MEDIANS_CSV COSTS_JSON [--seeds N] [--walls 300,540,600] [--fraction F ...]
                     [--scale PROGRAM=VARIANCE,COST ...] [--reopen]
       ab_pace_sim.py PITOT MEDIANS_CSV COSTS_JSON --replay [--by-time]

Reads a whole-suite ab's medians.csv and costs.json (lab/suite/whole-suite-ab-h200.sh) and, for
each schedule, draws processes of a no-change A/B from each point's own spread and lets the real
`pitot compare` decide every look (--per-clock, 1%, 0.999, the look's share of the error rates, as
pitot ab does). A process of a program costs its process_seconds plus its undecided points'
seconds from costs.json. Prints, per schedule and wall, the points called unchanged (of the
non-spin points) and any called slower or faster (false calls).

Schedules:
  lockstep    what pitot ab does today: a round is one process of every program with undecided
              points, both sides; every program looks at 2, 4, 6, 10, 12 processes a side.
  pace F      each program at its own looks: in a round a program runs as many processes a side as
              fit in F times the costliest program's process of that round (at least one, never
              past its next look), so cheap programs reach later looks while GEMM is still early.

--scale models longer sampling of one program's processes: its variance between processes per
clock times VARIANCE, its points' seconds times COST (gemm_bf16 at --max-time 0.12 against 0.03:
bench_gemm=0.36,1.9, docs/results/whole-suite-ab.md, "Longer sampling a process pays per clock").

--reopen looks at every point again at each look, as pitot ab did before 83d7b21 (since, a point
called unchanged keeps it; a slower or faster one is run again and kept when the next look calls
it so again).

--replay draws nothing: the run's own processes, in their order, go through its looks (2 a side,
then 4 where the run has them), once as the run's ab looked (every point again at each look) and
once keeping each point's first "unchanged"; --by-time compares the process times (a process's
time per clock over its clock), not per clock.

The model (a point's processes drawn log-normal around one centre, both sides alike, its spread
shrunk toward its program's median point's) is kinder than a real card: no drift between sides, no per-process
offsets shared by a program's points. Read its counts against each other, not as a forecast.
"""
import argparse
import collections
import csv
import json
import math
import os
import random
import subprocess
import statistics
import sys
import tempfile

LOOKS = [2, 4, 6, 10, 12]
SHARES = [0.5] + [0.5 / (len(LOOKS) - 1)] * (len(LOOKS) - 1)  # ab/schedule.cpp, look_shares
SAMPLES_PER_PROCESS = 5  # compare wants 5 samples a side; their own spread is small beside a process's


def log_spread(values):
    logs = [math.log(v) for v in values]
    m = sum(logs) / len(logs)
    return sum((x - m) ** 2 for x in logs), len(logs) - 1, m


class Point:
    """One point's model: a centre and a spread between processes, per clock and of the clock."""

    def __init__(self, program, name, per_clock, clocks):
        self.program, self.name = program, name
        self.ss_pc, self.df_pc, self.mu_pc = log_spread(per_clock)
        self.ss_clock, self.df_clock, self.mu_clock = log_spread(clocks)
        self.sd_pc = self.sd_clock = 0.0


def load_points(path):
    by_name = collections.defaultdict(lambda: {"pc": [], "clocks": []})
    for row in csv.DictReader(open(path)):
        if row["status"] != "ok" or not row["process_per_clock"] or row["point"].startswith("bench_spin."):
            continue
        d = by_name[row["point"]]
        d["pc"] += [float(x) for x in row["process_per_clock"].split()]
        d["clocks"] += [float(x) for x in row["process_clocks"].split()]
    points = [Point(n.split(".", 1)[0], n.split(".", 1)[1], d["pc"], d["clocks"])
              for n, d in sorted(by_name.items()) if len(d["pc"]) >= 4]
    # Each point's spread shrunk toward its program's typical one (the median point's variance, as
    # a mean would be led by a few heavy-tailed points), with a prior of 4 degrees of freedom.
    for prog in {p.program for p in points}:
        mine = [p for p in points if p.program == prog]
        for attr in ("pc", "clock"):
            s2 = statistics.median(getattr(p, "ss_" + attr) / getattr(p, "df_" + attr) for p in mine)
            for p in mine:
                setattr(p, "sd_" + attr, math.sqrt((getattr(p, "ss_" + attr) + 4 * s2) / (getattr(p, "df_" + attr) + 4)))
    return points


def load_costs(path):
    doc = json.load(open(path))
    start, per_point = collections.defaultdict(list), collections.defaultdict(list)
    for prog in doc["programs"]:
        name = os.path.basename(prog["path"])
        start[name].append(prog["process_seconds"])
        for point, s in prog["points"].items():
            per_point[(name, point)].append(s)
    return ({k: sum(v) / len(v) for k, v in start.items()},
            {k: sum(v) / len(v) for k, v in per_point.items()})


class Sim:
    def __init__(self, pitot, points, costs, seed, reopen=False, by_time=False):
        self.pitot, self.points, self.reopen, self.by_time = pitot, points, reopen, by_time
        self.start, self.point_cost = costs
        self.rng = random.Random(seed)
        self.draws = {(p.name, side): [] for p in points for side in ("base", "head")}
        self.verdict = {p.name: "inconclusive" for p in points}
        self.kept = set()  # unchanged, or a change called at two looks in a row (ab/schedule.hpp, Kept)
        self.wall = 0.0

    def process(self, program, names):
        """One process a side of `program` over `names` (both sides); returns its seconds."""
        cost = 0.0
        for side in ("base", "head"):
            cost += self.start.get(program, 0.35)
            for p in self.points:
                if p.program == program and p.name in names:
                    pc = math.exp(self.rng.gauss(p.mu_pc, p.sd_pc))
                    clock = math.exp(self.rng.gauss(p.mu_clock, p.sd_clock))
                    self.draws[(p.name, side)].append((pc, clock))
                    cost += self.point_cost.get((program, p.name), 0.0)
        self.wall += cost
        return cost

    def side_json(self, side, path):
        programs = collections.defaultdict(list)
        for p in self.points:
            draws = self.draws[(p.name, side)]
            if not draws:
                continue
            samples, ratios, process = [], [], []
            for k, (pc, clock) in enumerate(draws):
                for _ in range(SAMPLES_PER_PROCESS):
                    r = clock * math.exp(0.0005 * self.rng.gauss(0, 1))
                    samples.append(pc / r * math.exp(0.0005 * self.rng.gauss(0, 1)))
                    ratios.append(r)
                    process.append(k)
            programs[p.program].append({"program": p.program, "benchmark": p.name.split("[", 1)[0], "name": p.name,
                                        "status": "ok", "unit": "seconds", "samples": samples,
                                        "clock_ratios": ratios, "sample_process": process})
        with open(path, "w") as f:
            json.dump({"programs": [{"program": k, "points": v} for k, v in programs.items()]}, f)

    def look(self, share, programs):
        """The verdicts of `programs`' points at this share of the error rates, by the real compare."""
        with tempfile.TemporaryDirectory() as d:
            base, head = os.path.join(d, "base.json"), os.path.join(d, "head.json")
            self.side_json("base", base)
            self.side_json("head", head)
            by = [] if self.by_time else ["--per-clock"]
            r = subprocess.run([self.pitot, "compare", base, head, *by, "--threshold", "1%",
                                "--confidence", "0.999", "--look-share", repr(share), "--json"],
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):
                sys.exit(f"pitot compare failed ({r.returncode}): {r.stderr}")
            rows = json.loads(r.stdout)["points"]
        for row in rows:
            program, name = row["name"].split(".", 1)
            name = name.replace(" ", "").replace("'", "")  # compare shows values as Python reprs
            # A point called unchanged keeps that verdict, and a change called again at the next
            # look, on new processes, keeps it (pitot ab's keep_verdicts); --reopen models the ab
            # before either, which looked at every point again.
            if program not in programs or name not in self.verdict or (name in self.kept and not self.reopen):
                continue
            before, now = self.verdict[name], row["verdict"]
            self.verdict[name] = now
            if now == "unchanged" or (now in ("slower", "faster") and now == before):
                self.kept.add(name)

    def undecided(self, program):
        # the undecided, and the changes called once (run again to confirm them)
        return {p.name for p in self.points if p.program == program and p.name not in self.kept
                and self.verdict[p.name] != "unchanged"}

    def counts(self):
        c = collections.Counter(self.verdict.values())
        return c["unchanged"], c["slower"] + c["faster"]


def run(sim, fraction, walls):
    """One no-change ab; returns {wall: (unchanged, false calls)} as of the last look before it."""
    programs = sorted({p.program for p in sim.points})
    done = {k: 0 for k in programs}        # processes a side
    look_at = {k: 0 for k in programs}     # index into LOOKS of the next look
    pending = {k: sim.undecided(k) for k in programs}
    out, history = {}, [(0.0, (0, 0))]
    while any(pending[k] and look_at[k] < len(LOOKS) for k in programs):
        active = [k for k in programs if pending[k] and look_at[k] < len(LOOKS)]
        cost = {k: sim.start.get(k, 0.35) + sum(sim.point_cost.get((k, n), 0.0) for n in pending[k])
                for k in active}
        top = max(cost.values())
        looking = collections.defaultdict(list)
        for k in active:
            room = LOOKS[look_at[k]] - done[k]
            m = 1 if fraction is None else max(1, min(room, int(fraction * top / cost[k])))
            for _ in range(m):
                sim.process(k, pending[k])
            done[k] += m
            if done[k] >= LOOKS[look_at[k]]:
                looking[SHARES[look_at[k]]].append(k)
                look_at[k] += 1
        for share, ks in looking.items():
            sim.look(share, set(ks))
            for k in ks:
                pending[k] = sim.undecided(k)
        history.append((sim.wall, sim.counts()))
    for w in walls:
        out[w] = [c for t, c in history if t <= w][-1]
    out["end"] = (history[-1][0], history[-1][1])
    return out


def replay(pitot, path, costs, by_time=False):
    """The run's own processes through its first two looks, unchanged points reopened or kept."""
    real = collections.defaultdict(dict)
    for row in csv.DictReader(open(path)):
        if row["status"] == "ok" and row["process_per_clock"] and not row["point"].startswith("bench_spin."):
            pc = [float(x) for x in row["process_per_clock"].split()]
            clocks = [float(x) for x in row["process_clocks"].split()]
            real[row["point"]][row["side"]] = list(zip(pc, clocks))
    points = [Point(n.split(".", 1)[0], n.split(".", 1)[1], [1], [1]) for n in sorted(real)]
    for reopen in (True, False):
        sim = Sim(pitot, points, costs, 0, reopen, by_time)
        for look, n in enumerate(LOOKS[:2]):
            for p in points:
                if p.name not in sim.kept or reopen:
                    for side in ("base", "head"):
                        sim.draws[(p.name, side)] = real[p.program + "." + p.name][side][:n]
            sim.look(SHARES[look], {p.program for p in points})
            c = collections.Counter(sim.verdict.values())
            print(f"{'reopened' if reopen else 'kept':9} look {look + 1} ({n} a side where the run has them): "
                  f"{c['unchanged']} unchanged, {c['slower'] + c['faster']} slower or faster, "
                  f"{c['inconclusive']} inconclusive", flush=True)
            if not reopen:  # where the undecided points are, by benchmark
                open_by = collections.Counter(p.name.split("[")[0] for p in points if sim.verdict[p.name] == "inconclusive")
                print("          undecided by benchmark:", ", ".join(f"{k} {v}" for k, v in sorted(open_by.items())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pitot")
    ap.add_argument("medians")
    ap.add_argument("costs")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--walls", default="300,540,600")
    ap.add_argument("--fraction", type=float, action="append", default=[])
    ap.add_argument("--scale", action="append", default=[])
    ap.add_argument("--reopen", action="store_true", help="decided points looked at again at every look")
    ap.add_argument("--replay", action="store_true", help="the run's own processes, not draws")
    ap.add_argument("--by-time", action="store_true", help="with --replay: compare by time, not per clock")
    a = ap.parse_args()
    if a.replay:
        return replay(a.pitot, a.medians, load_costs(a.costs), a.by_time)
    points = load_points(a.medians)
    costs = load_costs(a.costs)
    for spec in a.scale:
        program, factors = spec.split("=")
        variance, cost = (float(x) for x in factors.split(","))
        for p in points:
            if p.program == program:
                p.sd_pc *= math.sqrt(variance)
        for key in costs[1]:
            if key[0] == program:
                costs[1][key] *= cost
    walls = [float(w) for w in a.walls.split(",")]
    print(f"{len(points)} points; programs: {dict(collections.Counter(p.program for p in points))}")
    for fraction in [None] + a.fraction:
        label = "lockstep" if fraction is None else f"pace {fraction:g}"
        results = [run(Sim(a.pitot, points, costs, seed, a.reopen), fraction, walls) for seed in range(a.seeds)]
        cells = [f"{w:g} s: " + " ".join(f"{r[w][0]}/{r[w][1]}" for r in results) for w in walls]
        ends = " ".join(f"{r['end'][0]:.0f} s {r['end'][1][0]}/{r['end'][1][1]}" for r in results)
        print(f"{label:12} unchanged/false by wall: {'; '.join(cells)}; at the end: {ends}", flush=True)


if __name__ == "__main__":
    main()
