#!/usr/bin/env bash
# Issue 33: do the GEMMs' process medians at ab's lean limits spread because a point's samples
# come in turns between other points' (interleaving), each turn starting from the state the
# previous point left the card in? The noisiest GEMM points of lab/suite/offsets-h200.sh, in
# alternating processes of three kinds, each writing its JSON:
#   lean        ab's children's limits (--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
#   contiguous  the same with --no-interleave (each point's samples back to back)
#   longer      the same with --max-time 0.1
# Usage: lab/suite/turns-h200.sh BENCH_GEMM OUT_DIR   (libcupti.so.13 beside BENCH_GEMM)
#   Writes OUT_DIR/turns/. Environment: ROUNDS (default 6).
set -uo pipefail
gemm=${1:?usage: turns-h200.sh BENCH_GEMM OUT_DIR}
out=${2:?usage: turns-h200.sh BENCH_GEMM OUT_DIR}/turns
rounds=${ROUNDS:-6}
mkdir -p "$out"
filter='^(gemm_bf16\[model=llama3\.1-8b,tp=8,layer=attn_out,M=2048,|gemm_bf16\[model=llama3\.1-70b,tp=8,layer=qkv,M=8192,pass=fwd\]|moe_fp8\[model=deepseek-v2-lite,ep=8,layer=gate_up,routing=balanced,M=4096,|gemm_fp8\[model=qwen2\.5-7b,tp=1,layer=qkv,M=2048,pass=fwd\]|gemm_bf16\[model=llama3\.1-8b,tp=1,layer=attn_out,M=2048,pass=fwd\]|square_bf16\[n=4096\]|gemm_bf16\[model=llama3\.1-405b,tp=1,layer=qkv,M=8192,pass=bwd\]|gemm_fp8\[model=llama3\.1-405b,tp=1,layer=gate_up,M=2048,pass=fwd\+bwd\]|moe_bf16\[model=deepseek-v3,ep=8,layer=down,routing=skewed,M=4096,impl=strided\]|gemm_bf16\[model=llama3\.1-70b,tp=1,layer=qkv,M=8192,pass=fwd\+bwd\])'
lean=(--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
for r in $(seq 1 "$rounds"); do
  for kind in lean contiguous longer; do
    case $kind in
      lean) args=("${lean[@]}") ;;
      contiguous) args=("${lean[@]}" --no-interleave) ;;
      longer) args=(--warmup 0.005 --min-time 0.002 --max-time 0.1 --min-samples 10) ;;
    esac
    s=$(date +%s.%N)
    "$gemm" --filter "$filter" --quiet "${args[@]}" --json "$out/$kind-$r.json" > "$out/$kind-$r.log" 2>&1
    echo "$kind $r rc $? wall $(python3 -c "print(round($(date +%s.%N) - $s, 2))")" >> "$out/walls.txt"
  done
done
