#!/usr/bin/env bash
# Narrows down a crash of Python benchmark programs on the GPU machine (issue 15): builds the
# module as python15.sh does, then runs the copy benchmark in variants (import order, clock,
# one process or several) under Python's faulthandler and gdb, one log per variant in $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$OUT}/debug
mkdir -p "$out"
carry=$root/.carry/usr
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
export PATH="$PATH:/usr/local/cuda/bin" CMAKE_PREFIX_PATH="$carry" PIP_NO_INDEX=1
export LD_LIBRARY_PATH="$carry/lib/$multiarch:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
site=/tmp/python15-site
CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo" \
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install --no-build-isolation --no-deps --target "$site" \
  -C build-dir=/tmp/python15-pybuild "$root/python" > "$out/build.log" 2>&1
echo "build: exit $?" > "$out/summary.txt"
export PYTHONPATH=$site
b=$root/benchmarks/python/bench_torch_copy.py
f='^memcpy_d2d\[n=2\^16\]'
v() {  # v NAME COMMAND...
  local name=$1; shift
  timeout 60 "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?" >> "$out/summary.txt"
}
v import-pitot python3 -X faulthandler -c "import pitot; print(pitot.has_cuda)"
v import-torch-pitot python3 -X faulthandler -c "import torch, pitot; print(torch.cuda.is_available())"
v list python3 -X faulthandler "$b" --list
v events python3 -X faulthandler "$b" --quiet --filter "$f" --clock events --max-time 0.2
v kernel python3 -X faulthandler "$b" --quiet --filter "$f" --clock kernel --max-time 0.2
v processes python3 -X faulthandler "$b" --quiet --filter "$f" --processes 2 --max-time 0.2
v no-torch-cpu python3 -X faulthandler "$root/tests/python/bench_styles.py" --quiet --max-time 0.05 2>/dev/null
if command -v gdb > /dev/null; then
  v gdb-events gdb -batch -ex run -ex bt -ex "info threads" --args python3 "$b" --quiet --filter "$f" --clock events --max-time 0.2
else
  echo "no gdb" >> "$out/summary.txt"
fi
cat "$out/summary.txt"
for l in "$out"/*.log; do echo "== $l"; tail -25 "$l"; done
