#!/bin/sh
# GPU smoke test of the bundled suite: a few small points of every program, each of which checks its
# result against its reference before timing it. Any failed point fails the test.
# Usage: gpu_smoke.sh DIR (the folder holding the bench_* programs). Exit 77 (skipped) without a GPU.
set -u
dir=$1
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU on this machine (nvidia-smi -L fails)"
  exit 77
fi
status=0
run() {
  program=$1
  shift
  if [ ! -x "$dir/$program" ]; then
    echo "note: $program is not built (left out by CMake), not tested"
    return
  fi
  echo "== $program $*"
  "$dir/$program" --no-interleave --min-samples 5 --max-time 0.2 "$@"
  code=$?
  if [ "$code" -ne 0 ]; then
    echo "FAILED: $program exited with $code"
    status=1
  fi
}
run bench_memory --axis bytes=2^20,2^26
run bench_norm --axis M=1024 --axis hidden=3584,16384
run bench_cast --axis M=1024 --axis hidden=4096
run bench_gemm --axis gemm_bf16:model=llama3.1-8b --axis gemm_fp8:model=llama3.1-8b --axis tp=8 --axis M=1024 \
  --axis moe_bf16:model=deepseek-v2 --axis moe_fp8:model=deepseek-v2 --axis ep=8 --axis n=4096
run bench_attention --axis model=llama3.1-8b,qwen2.5-7b --axis seq=1024 --axis dtype=bf16 --axis layout=bshd
run bench_overlap --axis n=2048 --axis bytes=2^24   # one rank: every schedule, each checked
exit $status
