#!/usr/bin/env bash
# Issue 33, item 3: the sampler's host costs cut (the card's reading without the energy counter and
# shared between points, one CUPTI flush a sample instead of one a batch), checked in one device
# call:
#  1. what each NVML query costs (lab/card/nvml_costs.py);
#  2. the old and the new engine on the same points, processes alternated (by default bench_gemm's
#     llama3.1-8b M=2048 points, bench_cast and bench_copy whole; pitot's defaults): the sampling
#     wall, its costs, and the medians new/old (lab/suite/ab_medians.py);
#  3. when every new process exited 0 and SUITE_S > 0: the whole bundled suite as
#     scripts/run-suite.sh runs it (pitot run's defaults, one process a program, the fresh
#     machine's empty cuDNN plan cache), its wall and its phases.
# Usage: lab/suite/cuts-h200.sh OLD_DIR NEW_BUILD OUT_DIR
#   OLD_DIR: bench_gemm, bench_cast and bench_copy before the cut; NEW_BUILD: a folder laid out as
#   a build (src/driver/pitot, benchmarks/gpu/bench_*, lib/ with libzip.so.4, libfmt.so.9 and
#   libcupti.so.13). Writes OUT_DIR/cuts.tar.xz. Environment: ROUNDS (2), SUITE_S (380; 0: no
#   suite run), SLICES (space-separated NAME:PROGRAM:FILTER, the slices above by default).
set -uo pipefail
old=$(cd "${1:?usage: cuts-h200.sh OLD_DIR NEW_BUILD OUT_DIR}" && pwd)
new=$(cd "${2:?usage: cuts-h200.sh OLD_DIR NEW_BUILD OUT_DIR}" && pwd)
out_root=${3:?usage: cuts-h200.sh OLD_DIR NEW_BUILD OUT_DIR}
rounds=${ROUNDS:-2}
read -ra slices <<< "${SLICES:-gemm:bench_gemm:llama3\.1-8b.*M=2048 cast:bench_cast:. copy:bench_copy:.}"
suite_s=${SUITE_S:-380}
here=$(cd "$(dirname "$0")" && pwd)
out=$out_root/cuts
mkdir -p "$out"
export LD_LIBRARY_PATH="$new/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The kernel clock looks for libcupti beside the program.
cp "$new/lib/libcupti.so.13" "$old/" 2>/dev/null
cp "$new/lib/libcupti.so.13" "$new/benchmarks/gpu/" 2>/dev/null
now() { date +%s.%N; }
pack() { tar -C "$out_root" -cJf "$out_root/cuts.tar.xz" cuts; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv
} > "$out/environment.txt" 2>&1
[ "${NVML_COSTS:-1}" = 1 ] && timeout 60 python3 "$here/../card/nvml_costs.py" > "$out/nvml-costs.txt" 2>&1

failed=0
for r in $(seq 1 "$rounds"); do
  for kind in old new; do
    dir=$old; [ "$kind" = new ] && dir=$new/benchmarks/gpu
    for slice in "${slices[@]}"; do
      IFS=: read -r name program filter <<< "$slice"
      s=$(now)
      "$dir/$program" --quiet --filter "$filter" --json "$out/$kind-$r-$name.json" > "$out/$kind-$r-$name.log" 2>&1
      rc=$?
      [ "$kind" = new ] && [ "$rc" != 0 ] && failed=1
      echo "$kind $r $name rc $rc wall $(python3 -c "print(round($(now) - $s, 2))")" >> "$out/walls.txt"
    done
  done
  pack
done
for kind in old new; do
  python3 "$here/phases.py" "$out/$kind"-*.json > "$out/$kind-phases.md" 2>&1
done
python3 "$here/ab_medians.py" "$out" > "$out/medians.md" 2>&1
pack

if [ "$suite_s" = 0 ]; then
  echo "suite not run: SUITE_S=0" > "$out/suite-wall.txt"
elif [ "$failed" = 0 ]; then
  "$here/whole-suite.sh" "$new" "$out" "$suite_s"
else
  echo "suite not run: a new process failed (walls.txt)" > "$out/suite-wall.txt"
fi
pack
cat "$out/walls.txt" "$out/suite-wall.txt"; tail -n 3 "$out/old-phases.md" "$out/new-phases.md"; tail -n 8 "$out/medians.md"
tail -3 "$out/suite-phases.md" 2>/dev/null; cat "$out/nvml-costs.txt" 2>/dev/null
