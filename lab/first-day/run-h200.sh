#!/usr/bin/env bash
# Issue 32 and 33 on the H200 in one call (by hand, not in CI):
#  1. the CUDA GPU tests of this build, and `pitot list` of the bin folder, which holds shared
#     libraries beside the programs (only the programs may be listed; issue 32, item 3), and the
#     CUDA programs' env names (no HIP in them; item 4);
#  2. the seed-style classes (lab/python/seed-style) under pitot's default and `--self-timed
#     device`, 3 processes each, after the per-thread fix of the waits (item 1); the module is
#     built from this tree as lab/python/seed-style/seed_style.sh builds it;
#  3. `pitot run --estimate`, then the whole bundled GPU suite in one process at ab's lean limits
#     with --json and the cost file (issue 33: where a process's time goes, per point).
# usage: lab/first-day/run-h200.sh BIN_DIR OUT_DIR   (BUDGET_S: seconds in all, default 560)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: run-h200.sh BIN_DIR OUT_DIR}" && pwd)
out_root=${2:?usage: run-h200.sh BIN_DIR OUT_DIR}
out=$out_root/first-day
mkdir -p "$out"
start=$(date +%s)
budget=${BUDGET_S:-560}
finish() { tar -czf "$out_root/first-day.tgz" -C "$out_root" first-day; }
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
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" XDG_CACHE_HOME=$out/cache
pitot=$bin/pitot
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; ls "$bin"; } >"$out/environment.txt" 2>&1

# 1.
# As ctest runs them: the sticky-error test in a process of its own (it leaves the device unusable).
step gpu-tests 120 "$bin/test_cuda_gpu" --gtest_filter=-DeviceLost.*
step gpu-tests-device-lost 60 "$bin/test_cuda_gpu" --gtest_filter=DeviceLost.*
step list-bin 60 "$pitot" list "$bin"
step env-names 60 "$bin/bench_copy" --list --json "$out/bench_copy-list.json"

# 2.
carry=$root/.carry/usr
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
site=/tmp/first-day-site
( export PATH="$PATH:/usr/local/cuda/bin" PIP_NO_INDEX=1 CMAKE_PREFIX_PATH="$carry"
  CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
    python3 -m pip install -v --no-build-isolation --no-deps --target "$site" -C build-dir=/tmp/first-day-pybuild "$root/python" ) \
  >"$out/build-python.log" 2>&1
echo "python build: exit $?" | tee -a "$out/steps.txt"
here=$root/lab/python/seed-style
(
  export PYTHONPATH="$site:$here" LD_LIBRARY_PATH="$carry/lib/$multiarch:$LD_LIBRARY_PATH:/usr/local/cuda/extras/CUPTI/lib64"
  cd "$here"
  for i in 1 2 3; do step "own-driver-$i" 60 python3 own_driver.py; done
  for f in gemm norm; do
    filter=$([ $f = gemm ] && echo '^SeedGemm\.' || echo '^SeedNorm\.')
    step "default-$f" 120 python3 -m pitot "bench_seed_$f.py" --processes 3 --filter "$filter" --json "$out/default-$f.json"
    step "switch-$f" 120 python3 -m pitot --self-timed device "bench_seed_$f.py" --processes 3 --filter "$filter" \
      --json "$out/switch-$f.json"
  done
  python3 "$here/seed_table.py" "$out" >"$out/issue32.txt" 2>&1
)

# 3.
suite=$out_root/suite
mkdir -p "$suite"
for p in "$bin"/bench_*; do ln -sf "$p" "$suite/"; done
lean=(--warmup 0.005 --min-time 0.01 --max-time 0.1)
step estimate 60 "$pitot" run "$suite" "${lean[@]}" --no-asv --estimate
step lean-suite $((budget - 40 - ($(date +%s) - start))) "$pitot" run "$suite" "${lean[@]}" --no-asv --progress plain \
  --json "$out/lean-suite.json"
cp "$out/cache/pitot/costs.json" "$out/" 2>/dev/null
echo "total: $(($(date +%s) - start)) s" | tee -a "$out/steps.txt"
