#!/usr/bin/env bash
# Checks on the GPU machine that autograd's fwd+bwd points are timed whole (issue 15): builds the
# module as lab/python/run-h200.sh does, runs a few fwd / fwd+bwd points of the Python suite, and prints each
# point's clock, the kernel clock's refusal if any, and its median. Writes $OUT/backward.json.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$OUT}
carry=$root/.carry/usr
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
export PATH="$PATH:/usr/local/cuda/bin" CMAKE_PREFIX_PATH="$carry" PIP_NO_INDEX=1
export LD_LIBRARY_PATH="$carry/lib/$multiarch:/usr/local/cuda/lib64"
site=/tmp/python15-site
rm -rf "$site"
CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF" \
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install --no-build-isolation --no-deps --target "$site" \
  -C build-dir=/tmp/python15-pybuild "$root/python" > "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
export PYTHONPATH=$site
b=$root/benchmarks/python
for f in "bench_torch_gemm.py|^gemm_bf16\[model=llama3\.1-8b,tp=1,layer=gate_up,M=2048" \
         "bench_torch_norm.py|^rmsnorm\[M=1024,hidden=8192" \
         "bench_torch_attention.py|^sdpa_causal_gqa\[model=llama3\.1-8b,seq=4096"; do
  file=${f%%|*} filter=${f#*|}
  timeout 120 python3 "$b/$file" --quiet --filter "$filter" --max-time 0.3 --json "$out/${file%.py}.json" \
    > "$out/${file%.py}.log" 2>&1
  echo "$file: exit $?"
done
python3 - "$out" <<'PY'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "bench_*.json"))):
    for p in json.load(open(path))["points"]:
        info = p.get("backend_info", {})
        print(f'{p["name"]:70s} {p["status"]:6s} clock {info.get("clock", "?"):7s} '
              f'median {p.get("stats", {}).get("median", float("nan")) * 1e6:10.2f} us  '
              f'{(info.get("kernel_clock_declined") or "")[:60]}')
PY
