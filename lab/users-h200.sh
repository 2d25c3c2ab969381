#!/usr/bin/env bash
# What a GPU team meets first, on the GPU machine, in one call (issues 21 and 22):
#  1. build pitot there from this tree (.carry/usr from lab/carry-build-deps.sh stands in for the -dev
#     packages it lacks) and install it into a prefix, as a user does; the Python module too
#     (pip install ./python, no network: the machine's scikit-build-core and nanobind);
#  2. the example workflow's bench job (examples/ci/pitot-benchmarks.yml) run by the stand-in
#     runner tests/ci/run_workflow.py --cuda: a push, then a pull request, of the README's GPU
#     example (issue 21, item 3: "once on the H200 against a real two-commit GPU database");
#  3. `pitot run --processes 3` over the Python folder (benchmarks/python) into an asv database
#     (issue 22: it must exit 0 and the real asv must load the database: checked back here with
#     scripts/asv-check, asv is not on the GPU machine);
#  4. everything tarred into $OUT/users-h200.tgz (the device call returns few files).
# usage: lab/users-h200.sh OUT_DIR   (BUDGET_S: seconds in all, 570; PY_MAX_TIME: --max-time of step 3, 0.2)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out_root=${1:?give OUT_DIR}
out=$out_root/users-h200
mkdir -p "$out"
start=$(date +%s)
finish() {
  tar -czf "$out_root/users-h200.tgz" -C "$out_root" users-h200
  echo "lab/users-h200.sh: done in $(($(date +%s) - start)) s"
}
trap finish EXIT
budget=${BUDGET_S:-570}  # the whole call; each step stops in time for the tar
step() {  # step NAME LIMIT_S COMMAND...: its output in NAME.log, its exit and seconds in steps.txt
  local name=$1 limit=$2 t left
  shift 2
  t=$(date +%s)
  left=$((budget - 15 - (t - start)))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 0 ]; then echo "$name: not run (no time left)" | tee -a "$out/steps.txt"; return; fi
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  echo "$name: exit $?, $(($(date +%s) - t)) s" | tee -a "$out/steps.txt"
}

. "$root/lab/carried-deps-env.sh"
export PATH="/usr/local/cuda/bin:$PATH" CUDAARCHS=90
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  python3 --version
  python3 -c "import torch, yaml; print('torch', torch.__version__, 'yaml', yaml.__version__)"
  cat "$root/.carry/tree.txt" 2>/dev/null
} >"$out/environment.txt" 2>&1

# 1. Builds.
build=/tmp/users-build prefix=/tmp/users-prefix site=/tmp/users-site
step configure 120 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPITOT_BUILD_TESTS=OFF \
  -DPITOT_ENABLE_HIP=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_BUILD_BENCHMARKS=OFF
step build 300 cmake --build "$build" -j "$(nproc)"
step install 60 cmake --install "$build" --prefix "$prefix"

# 2. The workflow, push then pull request, on the README's GPU example.
git config --global user.name >/dev/null || git config --global user.name pitot-lab
git config --global user.email >/dev/null || git config --global user.email lab@example.invalid
export PYTHONPATH="$root/.carry/pylib"  # PyYAML for the stand-in runner, if the machine lacks it
step workflow 420 python3 "$root/tests/ci/run_workflow.py" \
  "$root/examples/ci/pitot-benchmarks.yml" "$prefix" --cuda

export CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF"
export CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
step python-module 300 python3 -m pip install -v --no-build-isolation --no-deps --target "$site" \
  -C build-dir=/tmp/users-pybuild "$root/python"

# 3. The Python folder, 3 processes a program, into an asv database on a real commit.
repo=/tmp/users-repo
rm -rf "$repo" && git clone -q "$root/.carry/repo.bundle" "$repo" -b main
"$prefix/bin/pitot" init --dir "$out/asv" --repo "$repo" >"$out/init.log" 2>&1
# The folder as given; if the driver refuses it, the files by name (and the refusal is a finding).
cd "$repo"
export PYTHONPATH="$site"
step python-list 120 "$prefix/bin/pitot" list benchmarks/python
inputs=(benchmarks/python)
grep -q "exit 0," <(tail -1 "$out/steps.txt") || inputs=(benchmarks/python/bench_*.py)
step python-folder 420 "$prefix/bin/pitot" run "${inputs[@]}" --processes 3 --max-time "${PY_MAX_TIME:-0.2}" \
  --asv-dir "$out/asv" --machine h200 --json "$out/python-folder.json"
