#!/usr/bin/env bash
# Raw data for judging `pitot compare` on the H200 (issue 12): separate processes of bench_spin
# (a 2/20/200 us spin kernel) at PITOT_SPIN_SCALE 1.00 (the base), 1.05 and 1.02 (heads), and of
# bench_copy and bench_norm (no change), each process writing its --json. Alternated, so drift is
# shared. Usage: lab/kernel-clock/verdict-data.sh BIN_DIR OUT_DIR ROUNDS [PROGRAMS...] (default programs: spin copy)
set -uo pipefail
bin=${1:?usage: lab/kernel-clock/verdict-data.sh BIN_DIR OUT_DIR ROUNDS [PROGRAMS...]}
out=${2:?}
rounds=${3:?}
shift 3
programs=("$@")
[ $# -gt 0 ] || programs=(spin copy)
mkdir -p "$out"
: > "$out/walls.txt"
one() {  # one LABEL ENV... -- PROGRAM ARGS...
  local label=$1; shift
  local start end
  start=$(date +%s.%N)
  env "$@" > /dev/null 2>> "$out/$label.log" || echo "$label exited $?" >> "$out/errors.txt"
  end=$(date +%s.%N)
  awk -v l="$label" -v a="$start" -v b="$end" 'BEGIN { printf "%s %.3f\n", l, b - a }' >> "$out/walls.txt"
}
for i in $(seq 1 "$rounds"); do
  for p in "${programs[@]}"; do
    case $p in
      spin)
        one "spin-1.00-a$i" PITOT_SPIN_SCALE=1.00 "$bin/bench_spin" --quiet --json "$out/spin-1.00-a$i.json"
        one "spin-1.05-$i" PITOT_SPIN_SCALE=1.05 "$bin/bench_spin" --quiet --json "$out/spin-1.05-$i.json"
        one "spin-1.00-b$i" PITOT_SPIN_SCALE=1.00 "$bin/bench_spin" --quiet --json "$out/spin-1.00-b$i.json"
        one "spin-1.02-$i" PITOT_SPIN_SCALE=1.02 "$bin/bench_spin" --quiet --json "$out/spin-1.02-$i.json" ;;
      copy) one "copy-$i" X=1 "$bin/bench_copy" --quiet --json "$out/copy-$i.json" ;;
      norm) one "norm-$i" X=1 "$bin/bench_norm" --quiet --json "$out/norm-$i.json" ;;
    esac
  done
done
echo "verdict-data: $(ls "$out"/*.json | wc -l) runs in $out"
