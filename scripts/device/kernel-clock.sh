#!/usr/bin/env bash
# The kernel clock against events and ncu on the H200 (issue 12): the empty kernel and the copy
# kernel at n = 2^16, 2^22, 2^28, cold; 10 processes with --clock kernel and 10 with --clock
# events, alternated; then ncu's gpu__time_duration on the same points; then a table
# (kernel-clock-summary.py). About 2-4 minutes of GPU time.
#
# Usage: kernel-clock.sh BIN_DIR OUT_DIR [PROCESSES]
#   BIN_DIR  holds bench_copy (built with CUDA and CUPTI headers); libcupti.so.13 may lie beside
#            it (found there first), else the toolkit's is used (/usr/local/cuda/extras/CUPTI/lib64)
#   OUT_DIR  raw JSON, ncu CSV, logs and summary.md
set -uo pipefail
bin=${1:?usage: kernel-clock.sh BIN_DIR OUT_DIR [PROCESSES]}
out=${2:?usage: kernel-clock.sh BIN_DIR OUT_DIR [PROCESSES]}
processes=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
bench="$bin/bench_copy"
[ -x "$bench" ] || { echo "kernel-clock.sh: no bench_copy in $bin" >&2; exit 2; }
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
filter='^(empty_kernel|(copy_kernel|memcpy_d2d)\[n=2\^(16|22|28)\])$'
: > "$out/walls.txt"

run_one() {  # clock index
  local start end
  start=$(date +%s.%N)
  timeout 120 "$bench" --quiet --timing cold --clock "$1" --filter "$filter" --json "$out/$1-$2.json" \
    2>> "$out/$1.log" || echo "bench_copy --clock $1 run $2 exited $?" | tee -a "$out/$1.log" >&2
  end=$(date +%s.%N)
  awk -v c="$1" -v a="$start" -v b="$end" 'BEGIN { printf "%s %.3f\n", c, b - a }' >> "$out/walls.txt"
}

# Alternated, so drift over the minutes is shared by both clocks.
for i in $(seq 1 "$processes"); do
  run_one kernel "$i"
  run_one events "$i"
done

ncu_args=()
if command -v ncu > /dev/null; then
  # Kernel durations, caches flushed, clocks left alone: the first 5 launches of the kernel in
  # one process per point (the kernel clock steps aside under ncu: --clock events).
  for point in 'empty_kernel' 'copy_kernel[n=2^16]' 'copy_kernel[n=2^22]' 'copy_kernel[n=2^28]'; do
    label=$(echo "$point" | tr -d '[]^=')
    regex=$(echo "$point" | sed 's/[][^]/\\&/g')
    timeout 120 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum \
      -k regex:'do_nothing|copy_one_float_per_thread' -c 5 --csv --page raw \
      "$bench" --quiet --clock events --filter "^$regex\$" --max-time 0.2 \
      > "$out/ncu-$label.csv" 2>> "$out/ncu.log"
    ncu_args+=(--ncu "$point=$out/ncu-$label.csv")
  done
else
  echo "kernel-clock.sh: ncu not on the PATH; no ncu column" >&2
fi

python3 "$here/kernel-clock-summary.py" --runs "$out"/kernel-*.json "$out"/events-*.json \
  --walls "$out/walls.txt" "${ncu_args[@]}" | tee "$out/summary.md"
