#!/usr/bin/env bash
# Narrows down a crash of Python benchmark programs on the GPU machine (issue 15): builds the
# module as lab/python/run-h200.sh does, then runs the copy benchmark in variants (import order, clock,
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
rm -rf "$site"
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
v list-copy python3 -X faulthandler "$b" --list
v list-styles-no-torch python3 -X faulthandler "$root/tests/python/bench_styles.py" --list
v list-styles python3 -X faulthandler "$root/tests/python/bench_styles.py" --list
v run-styles python3 -X faulthandler "$root/tests/python/bench_styles.py" --quiet --max-time 0.05
v main-after-cuda-init python3 -X faulthandler -c "import torch; torch.zeros(1, device='cuda'); import pitot, sys; sys.argv=['x', '--list']; pitot.main()"
v list-copy-no-cupti env PITOT_CUPTI_LIB=/nonexistent python3 -X faulthandler "$b" --list
v list-copy-lazy env CUDA_MODULE_LOADING=EAGER python3 -X faulthandler "$b" --list
if command -v gdb > /dev/null; then
  v gdb-events gdb -batch -ex run -ex bt -ex "info threads" --args python3 "$b" --quiet --filter "$f" --clock events --max-time 0.2
else
  echo "no gdb" >> "$out/summary.txt"
fi
cat "$out/summary.txt"
for l in "$out"/*.log; do echo "== $l"; tail -25 "$l"; done
