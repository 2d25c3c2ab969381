#!/usr/bin/env bash
# Issue 12's measurements in one device call (docs/results/kernel-clock-h200.md):
#  1. clocks: bench_copy's empty and copy kernels and memcpy, cold, 10 processes each of the default
#     clock (the kernel clock, declined by kernels of several waves), --clock kernel (forced) and
#     --clock events, alternated; ncu's gpu__time_duration on the kernels.
#  2. CI recipe, no change: `pitot run --processes K` of bench_copy and of bench_norm, RUNS times
#     each, every ordered pair compared with `pitot compare --threshold T`.
#  3. CI recipe, power: bench_spin runs at PITOT_SPIN_SCALE 1.00, 1.05, 1.02, alternated.
# Usage: lab/kernel-clock/run-h200.sh BIN_DIR OUT_DIR [K] [RUNS]   (BIN_DIR: pitot, bench_copy, bench_norm, bench_spin)
set -uo pipefail
bin=${1:?usage: lab/kernel-clock/run-h200.sh BIN_DIR OUT_DIR [K] [RUNS]}
out=${2:?}
k=${3:-3}
runs=${4:-6}
threshold=${THRESHOLD:-1%}
mkdir -p "$out/clocks" "$out/ci" "$out/power"
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { date +%s.%N; }
wall() { awk -v l="$1" -v a="$2" -v b="$(stamp)" 'BEGIN { printf "%s %.3f\n", l, b - a }'; }

# 1. Clocks.
filter='^(empty_kernel|(copy_kernel|memcpy_d2d)\[n=2\^(16|22|28)\])$'
for i in $(seq 1 10); do
  for variant in default kernel events; do
    clock=()
    [ $variant != default ] && clock=(--clock $variant)
    t=$(stamp)
    timeout 120 "$bin/bench_copy" --quiet "${clock[@]}" --filter "$filter" \
      --json "$out/clocks/$variant-$i.json" 2>> "$out/clocks/$variant.log"
    wall "$variant" "$t" >> "$out/clocks/walls.txt"
  done
done
for point in 'empty_kernel' 'copy_kernel[n=2^16]' 'copy_kernel[n=2^22]' 'copy_kernel[n=2^28]'; do
  label=$(echo "$point" | tr -d '[]^=')
  regex=$(echo "$point" | sed 's/[][^]/\\&/g')
  timeout 120 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum \
    -k regex:'do_nothing|copy_one_float_per_thread' -c 5 --csv --page raw \
    "$bin/bench_copy" --quiet --clock events --filter "^$regex\$" --max-time 0.2 \
    > "$out/clocks/ncu-$label.csv" 2>> "$out/clocks/ncu.log"
done

# 2. The CI recipe on unchanged code.
for i in $(seq 1 "$runs"); do
  for p in bench_copy bench_norm; do
    t=$(stamp)
    timeout 300 "$bin/pitot" run "$bin/$p" --no-asv --processes "$k" --progress none \
      --json "$out/ci/$p-$i.json" > /dev/null 2>> "$out/ci/$p.log"
    wall "$p" "$t" >> "$out/ci/walls.txt"
  done
done
for p in bench_copy bench_norm; do
  for a in $(seq 1 "$runs"); do for b in $(seq 1 "$runs"); do
    [ "$a" = "$b" ] && continue
    "$bin/pitot" compare "$out/ci/$p-$a.json" "$out/ci/$p-$b.json" --threshold "$threshold" --json \
      > "$out/ci/cmp-$p-$a-$b.json" 2> /dev/null
    echo "$p $a $b $?" >> "$out/ci/exits.txt"
  done; done
done

# 3. Power: a head 5% and 2% longer, against the base.
for i in 1 2 3; do
  for scale in 1.00 1.05 1.02; do
    t=$(stamp)
    PITOT_SPIN_SCALE=$scale timeout 120 "$bin/pitot" run "$bin/bench_spin" --no-asv --processes "$k" \
      --progress none --json "$out/power/spin-$scale-$i.json" > /dev/null 2>> "$out/power/spin.log"
    wall "spin-$scale" "$t" >> "$out/power/walls.txt"
  done
done
for head in 1.05 1.02; do
  for a in 1 2 3; do for b in 1 2 3; do
    "$bin/pitot" compare "$out/power/spin-1.00-$a.json" "$out/power/spin-$head-$b.json" --threshold "$threshold" \
      --json > "$out/power/cmp-$head-$a-$b.json" 2> /dev/null
    echo "$head $a $b $?" >> "$out/power/exits.txt"
  done; done
done
for a in 1 2 3; do for b in 1 2 3; do
  [ "$a" = "$b" ] && continue
  "$bin/pitot" compare "$out/power/spin-1.00-$a.json" "$out/power/spin-1.00-$b.json" --threshold "$threshold" \
    --json > "$out/power/cmp-1.00-$a-$b.json" 2> /dev/null
  echo "1.00 $a $b $?" >> "$out/power/exits.txt"
done; done
# The clocks tables.
ncu_args=()
for point in 'empty_kernel' 'copy_kernel[n=2^16]' 'copy_kernel[n=2^22]' 'copy_kernel[n=2^28]'; do
  ncu_args+=(--ncu "$point=$out/clocks/ncu-$(echo "$point" | tr -d '[]^=').csv")
done
for variant in default kernel events; do
  python3 "$(dirname "$0")/summary.py" --runs "$out"/clocks/$variant-*.json \
    --walls "$out/clocks/walls.txt" "${ncu_args[@]}" > "$out/clocks/summary-$variant.md"
done
echo "lab/kernel-clock/run-h200.sh: done"
