#!/usr/bin/env bash
# Issue 22 on a CUDA machine with torch (by hand, not in CI): the seed suite's style (time_*
# returns the seconds its events read) and the same class opted in to pitot's device clock, beside
# pitot's own torch GEMM (bench_torch_gemm) and a plain events loop, 3 processes each.
# Issue 32: the seed-style GEMM (M=2048 forward) and norms (LayerNorm, RMSNorm forward+backward,
# 8192 tokens, hidden 4096 and 8192) in 3 processes under the files' own driver convention (median
# of 20 after 10 warm-ups, own_driver.py), pitot's default (returned seconds) and
# `--self-timed device`: one table of medians and spreads of process medians, in issue32.txt.
# Builds the module from this tree (needs .carry/usr from lab/carry-build-deps.sh and the
# machine's scikit-build-core and nanobind). usage: lab/python/seed-style/seed_style.sh OUT_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?give OUT_DIR}
here=$root/lab/python/seed-style
mkdir -p "$out"
. "$root/lab/carried-deps-env.sh"
export PATH="$PATH:/usr/local/cuda/bin"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; python3 --version
  python3 -c "import torch; print('torch', torch.__version__)"; git -C "$root" rev-parse HEAD; } > "$out/environment.txt" 2>&1
site=/tmp/seed22-site
t=$(date +%s)
CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
  python3 -m pip install -v --no-build-isolation --no-deps --target "$site" -C build-dir=/tmp/seed22-pybuild \
  "$root/python" > "$out/build-python.log" 2>&1
echo "python build: exit $?, $(( $(date +%s) - t )) s" | tee -a "$out/steps.txt"
export PYTHONPATH="$site:$here:$root/benchmarks/python"
cd "$here"
step() {  # step NAME LIMIT COMMAND...
  local name=$1 limit=$2
  shift 2
  local t=$(date +%s)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?, $(( $(date +%s) - t )) s" | tee -a "$out/steps.txt"
}
step list 60 python3 -m pitot bench_seed_gemm.py --list
step returned 120 python3 -m pitot bench_seed_gemm.py --processes 3 --filter '^SeedGemm\.' --json "$out/returned.json"
step opted-in 180 python3 -m pitot bench_seed_gemm.py --processes 3 --filter '^SeedGemmDevice\.' --json "$out/opted-in.json"
step torch-gemm 120 python3 "$root/benchmarks/python/bench_torch_gemm.py" --processes 3 \
  --filter '^gemm_bf16\[model=llama3\.1-8b,tp=1,layer=gate_up,M=2048,pass=fwd\]' --json "$out/torch-gemm.json"
for i in 1 2 3; do step "events-loop-$i" 60 python3 events_loop.py; done
# Issue 32's three conventions, 3 processes each.
for i in 1 2 3; do step "own-driver-$i" 300 python3 own_driver.py; done
for f in gemm norm; do
  filter=$([ $f = gemm ] && echo '^SeedGemm\.' || echo '^SeedNorm\.')
  step "default-$f" 600 python3 -m pitot "bench_seed_$f.py" --processes 3 --filter "$filter" --json "$out/default-$f.json"
  step "switch-$f" 600 python3 -m pitot --self-timed device "bench_seed_$f.py" --processes 3 --filter "$filter" \
    --json "$out/switch-$f.json"
done
python3 "$here/seed_table.py" "$out" > "$out/issue32.txt" 2>&1
python3 - "$out" > "$out/summary.txt" 2>&1 <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
def point(name):
    (p,) = json.load(open(os.path.join(out, name + ".json")))["points"]
    return p
loop = [float(open(os.path.join(out, f"events-loop-{i}.log")).read().split()[-1]) for i in (1, 2, 3)]
ref = statistics.median(loop)
print(f"events loop: process medians {[f'{x * 1e6:.2f}' for x in loop]} us, median {ref * 1e6:.2f} us")
rows = {}
for name in ("returned", "opted-in", "torch-gemm"):
    p = point(name)
    rows[name] = p
    med = p["stats"]["median"]
    procs = p.get("process_medians", [])
    spread = (max(procs) - min(procs)) / med if procs else float("nan")
    info = p.get("backend_info", {})
    print(f"{name}: {p['status']} backend {p['backend']} clock {info.get('clock')} median {med * 1e6:.2f} us, "
          f"{len(p['samples'])} samples, process medians {[f'{x * 1e6:.2f}' for x in procs]} (spread {spread:.2%}), "
          f"blocking_kernel {info.get('blocking_kernel')}, declined {info.get('kernel_clock_declined')}")
print(f"returned / events loop: {rows['returned']['stats']['median'] / ref:.4f}  (issue: within 2%)")
print(f"opted-in / bench_torch_gemm: {rows['opted-in']['stats']['median'] / rows['torch-gemm']['stats']['median']:.4f}"
      "  (issue: within 1% of the kernel clock)")
PY
cat "$out/summary.txt" "$out/issue32.txt"
