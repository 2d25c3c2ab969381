#!/usr/bin/env bash
# Issue 33, item 3: where a GPU point's sampling time goes on the host (backend_info
# sampler_costs), over a slice of the bundled suite (bench_gemm's llama3.1-8b M=2048 points,
# bench_cast and bench_copy whole), one process a program, in three passes: pitot's defaults,
# longer samples (--min-sample-time 0.004: 4 ms of device work a sample instead of 1 ms, so each
# sample's fixed host cost is paid over more launches), and the defaults again (the spread
# between processes that any difference is to be read against).
# Usage: lab/suite/sampler-costs-h200.sh BUILD OUT_DIR
#   BUILD: a folder with benchmarks/gpu/bench_{gemm,cast,copy} and lib/libcupti.so.13.
#   Writes OUT_DIR/sampler-costs.tar.xz.
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
for pass in a1 long a2; do
  extra=()
  [ "$pass" = long ] && extra=(--min-sample-time 0.004)
  run "$pass-gemm" bench_gemm --filter 'llama3\.1-8b.*M=2048' "${extra[@]}"
  run "$pass-cast" bench_cast "${extra[@]}"
  run "$pass-copy" bench_copy "${extra[@]}"
  for f in "$out/$pass"-*.json; do
    python3 "$here/phases.py" "$f" > "${f%.json}-phases.md" 2>&1
  done
  # After each pass: a call cut short by its time limit still brings back the passes done.
  tar -C "$out_root" -cJf "$out_root/sampler-costs.tar.xz" sampler-costs
done
cat "$out/walls.txt"
for f in "$out"/*-phases.md; do echo "== $f"; tail -1 "$f"; done
