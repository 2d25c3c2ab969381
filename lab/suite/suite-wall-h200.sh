#!/usr/bin/env bash
# Issue 33 in one device call, two measurements:
#  1. the first-sample fix: the noisiest GEMM points (lab/suite/offsets-h200.sh's) at ab's lean
#     limits, processes of the old and the new bench_gemm alternated, each writing its JSON;
#  2. item 4: the whole bundled suite as scripts/run-suite.sh runs it (pitot run's default limits,
#     one process a program, a fresh machine's empty cuDNN plan cache), its wall and its phases.
# Usage: lab/suite/suite-wall-h200.sh OLD_GEMM BUILD OUT_DIR
#   OLD_GEMM: the bench_gemm before the fix; BUILD: a build folder with src/driver/pitot and
#   benchmarks/gpu/bench_* (libzip.so.4, libfmt.so.9 and libcupti.so.13 in BUILD/lib).
#   Writes OUT_DIR/suite-wall.tar.xz. Environment: ROUNDS (default 6), SUITE_S (the suite run's
#   limit in seconds, default 420: SIGTERM then, the driver keeps what finished).
set -uo pipefail
old=$(cd "$(dirname "${1:?usage: suite-wall-h200.sh OLD_GEMM BUILD OUT_DIR}")" && pwd)/$(basename "$1")
build=$(cd "${2:?usage: suite-wall-h200.sh OLD_GEMM BUILD OUT_DIR}" && pwd)
out_root=${3:?usage: suite-wall-h200.sh OLD_GEMM BUILD OUT_DIR}
rounds=${ROUNDS:-6}
suite_s=${SUITE_S:-420}
here=$(cd "$(dirname "$0")" && pwd)
out=$out_root/suite-wall
mkdir -p "$out/gemm"
export LD_LIBRARY_PATH="$build/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
now() { date +%s.%N; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv
  for p in "$old" "$build/src/driver/pitot" "$build"/benchmarks/gpu/bench_*; do
    echo "$(basename "$p"): $(ldd "$p" | grep -c 'not found') missing libraries"
  done
} > "$out/environment.txt" 2>&1

filter='^(gemm_bf16\[model=llama3\.1-8b,tp=8,layer=attn_out,M=2048,|gemm_bf16\[model=llama3\.1-70b,tp=8,layer=qkv,M=8192,pass=fwd\]|moe_fp8\[model=deepseek-v2-lite,ep=8,layer=gate_up,routing=balanced,M=4096,|gemm_fp8\[model=qwen2\.5-7b,tp=1,layer=qkv,M=2048,pass=fwd\]|gemm_bf16\[model=llama3\.1-8b,tp=1,layer=attn_out,M=2048,pass=fwd\]|square_bf16\[n=4096\]|gemm_bf16\[model=llama3\.1-405b,tp=1,layer=qkv,M=8192,pass=bwd\]|gemm_fp8\[model=llama3\.1-405b,tp=1,layer=gate_up,M=2048,pass=fwd\+bwd\]|moe_bf16\[model=deepseek-v3,ep=8,layer=down,routing=skewed,M=4096,impl=strided\]|gemm_bf16\[model=llama3\.1-70b,tp=1,layer=qkv,M=8192,pass=fwd\+bwd\])'
lean=(--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
for r in $(seq 1 "$rounds"); do
  for kind in old new; do
    program=$old; [ "$kind" = new ] && program=$build/benchmarks/gpu/bench_gemm
    s=$(now)
    "$program" --filter "$filter" --quiet "${lean[@]}" --json "$out/gemm/$kind-$r.json" > "$out/gemm/$kind-$r.log" 2>&1
    echo "$kind $r rc $? wall $(python3 -c "print(round($(now) - $s, 2))")" >> "$out/gemm/walls.txt"
  done
done

# Item 4: run-suite.sh's run step.
"$here/whole-suite.sh" "$build" "$out" "$suite_s"
tar -C "$out_root" -cJf "$out_root/suite-wall.tar.xz" suite-wall
cat "$out/suite-wall.txt" "$out/suite-phases.md"
