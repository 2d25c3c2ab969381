#!/usr/bin/env bash
# Configures and builds pitot into ${PITOT_BUILD_DIR:-build}. Extra arguments go to cmake's configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PITOT_BUILD_DIR:-$root/build}
# Find a CUDA toolkit that is installed but not on PATH (the usual /usr/local/cuda).
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j"$(nproc)"
