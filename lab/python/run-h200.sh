#!/usr/bin/env bash
# Issue 15 in one device call (run from the repository root on the GPU machine):
#  1. environment: GPU, Python, torch/triton/cupy/jax versions;
#  2. build there from this tree, with .carry/usr (lab/carry-build-deps.sh, run here first)
#     standing in for the -dev packages the machine lacks: the C++ programs bench_copy, bench_gemm
#     and the pitot driver (CMake), and the Python package (pip install ./python, no network, the
#     machine's scikit-build-core and nanobind, into a --target folder on PYTHONPATH: a venv does
#     not see them there, as they live in the user site, which a venv turns off);
#  3. the same work from C++ and from Python, 3 processes each (--processes 3): a D2D copy of
#     2^16/2^22/2^28 floats (memcpy_d2d) and one GEMM shape (gemm_bf16 llama3.1-8b gate_up M=2048);
#  4. the Python example suite (benchmarks/python) through `pitot run`, stopped with SIGTERM before
#     the call's limit (the driver keeps what finished);
#  5. triton's do_bench and torch.utils.benchmark on the same ops (lab/python/sidebyside.py);
#  6. a summary (medians and spreads side by side), everything tarred into $OUT/python15.tgz.
# Usage: lab/python/run-h200.sh [OUT_DIR]   (default $OUT). BUDGET_S: seconds in all (570).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out_root=${1:-${OUT:?give OUT_DIR or set OUT}}
budget=${BUDGET_S:-570}
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
out=$out_root/python15
mkdir -p "$out"
finish() {
  tar -czf "$out_root/python15.tgz" -C "$out_root" python15
  echo "lab/python/run-h200.sh: done in $(( $(date +%s) - start )) s: $out_root/python15.tgz"
}
trap finish EXIT

. "$root/lab/carried-deps-env.sh"
export PATH="$PATH:/usr/local/cuda/bin"
jobs=$(nproc)

# 1. Environment.
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 --version; cmake --version | head -1; nvcc --version | tail -2
  python3 - <<'PY'
import importlib
for m in ("torch", "triton", "cupy", "jax", "nanobind", "scikit_build_core"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:
        print(m, "missing:", e)
PY
  [ -d "$carry" ] || echo "NO .carry/usr: run lab/carry-build-deps.sh on the build machine and carry .carry"
} > "$out/environment.txt" 2>&1

# 2. Builds.
build=/tmp/python15-build
t=$(date +%s)
{
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPITOT_BUILD_TESTS=OFF \
    -DPITOT_ENABLE_HIP=OFF -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build "$build" -j "$jobs" --target bench_copy bench_gemm pitot_driver
} > "$out/build-cpp.log" 2>&1
echo "C++ build: exit $?, $(( $(date +%s) - t )) s" | tee -a "$out/build-cpp.log"
t=$(date +%s)
site=/tmp/python15-site
rm -rf "$site"
CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$jobs \
  python3 -m pip install -v --no-build-isolation --no-deps --target "$site" -C build-dir=/tmp/python15-pybuild \
  "$root/python" > "$out/build-python.log" 2>&1
echo "Python build: exit $?, $(( $(date +%s) - t )) s" | tee -a "$out/build-python.log"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
py=python3
"$py" -c "import pitot; print('pitot module', pitot._engine.__file__, 'cuda', pitot.has_cuda)" >> "$out/build-python.log" 2>&1
# pitot imported before torch crashed once (the module exported its static libraries' symbols).
timeout 60 "$py" -X faulthandler -c "import pitot; import torch; print('ok')" > "$out/import-order.log" 2>&1
echo "import pitot then torch: exit $?" >> "$out/pairs.txt"
bin=$build/benchmarks/gpu
pitot=$build/src/driver/pitot

# 3. The same work from C++ and from Python, in this call.
knobs=(--quiet --processes 3)
copy_filter='^memcpy_d2d\[n=2\^(16|22|28)\]'
gemm_filter='^gemm_bf16\[model=llama3\.1-8b,tp=1,layer=gate_up,M=2048,pass=fwd\]'
pyb=$root/benchmarks/python
run_pair() {  # run_pair NAME TIMEOUT COMMAND...
  local name=$1 limit=$2
  shift 2
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?" >> "$out/pairs.txt"
}
run_pair cpp-copy 90 "$bin/bench_copy" "${knobs[@]}" --filter "$copy_filter" --json "$out/cpp-copy.json"
run_pair py-copy 90 "$py" "$pyb/bench_torch_copy.py" "${knobs[@]}" --filter "$copy_filter" --json "$out/py-copy.json"
run_pair cpp-gemm 90 "$bin/bench_gemm" "${knobs[@]}" --filter "$gemm_filter" --json "$out/cpp-gemm.json"
run_pair py-gemm 90 "$py" "$pyb/bench_torch_gemm.py" "${knobs[@]}" --filter "$gemm_filter" --json "$out/py-gemm.json"
# The CuPy path (the stream handle passed to the work) and the copy again from C++, for drift.
run_pair py-copy-handle 90 "$py" "$pyb/bench_torch_copy.py" "${knobs[@]}" --filter '^memcpy_d2d_handle' --json "$out/py-copy-handle.json"
run_pair cpp-copy-again 90 "$bin/bench_copy" "${knobs[@]}" --filter "$copy_filter" --json "$out/cpp-copy-again.json"

