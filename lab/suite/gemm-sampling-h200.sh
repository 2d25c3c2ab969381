#!/usr/bin/env bash
# Issue 33: does a GEMM point's spread between processes fall with its sampling time, and what does
# the time cost? 96 BF16 GEMM points (Llama 3.1 8B and 70B) at ab's lean limits with --max-time
# 0.03 (ab's default), 0.12 and 0.4 s, three processes each, the settings alternated round by round.
# usage: lab/suite/gemm-sampling-h200.sh BIN_DIR OUT_DIR   (writes OUT_DIR/gemm-sampling/)
#   Tables here afterwards: lab/suite/gemm_sampling.py OUT_DIR/gemm-sampling
set -uo pipefail
bin=$(cd "${1:?usage: gemm-sampling-h200.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?usage: gemm-sampling-h200.sh BIN_DIR OUT_DIR}/gemm-sampling
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
filter='^gemm_bf16\[model=llama3\.1-(8b|70b)'
for round in 1 2 3; do
  for t in 0.03 0.12 0.4; do
    start=$(date +%s.%N)
    "$bin/pitot" run "$bin/bench_gemm" --filter "$filter" --warmup 0.005 --min-time 0.002 --max-time "$t" \
      --min-samples 10 --no-asv --progress none --json "$out/t$t-r$round.json" > "$out/t$t-r$round.log" 2>&1
    echo "$t $round rc $? wall $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >> "$out/walls.txt"
  done
done
cat "$out/walls.txt"
