#!/usr/bin/env bash
# Issue 33, item 3: where a GPU point's sampling time goes on the host (backend_info
# sampler_costs), over a slice of the bundled suite at pitot's default limits, one process a
# program: bench_gemm's llama3.1-8b points, bench_cast and bench_copy whole, each once with the
# default clock (the kernel clock where it takes the point) and bench_cast/bench_copy once more
# with --clock events.
# Usage: lab/suite/sampler-costs-h200.sh BUILD OUT_DIR
#   BUILD: a folder with src/driver/pitot and benchmarks/gpu/bench_* (libzip.so.4, libfmt.so.9 and
#   libcupti.so.13 in BUILD/lib). Writes OUT_DIR/sampler-costs.tar.xz.
set -uo pipefail
build=$(cd "${1:?usage: sampler-costs-h200.sh BUILD OUT_DIR}" && pwd)
out_root=${2:?usage: sampler-costs-h200.sh BUILD OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
out=$out_root/sampler-costs
mkdir -p "$out"
export LD_LIBRARY_PATH="$build/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cp "$build/lib/libcupti.so.13" "$build/benchmarks/gpu/" 2>/dev/null  # the kernel clock looks beside the program
now() { date +%s.%N; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv
} > "$out/environment.txt" 2>&1
run() {  # NAME PROGRAM ARGS...
  local name=$1 program=$2
  shift 2
  local s
  s=$(now)
  "$build/benchmarks/gpu/$program" --quiet --json "$out/$name.json" "$@" > "$out/$name.log" 2>&1
  echo "$name rc $? wall $(python3 -c "print(round($(now) - $s, 1))")" >> "$out/walls.txt"
}
run gemm bench_gemm --filter 'llama3\.1-8b'
run cast bench_cast
run copy bench_copy
run cast-events bench_cast --clock events
run copy-events bench_copy --clock events
for f in "$out"/*.json; do
  python3 "$here/phases.py" "$f" --by-benchmark > "${f%.json}-phases.md" 2>&1
done
tar -C "$out_root" -cJf "$out_root/sampler-costs.tar.xz" sampler-costs
cat "$out/walls.txt" "$out"/*-phases.md
