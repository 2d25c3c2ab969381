#!/usr/bin/env bash
# A head build of bench_spin whose kernels are SCALE slower (-DPITOT_SPIN_BUILT_SCALE), for the
# whole-suite ab runs (lab/suite/whole-suite-ab-h200.sh BIN SPIN_HEAD OUT): compiled against a CUDA
# build folder's libraries, as its own bench_spin is.
# usage: lab/suite/spin-head.sh BUILD_DIR SCALE OUT_DIR   (e.g. build-gpu 1.02 .carry/spin2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
b=$(cd "${1:?usage: spin-head.sh BUILD_DIR SCALE OUT_DIR}" && pwd)
scale=${2:?}
out=${3:?}
mkdir -p "$out"
nvcc -O3 -std=c++20 --generate-code=arch=compute_90,code=sm_90 -I"$root/include" \
  -DPITOT_PROGRAM_NAME='"bench_spin"' -DPITOT_BENCHMARK_BUILD_TYPE='"Release"' -DPITOT_SPIN_BUILT_SCALE="$scale" \
  "$root/benchmarks/gpu/bench_spin.cu" -o "$out/bench_spin" \
  "$b/src/libpitot_main.a" "$b/src/cuda/libpitot_cuda.a" "$b/src/libpitot.a" -ldl -lrt -lpthread
echo "$out/bench_spin: kernels $scale x"
