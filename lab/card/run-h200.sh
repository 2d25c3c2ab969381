#!/usr/bin/env bash
# The numbers of docs/results/card-h200.md: the card's state per point, energy per call and the
# thermal guard on the H200. Usage: lab/card/run-h200.sh BIN_DIR OUT_DIR
# BIN_DIR holds pitot and the programs (bench_gemm, bench_copy, bench_norm, bench_spin).
#  1. NVML's energy counter and power reading: step and update period, idle and under load.
#  2. Energy per call of GEMM, copy, norm and spin points over 5 processes each (--energy 1),
#     beside nvidia-smi's power reading during the run, and the same points without --energy
#     (time medians on and off, alternated twice).
#     ENERGY_ARGS adds flags to those runs (e.g. --cool-to 35, so that every process starts the
#     8192 GEMM on a card equally cool).
#  3. The thermal guard: the card warmed by a GEMM, then points with --cool-to between the idle
#     and the warm temperature; and how fast the card cools when the load stops.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:?usage: run-h200.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?}
mkdir -p "$out"
cd "$out"
pitot=$bin/pitot
filter=${CARD_FILTER:-'^(square_bf16\[n=(4096|8192)\]|copy_kernel\[n=2\^28\]|rmsnorm\[M=4096,hidden=8192,pass=fwd\]|spin_kernel\[us=200\])$'}
suite=$out/suite
mkdir -p "$suite"
for p in bench_gemm bench_copy bench_norm bench_spin; do [ -x "$bin/$p" ] && ln -sf "$bin/$p" "$suite/$p"; done
smi() { nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv,noheader "$@"; }
log() { echo "$*" | tee -a summary.txt; }
timed() {  # timed NAME COMMAND...: stdout to NAME.txt, stderr to NAME.log
  local name=$1 t0 rc
  shift
  t0=$(date +%s.%N)
  "$@" >"$name.txt" 2>"$name.log"
  rc=$?
  log "$name exit $rc wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}
log "start: $(smi)"
idle=$(smi | awk -F', ' '{print $4}')
# 1. The counter.
if [ "${COUNTER:-1}" = 1 ]; then
python3 "$here/nvml_counter.py" --seconds 3 >counter-idle.txt 2>&1
"$bin/bench_gemm" --filter '^square_bf16\[n=8192\]$' --max-time 12 --min-time 12 --ci-target 1e-9 >load.txt 2>&1 &
load=$!
sleep 4
python3 "$here/nvml_counter.py" --seconds 3 >counter-load.txt 2>&1
wait $load
log "counter idle: $(cat counter-idle.txt)"
log "counter under a GEMM: $(cat counter-load.txt)"
log "after the load: $(smi)"
fi
# 2. Energy on and off, alternated, with nvidia-smi's reading beside it.
smi -lms 200 >smi-run.csv &
smi_pid=$!
# One process per run, on and off alternated: the spread between runs is the spread between
# processes, and drift hits both sides alike.
# --energy runs a program's points one after another: "offseq" is that schedule without it.
for round in $(seq 1 "${ENERGY_ROUNDS:-5}"); do
  timed "energy-on-$round" "$pitot" run "$suite" --filter "$filter" ${ENERGY_ARGS:-} --energy 1 --no-asv \
    --json "energy-on-$round.json" --progress none
  timed "energy-off-$round" "$pitot" run "$suite" --filter "$filter" ${ENERGY_ARGS:-} --no-asv \
    --json "energy-off-$round.json" --progress none
  timed "energy-offseq-$round" "$pitot" run "$suite" --filter "$filter" ${ENERGY_ARGS:-} --no-interleave --no-asv \
    --json "energy-offseq-$round.json" --progress none
done
kill "$smi_pid" 2>/dev/null
timed compare-state "$pitot" compare energy-off-1.json energy-on-5.json --threshold 1%
[ "${GUARD:-1}" = 1 ] || { python3 "$here/summary.py" . | tee -a summary.txt; exit 0; }
# 3. The thermal guard. Warm the card for 20 s, then time a short point with --cool-to halfway
# between idle and warm; and the cooling curve with nothing running.
"$bin/bench_gemm" --filter '^square_bf16\[n=8192\]$' --max-time 20 --min-time 20 --ci-target 1e-9 >warm.txt 2>&1
warm=$(smi | awk -F', ' '{print $4}')
target=$(( (idle + warm) / 2 ))
log "guard: idle ${idle} C, warm ${warm} C, --cool-to ${target}"
timed guard "$pitot" run "$suite" --filter '^spin_kernel\[us=2\]$' --cool-to "$target" --cool-timeout 60 --no-asv \
  --json guard.json --progress none
grep -h "waited" guard.log | tee -a summary.txt
"$bin/bench_gemm" --filter '^square_bf16\[n=8192\]$' --max-time 20 --min-time 20 --ci-target 1e-9 >warm2.txt 2>&1
smi -lms 500 >cooling.csv &
cool_pid=$!
sleep 30
kill "$cool_pid" 2>/dev/null
python3 "$here/summary.py" . | tee -a summary.txt
