#!/usr/bin/env bash
# The whole bundled suite through `pitot ab` with its default options (issue 33, item 1), on the
# GPU machine in one call (by hand, not in CI). Base: the suite's six programs and bench_spin;
# head: the same six programs (no change) and a bench_spin built with PITOT_SPIN_BUILT_SCALE
# (SPIN_HEAD, a folder holding it: its kernels HEAD_SCALE slower). The wall time, the verdicts of
# the unchanged points and of the spin points, and where each process's time went.
# usage: lab/suite/whole-suite-ab-h200.sh BIN_DIR SPIN_HEAD_DIR OUT_DIR [ab options...]
#   (LIMIT_S: the wall limit, default 590; SIGINT then, so ab reports what it decided.
#   SEED_CACHE: a folder holding an earlier run's pitot cache (the whole-suite-ab-cache.tar.xz this
#   script leaves, unpacked: cuDNN's plans and the cost file), as a self-hosted runner keeps its
#   ~/.cache between pull requests; without it the run starts cold, cuDNN's plans compiled anew.)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: whole-suite-ab-h200.sh BIN_DIR SPIN_HEAD_DIR OUT_DIR}" && pwd)
spin_head=$(cd "${2:?}" && pwd)
out_root=${3:?}
shift 3
out=$out_root/whole-suite-ab
mkdir -p "$out/base" "$out/head"
# medians.csv keeps each point's process medians (by time and per clock) and phases; the sides'
# full JSON (every sample and its clock, for offline comparisons with other rules) and the pitot
# cache (cuDNN's plans, the cost file) go to tars of their own.
finish() {
  tar -cJf "$out_root/whole-suite-ab.tar.xz" -C "$out_root" --exclude whole-suite-ab/sides \
    --exclude whole-suite-ab/cache --exclude whole-suite-ab/base --exclude whole-suite-ab/head whole-suite-ab
  [ -d "$out/sides" ] && XZ_OPT="-9 -T0" tar -cJf "$out_root/whole-suite-ab-sides.tar.xz" -C "$out" sides
  [ -d "$out/cache/pitot" ] && tar -cJf "$out_root/whole-suite-ab-cache.tar.xz" -C "$out/cache" pitot
}
trap finish EXIT
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" XDG_CACHE_HOME=$out/cache
if [ -n "${SEED_CACHE:-}" ]; then
  mkdir -p "$out/cache" && cp -r "$SEED_CACHE/pitot" "$out/cache/" && echo "cache seeded from $SEED_CACHE"
fi
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$out/environment.txt" 2>&1
for p in copy memory norm cast gemm attention; do
  cp "$bin/bench_$p" "$out/base/"
  ln -f "$out/base/bench_$p" "$out/head/bench_$p" 2>/dev/null || cp "$bin/bench_$p" "$out/head/"
done
cp "$bin/bench_spin" "$out/base/"
cp "$spin_head/bench_spin" "$out/head/"
# The cost file copied in (a run of the same programs), so the estimate has history; then the run.
"$bin/pitot" ab "$out/base" "$out/head" --estimate "$@" >"$out/estimate.txt" 2>&1
t=$(date +%s.%N)
timeout -s INT -k 20 "${LIMIT_S:-590}" "$bin/pitot" ab "$out/base" "$out/head" --progress plain --json \
  --json-dir "$out/sides" "$@" >"$out/ab.json" 2>"$out/ab.log"
rc=$?
echo "ab: exit $rc, $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee "$out/steps.txt"
python3 - "$out/ab.json" <<'PY' | tee -a "$out/steps.txt"
import collections, json, sys
doc = json.load(open(sys.argv[1]))
rows = doc.get("points", [])
spin = collections.Counter(r["verdict"] for r in rows if "spin_kernel" in r["name"])
rest = collections.Counter(r["verdict"] for r in rows if not "spin_kernel" in r["name"])
procs = collections.Counter(r["base"]["processes"] for r in rows if not "spin_kernel" in r["name"])
n = sum(rest.values())
print("unchanged points:", dict(rest), f"({100 * rest['unchanged'] / max(n, 1):.1f}% unchanged of {n})")
print("spin points (head slower):", dict(spin))
print("processes a side at the decision (the points of the unchanged programs, any verdict):", dict(sorted(procs.items())))
per_clock = sum(1 for r in rows if (r.get("noise") or {}).get("per_clock"))
shifted = sum(1 for r in rows if "compared by time, not per clock" in (r.get("note") or ""))
print(f"compared per clock (ab's default; --by-time: none): {per_clock}; clocks surely or far apart, so by time: {shifted}")
print("summary:", doc.get("summary"))
PY
for side in base head; do
  [ -f "$out/sides/$side.json" ] && python3 "$root/lab/suite/phases.py" "$out/sides/$side.json" >"$out/phases-$side.md" 2>&1
done
cp "$out/cache/pitot/costs.json" "$out/costs.json" 2>/dev/null
ls "$out/cache/pitot/plans/cudnn" 2>/dev/null | wc -l | sed 's/^/cuDNN plans cached: /' | tee -a "$out/steps.txt"
python3 - "$out/sides" >"$out/medians.csv" <<'PY'
import csv, json, os, sys
w = csv.writer(sys.stdout)
w.writerow(["side", "point", "status", "process_medians", "process_per_clock", "process_clocks", "setup", "warmup",
            "sampling"])
def per_process(values, process):
    by = {}
    for v, k in zip(values, process):
        by.setdefault(k, []).append(v)
    out = []
    for k in sorted(by):
        v = sorted(by[k])
        out.append((v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2)
    return " ".join("%.6g" % m for m in out)
for side in ("base", "head"):
    path = os.path.join(sys.argv[1], side + ".json")
    if not os.path.exists(path):
        continue
    for p in json.load(open(path)).get("points", []):
        ph = (p.get("backend_info") or {}).get("phases") or {}
        t, r, k = p.get("samples") or [], p.get("clock_ratios") or [], p.get("sample_process") or []
        clocked = len(r) == len(t) == len(k) and len(t) > 0
        w.writerow([side, p.get("program", "") + "." + p.get("name", ""), p.get("status"),
                    " ".join("%.6g" % m for m in p.get("process_medians", [])),
                    per_process([a * b for a, b in zip(t, r)], k) if clocked else "",
                    per_process(r, k) if clocked else "",
                    ph.get("setup_seconds", ""), ph.get("warmup_seconds", ""), ph.get("sampling_seconds", "")])
PY
exit 0
