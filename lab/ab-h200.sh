#!/usr/bin/env bash
# The numbers of docs/results/ab-h200.md: pitot ab on the H200, no-change pairs (the same build
# against itself) over points of the suite, and heads made 2% and 5% slower (bench_spin with
# PITOT_SPIN_SCALE, a kernel whose length is a parameter), beside two `pitot run --processes 3`
# sides for the wall time. Usage: lab/ab-h200.sh BIN_DIR OUT_DIR
# BIN_DIR holds pitot and the programs (bench_copy, bench_norm, bench_cast, bench_spin, ...).
# Knobs: AB_FILTER, RUN3=0, AA_PAIRS, SPIN_PAIRS, AB_BUDGET (s), AB_MAX_PROCESSES (12), SUMMARY_COPY.
set -uo pipefail
bin=$(cd "${1:?usage: ab-h200.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?}
mkdir -p "$out"
cd "$out"
pitot=$bin/pitot
filter=${AB_FILTER:-'^(copy_kernel|memcpy_d2d)\[n=2\^(16|22|28)\]|^spin_kernel|^rmsnorm\[M=(1024|4096),hidden=(4096|8192),pass=(fwd|bwd)\]|^layernorm\[M=4096,hidden=(4096|8192),pass=fwd\]|^cast_to_fp8\[format=e4m3,M=(1024|4096),hidden=(4096|8192)\]|^copy\[bytes=2\^(20|26|30)\]'}
suite=$out/suite
mkdir -p "$suite"
for p in bench_copy bench_memory bench_norm bench_cast bench_spin bench_gemm bench_attention; do [ -x "$bin/$p" ] && ln -sf "$bin/$p" "$suite/$p"; done
for scale in 1.02 1.05; do
  mkdir -p "head-$scale"
  printf '#!/bin/sh\nPITOT_SPIN_SCALE=%s exec "%s" "$@"\n' "$scale" "$bin/bench_spin" >"head-$scale/bench_spin"
  chmod +x "head-$scale/bench_spin"
done
"$pitot" list "$suite" --filter "$filter" >list.txt 2>&1
echo "points: $(tail -1 list.txt)" | tee summary.txt
timed() {  # timed NAME COMMAND...: stdout to NAME.txt, stderr to NAME.log, wall and exit code to summary.txt
  local name=$1 t0 rc
  shift
  t0=$(date +%s.%N)
  "$@" >"$name.txt" 2>"$name.log"
  rc=$?
  echo "$name exit $rc wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee -a summary.txt
  [ -z "${SUMMARY_COPY:-}" ] || cp summary.txt "$SUMMARY_COPY"  # what a cut-off call still brings back
}
# Reference: the CI recipe, two sides one after the other.
if [ "${RUN3:-1}" = 1 ]; then
timed run3-base "$pitot" run "$suite" --filter "$filter" --processes 3 --no-asv --json run3-base.json --progress none
timed run3-head "$pitot" run "$suite" --filter "$filter" --processes 3 --no-asv --json run3-head.json --progress none
timed compare3 "$pitot" compare run3-base.json run3-head.json --threshold 1% --json
fi
for i in $(seq 1 "${AA_PAIRS:-2}"); do
  timed "aa-$i" "$pitot" ab "$suite" "$suite" --filter "$filter" --threshold 1% --progress none --json --json-dir "aa-$i" \
    --budget "${AB_BUDGET:-0}" --max-processes "${AB_MAX_PROCESSES:-12}"
done
for i in $(seq 1 "${SPIN_PAIRS:-1}"); do
  for scale in 1.02 1.05; do
    timed "spin-$scale-$i" "$pitot" ab "$bin/bench_spin" "head-$scale/bench_spin" --threshold 1% --progress none --json \
      --json-dir "spin-$scale-$i"
  done
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>summary.txt 2>&1
python3 - <<'PY' >>summary.txt
import glob, json
for f in sorted(glob.glob("*.txt")):
    if not (f.startswith("aa-") or f.startswith("spin-") or f.startswith("compare3")):
        continue
    try:
        r = json.load(open(f))
    except Exception as e:
        print(f, "unreadable", e)
        continue
    s = r["summary"]
    verdicts = {}
    for p in r["points"]:
        verdicts.setdefault(p["verdict"], []).append(f'{p["name"]} {p["ratio"]:.4f} ({p["base"]["processes"]}+{p["head"]["processes"]})')
    print(f"{f}: slower {s['slower']} faster {s['faster']} unchanged {s['unchanged']} inconclusive {s['inconclusive']} exit {s['exit_code']}")
    for v in ("slower", "faster", "inconclusive"):
        for line in verdicts.get(v, []):
            print(f"   {v}: {line}")
PY
cat summary.txt
