#!/usr/bin/env bash
# Compare pitot's CUDA timing with triton.testing.do_bench, torch.utils.benchmark and ncu on the
# same copies. Usage: run.sh BENCH_COPY OUTDIR [REPEATS]
#   BENCH_COPY  path to the bench_copy program (benchmarks/gpu/bench_copy.cu)
#   OUTDIR      where the raw outputs and summary.md go
# Needs python3 with torch and triton for the comparison (SKIP_TORCH=1 leaves it out), ncu for
# kernel durations (each optional).
set -uo pipefail
bench=${1:?usage: run.sh BENCH_COPY OUTDIR [REPEATS]}
out=${2:?usage: run.sh BENCH_COPY OUTDIR [REPEATS]}
repeats=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
: > "$out/pitot-walls.txt"

points=$("$bench" --list --json - | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["points"]))')
for i in $(seq 1 "$repeats"); do
  start=$(date +%s.%N)
  "$bench" --quiet --json "$out/pitot-$i.json" || echo "bench_copy run $i exited $?" >&2
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" -v p="$points" 'BEGIN { printf "%.3f %d\n", b - a, p }' >> "$out/pitot-walls.txt"
done

if [ -n "${SKIP_TORCH:-}" ]; then
  echo "SKIP_TORCH set: skipping do_bench and torch.utils.benchmark" >&2
elif python3 -c 'import torch, triton' 2>/dev/null; then
  for i in $(seq 1 "$repeats"); do
    python3 "$here/torch_timers.py" > "$out/torch-$i.jsonl" || echo "torch_timers run $i failed" >&2
  done
else
  echo "torch or triton missing: skipping do_bench and torch.utils.benchmark" >&2
fi

ncu_args=()
if command -v ncu > /dev/null; then
  # Kernel durations with caches flushed and clocks left alone: the first 5 launches of each
  # kernel, one program run per point (pitot sees the injected tool and queues no blocker).
  for point in 'empty_kernel' 'copy_kernel[n=2^16]' 'copy_kernel[n=2^22]' 'copy_kernel[n=2^28]'; do
    label=$(echo "$point" | tr -d '[]^=' )
    regex=$(echo "$point" | sed 's/[][^]/\\&/g')
    ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum \
        -k regex:'do_nothing|copy_one_float_per_thread' -c 5 --csv --page raw \
        "$bench" --quiet --filter "^$regex\$" --max-time 0.2 --json "$out/ncu-$label.json" \
        > "$out/ncu-$label.csv" 2>> "$out/ncu.log"
    ncu_args+=(--ncu "$point=$out/ncu-$label.csv")
  done
fi

torch_files=("$out"/torch-*.jsonl)
[ -e "${torch_files[0]}" ] || torch_files=()
python3 "$here/summarize.py" --pitot "$out"/pitot-*.json --pitot-walls "$out/pitot-walls.txt" \
  --torch "${torch_files[@]}" "${ncu_args[@]}" | tee "$out/summary.md"
