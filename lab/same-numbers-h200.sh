#!/usr/bin/env bash
# After a change to the engine or a backend that must not change a number (issue 24's GPU seam):
# on the GPU machine, the CUDA backend's GPU tests, then `pitot ab` of the programs built before
# the change (base) against the same programs built after it (head). Expect exit 0 and no point
# slower or faster. Usage: lab/same-numbers-h200.sh OLD_BIN NEW_BIN OUT_DIR
# Each BIN holds the programs (and NEW_BIN the pitot driver and test_cuda_gpu); FILTER narrows the
# points, AB_BUDGET bounds ab's time (240 s).
set -uo pipefail
old=$(cd "${1:?usage: same-numbers-h200.sh OLD_BIN NEW_BIN OUT_DIR}" && pwd)
new=$(cd "${2:?}" && pwd)
out=${3:?}
mkdir -p "$out/base" "$out/head"
filter=${FILTER:-'^(copy_kernel|memcpy_d2d)\[n=2\^(16|22|28)\]|^spin_kernel|^rmsnorm\[M=1024,hidden=4096,pass=(fwd|bwd)\]|^gemm_bf16\[model=llama3\.1-8b,tp=1,layer=qkv,M=8192,pass=fwd\]$'}
for p in bench_copy bench_spin bench_norm bench_gemm; do
  [ -x "$old/$p" ] && ln -sf "$old/$p" "$out/base/$p"
  [ -x "$new/$p" ] && ln -sf "$new/$p" "$out/head/$p"
done
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv; } >"$out/environment.txt" 2>&1
t=$(date +%s)
# As ctest runs them: the device-lost test kills the CUDA context, so it has a process of its own.
timeout 240 "$new/test_cuda_gpu" --gtest_filter=-DeviceLost.* >"$out/test_cuda_gpu.log" 2>&1
echo "test_cuda_gpu: exit $?, $(($(date +%s) - t)) s" | tee "$out/steps.txt"
timeout 60 "$new/test_cuda_gpu" --gtest_filter=DeviceLost.* >"$out/test_cuda_gpu_device_lost.log" 2>&1
echo "test_cuda_gpu device lost: exit $?" | tee -a "$out/steps.txt"
t=$(date +%s)
"$new/pitot" ab "$out/base" "$out/head" --filter "$filter" --threshold 1% --budget "${AB_BUDGET:-240}" \
  --progress none --json-dir "$out/ab" >"$out/ab.txt" 2>"$out/ab.log"
echo "pitot ab old new: exit $?, $(($(date +%s) - t)) s" | tee -a "$out/steps.txt"
tail -3 "$out/test_cuda_gpu.log" "$out/test_cuda_gpu_device_lost.log"
cat "$out/ab.txt"
