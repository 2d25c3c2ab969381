#!/usr/bin/env bash
# Where a suite process's time goes (issue 33, item 3), on the H200 in one call (by hand, not in CI):
#  1. the CUDA GPU tests of this build (the phases change touched the sampler);
#  2. the bundled GPU suite in one process at pitot ab's lean limits, --json and the cost file:
#     each point's phases (setup, warm-up, sampling, finish, teardown) and flushes;
#  3. the same at leaner limits (LEANER, default below), twice: what they save, and whether the
#     medians move beyond what two processes at the same limits differ by.
# usage: lab/suite/phases-h200.sh BIN_DIR OUT_DIR   (BUDGET_S: seconds in all, default 540)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: phases-h200.sh BIN_DIR OUT_DIR}" && pwd)
out_root=${2:?usage: phases-h200.sh BIN_DIR OUT_DIR}
out=$out_root/phases
mkdir -p "$out"
start=$(date +%s)
budget=${BUDGET_S:-540}
finish() { tar -czf "$out_root/phases.tgz" -C "$out_root" phases; }
trap finish EXIT
step() {  # step NAME LIMIT_S COMMAND...: output in NAME.log, exit and seconds in steps.txt
  local name=$1 limit=$2 t left
  shift 2
  t=$(date +%s)
  left=$((budget - 10 - (t - start)))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 0 ]; then echo "$name: not run (no time left)" | tee -a "$out/steps.txt"; return; fi
  timeout -s INT -k 15 "$limit" "$@" >"$out/$name.log" 2>&1  # INT: pitot keeps what finished
  echo "$name: exit $?, $(($(date +%s) - t)) s" | tee -a "$out/steps.txt"
}
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
pitot=$bin/pitot
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; ls "$bin"; } >"$out/environment.txt" 2>&1

step gpu-tests 120 "$bin/test_cuda_gpu" --gtest_filter=-DeviceLost.*
step gpu-tests-device-lost 60 "$bin/test_cuda_gpu" --gtest_filter=DeviceLost.*

suite=$out_root/suite
mkdir -p "$suite"
for p in copy memory norm cast gemm attention; do ln -sf "$bin/bench_$p" "$suite/"; done
lean=(--warmup 0.005 --min-time 0.01 --max-time 0.1)
read -r -a leaner <<<"${LEANER:---warmup 0.002 --min-time 0.002 --max-time 0.03 --min-samples 10}"
run_suite() {  # run_suite NAME LIMIT_S KNOBS...
  local name=$1 limit=$2
  shift 2
  export XDG_CACHE_HOME=$out/cache-$name
  step "$name" "$limit" "$pitot" run "$suite" "$@" --no-asv --progress none \
    --json "$out/$name.json"
  cp "$out/cache-$name/pitot/costs.json" "$out/costs-$name.json" 2>/dev/null
}
run_suite lean 260 "${lean[@]}"
run_suite leaner-1 150 "${leaner[@]}"
run_suite leaner-2 150 "${leaner[@]}"
for name in lean leaner-1 leaner-2; do
  [ -f "$out/$name.json" ] || continue
  python3 "$root/lab/suite/phases.py" "$out/$name.json" --costs "$out/costs-$name.json" >"$out/phases-$name.md" 2>&1
  python3 "$root/lab/suite/phases.py" "$out/$name.json" --by-benchmark >"$out/phases-$name-by-benchmark.md" 2>&1
done
echo "total: $(($(date +%s) - start)) s" | tee -a "$out/steps.txt"
