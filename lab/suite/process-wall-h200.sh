#!/usr/bin/env bash
# Where a whole-suite process's wall goes beyond its points' phases (issue 33, item 3), on the GPU
# machine in one call (by hand, not in CI). Each suite program once under `pitot run` at ab's lean
# limits, its progress lines stamped as they arrive; then each program alone (no driver) with the
# same limits, for the driver's share. phases.py gives the points' own phases; the stamps give the
# process's wall, its start (to the first point) and the gaps between points.
# usage: lab/suite/process-wall-h200.sh BIN_DIR OUT_DIR [pitot run options...]
#   (PROGRAMS: the programs to run under the driver, default the suite's six with attention twice)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: process-wall-h200.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?}/process-wall
shift 2
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" XDG_CACHE_HOME=$out/cache
lean=(--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
stamp() { python3 -u -c 'import sys, time
for line in sys.stdin: sys.stdout.write("%.3f %s" % (time.time(), line))'; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$out/environment.txt" 2>&1
# attention twice: its first process on a machine builds cuDNN's plans, the second reads them.
for p in ${PROGRAMS:-copy memory norm cast gemm attention attention}; do
  tag=$p; [ -f "$out/$p.json" ] && tag=${p}2
  t0=$(date +%s.%N)
  stdbuf -oL -eL "$bin/pitot" run "$bin/bench_$p" --no-asv --progress plain --json "$out/$tag.json" "${lean[@]}" "$@" 2>&1 |
    stamp >"$out/$tag.log"
  echo "$tag driver $t0 $(date +%s.%N)" >>"$out/walls.txt"
done
# gemm once more one point at a time (ab runs eight at once, in turns)
t0=$(date +%s.%N)
stdbuf -oL -eL "$bin/pitot" run "$bin/bench_gemm" --no-asv --progress plain --json "$out/gemm-i1.json" "${lean[@]}" \
  --interleave 1 "$@" 2>&1 | stamp >"$out/gemm-i1.log"
echo "gemm-i1 driver $t0 $(date +%s.%N)" >>"$out/walls.txt"
for p in copy gemm; do
  t0=$(date +%s.%N)
  "$bin/bench_$p" --json "$out/$p-alone.json" "${lean[@]}" >/dev/null 2>&1
  echo "$p alone $t0 $(date +%s.%N)" >>"$out/walls.txt"
done
python3 "$root/lab/suite/phases.py" $(ls "$out"/{copy,memory,norm,cast,gemm,attention,attention2}.json 2>/dev/null) >"$out/phases.md" 2>&1
python3 "$root/lab/suite/phases.py" "$out/gemm-i1.json" >"$out/phases-gemm-i1.md" 2>&1
python3 "$root/lab/suite/phases.py" "$out"/{copy,gemm}-alone.json >"$out/phases-alone.md" 2>&1
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import os, re, sys
out = sys.argv[1]
for line in open(os.path.join(out, "walls.txt")):
    tag, how, a, b = line.split()
    print(f"{tag:10} {how:6} wall {float(b) - float(a):7.2f} s")
    log = os.path.join(out, tag + ".log")
    if how != "driver" or not os.path.exists(log):
        continue
    stamps = [float(l.split()[0]) for l in open(log) if re.match(r"^\S+ \[\d+/\d+\]", l)]
    if len(stamps) > 1:
        gaps = sorted(b - a for a, b in zip(stamps, stamps[1:]))
        print(f"{'':17} to first point {stamps[0] - float(a):.2f} s, points {len(stamps)}, "
              f"median gap {1000 * gaps[len(gaps) // 2]:.1f} ms, last to exit {float(b) - stamps[-1]:.2f} s")
PY
tar -cJf "${out}.tar.xz" -C "$(dirname "$out")" --exclude process-wall/cache process-wall
