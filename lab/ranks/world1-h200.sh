#!/usr/bin/env bash
# Issue 36 on one GPU: the bundled collectives (benchmarks/gpu/bench_collectives.cu) in a world of
# one rank through NCCL, alone and under `pitot run --ranks 1`, each writing its JSON and table.
# Usage: lab/ranks/world1-h200.sh BIN_DIR OUT_DIR
#   BIN_DIR: pitot and bench_collectives (libzip.so.4 and libfmt.so.9 in BIN_DIR/lib; NCCL from
#   the machine's CUDA). Writes OUT_DIR/world1/.
set -uo pipefail
bin=$(cd "${1:?usage: world1-h200.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?usage: world1-h200.sh BIN_DIR OUT_DIR}/world1
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin/lib:$bin:/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ nvidia-smi -L; ldd "$bin/bench_collectives" | grep -E "nccl|not found"; } > "$out/environment.txt" 2>&1
"$bin/bench_collectives" --max-time 0.2 --json "$out/alone.json" > "$out/alone.txt" 2>&1
echo "alone rc $?" >> "$out/runs.txt"
"$bin/pitot" run "$bin/bench_collectives" --ranks 1 --max-time 0.2 --no-asv --progress plain \
  --json "$out/pitot.json" > "$out/pitot.txt" 2>&1
echo "pitot --ranks 1 rc $?" >> "$out/runs.txt"