# 5 before 4, so the side by side is there even when the suite is cut short.
timeout 150 "$py" "$root/lab/python/sidebyside.py" "$pyb" > "$out/sidebyside.jsonl" 2> "$out/sidebyside.log"
echo "side by side: exit $?" >> "$out/pairs.txt"

# 4. The Python suite through the driver (each .py started with $PITOT_PYTHON).
suite_s=$(( $(left) - 30 ))
if [ "$suite_s" -gt 30 ]; then
  asv=(--no-asv)
  if git -C "$root" rev-parse HEAD > /dev/null 2>&1; then asv=(--asv-dir "$out/asv/results" --machine h200); fi
  t=$(date +%s)
  (cd "$root" && PITOT_PYTHON=$py timeout -s TERM "$suite_s" "$pitot" run "$pyb"/bench_torch_*.py "${asv[@]}" \
     --max-time "${MAX_TIME:-0.3}" --progress plain --json "$out/suite.json") > "$out/suite.log" 2>&1
  echo "pitot run: exit $?, $(( $(date +%s) - t )) s, limit $suite_s s" | tee -a "$out/suite.log"
else
  echo "pitot run: not started, $suite_s s left" > "$out/suite.log"
fi

# 6. Summary.
"$py" - "$out" > "$out/summary.txt" 2>&1 <<'PY'
import collections, json, os, statistics, sys
out = sys.argv[1]
def points(name):
    path = os.path.join(out, name + ".json")
    return {p["name"]: p for p in json.load(open(path))["points"]} if os.path.exists(path) else {}
def row(p):
    if not p or p.get("status") != "ok":
        return f"{(p or {}).get('status', 'missing')} {(p or {}).get('reason', '')[:120]}"
    meds = p.get("process_medians") or [p["stats"]["median"]]
    spread = (max(meds) - min(meds)) / statistics.median(meds) if len(meds) > 1 else float("nan")
    per_sample = p.get("duration", float("nan")) / max(1, len(p.get("samples", [])))
    return (f"median {statistics.median(meds) * 1e6:10.3f} us  process spread {spread * 100:5.2f}%  "
            f"samples {len(p.get('samples', []))}  wall/sample {per_sample * 1e6:8.1f} us  clock {p.get('clock', p.get('backend_info', {}).get('clock', '?'))}")
print("== C++ and Python, same work, --processes 3 ==")
for cpp, py in (("cpp-copy", "py-copy"), ("cpp-gemm", "py-gemm"), ("cpp-copy-again", "py-copy-handle")):
    c, p = points(cpp), points(py)
    for name in sorted(set(c) | set(p)):
        other = name.replace("memcpy_d2d_handle", "memcpy_d2d")
        print(name)
        print(f"  {cpp:16} {row(c.get(name) or c.get(other))}")
        print(f"  {py:16} {row(p.get(name))}")
        try:
            a = statistics.median(c.get(name, c.get(other))["process_medians"])
            b = statistics.median(p[name]["process_medians"])
            print(f"  python / C++ = {b / a:.4f}")
        except Exception:
            pass
print("\n== do_bench and torch.utils.benchmark beside pitot (suite medians) ==")
suite = {}
if os.path.exists(os.path.join(out, "suite.json")):
    for p in json.load(open(os.path.join(out, "suite.json")))["points"]:
        suite[f"{p['program']}.{p['name']}"] = p
    print("suite:", dict(collections.Counter(p["status"] for p in suite.values())))
    for p in suite.values():
        if p["status"] == "failed":
            print("  FAILED", p["name"], p.get("reason", "")[:200])
if os.path.exists(os.path.join(out, "sidebyside.jsonl")):
    for line in open(os.path.join(out, "sidebyside.jsonl")):
        r = json.loads(line)
        p = suite.get(r["name"])
        pitot_text = row(p) if p else "not in the suite run"
        print(r["name"])
        print(f"  pitot             {pitot_text}")
        for key in ("do_bench", "torch_benchmark"):
            if key + "_medians" in r:
                v = r[key + "_medians"]
                print(f"  {key:17} median {statistics.median(v) * 1e6:10.3f} us  spread of 5 {r[key + '_spread'] * 100:5.2f}%")
PY
cat "$out/pairs.txt" "$out/summary.txt"
