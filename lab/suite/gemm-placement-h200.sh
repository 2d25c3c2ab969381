#!/usr/bin/env bash
# Issue 33: lab/suite/gemm_placement.cu (built here by `lab/suite/gemm-placement-h200.sh build B`
# from a CUDA build folder B; then on the GPU machine `lab/suite/gemm-placement-h200.sh run BIN OUT`):
# PROCESSES (default 4) processes at ab's lean limits, no interleaving (the sets in order), each writing its JSON.
# Tables here afterwards: lab/suite/gemm_placement.py OUT/gemm-placement
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:?usage: gemm-placement-h200.sh build BUILD_DIR | run BIN OUT}" in
  build)
    b=$(cd "${2:?}" && pwd)
    nvcc -O3 -std=c++20 --generate-code=arch=compute_90,code=sm_90 -I"$root/include" -DPITOT_PROGRAM_NAME='"gemm_placement"' \
      "$root/lab/suite/gemm_placement.cu" -o "$root/.carry/bin/gemm_placement" \
      "$b/src/libpitot_main.a" "$b/src/cuda/libpitot_cuda.a" "$b/src/libpitot.a" -lcublas -ldl -lrt -lpthread
    ;;
  run)
    bin=$(cd "${2:?}" && pwd)
    out=${3:?}/gemm-placement
    mkdir -p "$out"
    export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    for p in $(seq 1 "${PROCESSES:-4}"); do
      "$bin/gemm_placement" --warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10 --no-interleave \
        --json "$out/p$p.json" > "$out/p$p.txt" 2>&1
    done
    ;;
esac
