#!/usr/bin/env bash
# Issue 33: where the GEMMs' per-process offsets come from, in one device call. The whole-suite
# A/A (docs/results/whole-suite-ab.md) left most GEMM points undecided because their process
# medians spread 1-25% between processes. Here the noisiest of those points run alone in
# alternating processes of three kinds, each process writing its JSON (raw samples, clocks):
#   lean   ab's children's limits (--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
#   warm   the same with --warmup 0.25 (does a longer warm-up, reaching the power cap's steady
#          clock, shrink the spread?)
#   full   pitot run's defaults (what run-suite.sh measures history with)
# Then, for issue 34, the untrusted problem corpus's honest submission timed trusted and
# untrusted at the same clock (kernel, then events), three alternating processes each.
# Usage: lab/suite/offsets-h200.sh BIN_DIR OUT_DIR
#   BIN_DIR: bench_gemm, untrusted_problem_corpus, pitot and libcupti.so.13 (libzip.so.4 beside
#   them or in BIN_DIR/../lib). Writes OUT_DIR/offsets.tar.xz. Environment: ROUNDS (default 6).
set -uo pipefail
bin=$(cd "${1:?usage: offsets-h200.sh BIN_DIR OUT_DIR}" && pwd)
out_root=${2:?usage: offsets-h200.sh BIN_DIR OUT_DIR}
rounds=${ROUNDS:-6}
out=$out_root/offsets
mkdir -p "$out/gemm" "$out/parity"
export LD_LIBRARY_PATH="$bin:$bin/../lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv
  for p in bench_gemm untrusted_problem_corpus pitot; do echo "$p: $(ldd "$bin/$p" | grep -c 'not found') missing libraries"; done
} > "$out/environment.txt" 2>&1

# The noisiest GEMM points of the second whole-suite A/A (16 us to 17 ms).
filter='^(gemm_bf16\[model=llama3\.1-8b,tp=8,layer=attn_out,M=2048,|gemm_bf16\[model=llama3\.1-70b,tp=8,layer=qkv,M=8192,pass=fwd\]|moe_fp8\[model=deepseek-v2-lite,ep=8,layer=gate_up,routing=balanced,M=4096,|gemm_fp8\[model=qwen2\.5-7b,tp=1,layer=qkv,M=2048,pass=fwd\]|gemm_bf16\[model=llama3\.1-8b,tp=1,layer=attn_out,M=2048,pass=fwd\]|square_bf16\[n=4096\]|gemm_bf16\[model=llama3\.1-405b,tp=1,layer=qkv,M=8192,pass=bwd\]|gemm_fp8\[model=llama3\.1-405b,tp=1,layer=gate_up,M=2048,pass=fwd\+bwd\]|moe_bf16\[model=deepseek-v3,ep=8,layer=down,routing=skewed,M=4096,impl=strided\]|gemm_bf16\[model=llama3\.1-70b,tp=1,layer=qkv,M=8192,pass=fwd\+bwd\])'
"$bin/bench_gemm" --list --filter "$filter" > "$out/gemm/points.txt" 2>&1
lean=(--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
warm=(--warmup 0.25 --min-time 0.002 --max-time 0.03 --min-samples 10)
t0=$(date +%s.%N)
for r in $(seq 1 "$rounds"); do
  for kind in lean warm full; do
    case $kind in lean) args=("${lean[@]}") ;; warm) args=("${warm[@]}") ;; full) args=() ;; esac
    s=$(date +%s.%N)
    "$bin/bench_gemm" --filter "$filter" --quiet "${args[@]}" --json "$out/gemm/$kind-$r.json" \
      > "$out/gemm/$kind-$r.log" 2>&1
    echo "$kind $r rc $? start $(echo "$s - $t0" | bc) wall $(echo "$(date +%s.%N) - $s" | bc) temp $(nvidia-smi --query-gpu=temperature.gpu --format=csv,noheader)" >> "$out/gemm/walls.txt"
  done
done

# Issue 34: the honest submission at the same clock in both modes.
for clock in kernel events; do
  for r in 1 2 3; do
    for mode in trusted untrusted; do
      extra=(); [ "$mode" = untrusted ] && extra=(--untrusted)
      "$bin/pitot" run "$bin/untrusted_problem_corpus" --filter '^honest\[' --clock "$clock" "${extra[@]}" \
        --no-asv --sandbox off --progress plain --json "$out/parity/$mode-$clock-$r.json" \
        > "$out/parity/$mode-$clock-$r.log" 2>&1
      echo "$mode $clock $r rc $?" >> "$out/parity/runs.txt"
    done
  done
done
tar -C "$out_root" -cJf "$out_root/offsets.tar.xz" offsets
ls -la "$out_root"
