#!/usr/bin/env bash
# bench_attention with its cuDNN plans built once per problem in a process, against the build
# before (a plan per point), on the H200 in one call (by hand, not in CI):
#  1. the whole program once each at `pitot ab`'s lean limits: a process's wall (the cost file);
#  2. `pitot ab OLD NEW` over the model table's points (alternated processes, lean limits): the
#     medians must not move (the plan chosen for a graph is the same however often it is built).
# usage: lab/suite/attention-plans-h200.sh PITOT OLD_DIR NEW_DIR OUT_DIR (each DIR holds bench_attention)
set -uo pipefail
pitot=${1:?usage: attention-plans-h200.sh PITOT OLD_DIR NEW_DIR OUT_DIR}
old=${2:?} new=${3:?} out=${4:?}
mkdir -p "$out"
lean=(--warmup 0.005 --min-time 0.01 --max-time 0.1)
for side in old new; do
  dir=$([ $side = old ] && echo "$old" || echo "$new")
  t=$(date +%s.%N)
  XDG_CACHE_HOME=$out/cache-$side timeout -s INT 200 "$pitot" run "$dir/bench_attention" "${lean[@]}" --no-asv --progress none \
    --json "$out/lean-$side.json" >"$out/lean-$side.log" 2>&1
  echo "lean whole program, $side: exit $?, $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" \
    | tee -a "$out/steps.txt"
done
t=$(date +%s)
timeout -s INT 240 "$pitot" ab "$old/bench_attention" "$new/bench_attention" --filter '^attention\[' --threshold 1% \
  --max-processes 6 --budget 200 --progress none --json --json-dir "$out/ab" >"$out/ab.json" 2>"$out/ab.log"
echo "ab old new: exit $?, $(($(date +%s) - t)) s" | tee -a "$out/steps.txt"
python3 - "$out/ab.json" <<'PY' | tee -a "$out/steps.txt"
import collections, json, sys
rows = json.load(open(sys.argv[1])).get("rows", [])
verdicts = collections.Counter(r.get("verdict", r.get("comparison", {}).get("verdict")) for r in rows)
print("ab verdicts:", dict(verdicts))
PY
