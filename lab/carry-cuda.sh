#!/usr/bin/env bash
# Run here (the build machine) before a device call that runs carried CUDA binaries (NOTES.md,
# "Working on the borrowed H200"): builds the driver, the CUPTI tracer and the suite's GPU programs
# for Hopper (arch 90) in build-gpu/, and copies them flat into .carry/bin with the libraries the
# GPU machine lacks (libzip, libfmt, CUPTI's); then the spin heads the whole-suite ab runs compare
# against (.carry/spin2, .carry/spin5: kernels 2% and 5% slower). About 12 minutes from a cold
# build folder on the 2-core machine. The lab scripts take .carry/bin as BIN.
# usage: lab/carry-cuda.sh [extra ninja targets...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
b=$root/build-gpu
export PATH=/usr/local/cuda/bin:$PATH
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
[ -f "$b/build.ninja" ] || cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPITOT_BUILD_TESTS=OFF \
  -DPITOT_ENABLE_HIP=OFF -DCMAKE_CUDA_ARCHITECTURES=90
programs=(bench_spin bench_copy bench_memory bench_norm bench_cast bench_gemm bench_attention)
ninja -C "$b" pitot_driver pitot_cupti "${programs[@]}" "$@"
rm -rf "$root/.carry/bin" "$root/.carry/spin2" "$root/.carry/spin5"
mkdir -p "$root/.carry/bin"
cp "$b/src/driver/pitot" "$b/src/cupti_tracer/libpitot_cupti.so" "$root/.carry/bin/"
for p in "${programs[@]}"; do cp "$b/benchmarks/gpu/$p" "$root/.carry/bin/"; done
cp -L "/usr/lib/$multiarch/libzip.so.4" "/usr/lib/$multiarch/libfmt.so.9" /usr/local/cuda/lib64/libcupti.so.13 \
  "$root/.carry/bin/"
strip "$root/.carry/bin/pitot" "$root/.carry/bin"/bench_*
for scale in 1.02 1.05; do
  dir=$root/.carry/spin$(awk -v s="$scale" 'BEGIN { printf "%d", (s - 1) * 100 + 0.5 }')
  "$root/lab/suite/spin-head.sh" "$b" "$scale" "$dir"
  strip "$dir/bench_spin"
done
LD_LIBRARY_PATH=$root/.carry/bin "$root/.carry/bin/pitot" --version
du -sh "$root/.carry"
