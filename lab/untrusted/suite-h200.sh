#!/usr/bin/env bash
# Issue 34: the bundled suite's kernels as honest submissions. A slice of each GPU program (GEMM,
# attention, norm, cast, copy) under `pitot run`, trusted and --untrusted at the same clock (the
# kernel clock, which --untrusted never declines; --clock kernel makes the trusted run take it
# too), alternated; then a table per point: both medians, their ratio, and whether --untrusted
# refused it (it should refuse none). With ROUNDS >= 2, each mode's rounds are merged into one
# JSON (a round a process) and `pitot compare` says per point, with statistics, whether the
# untrusted time is within 1% of the trusted one (unchanged) or not (compare.md, and per clock
# compare-per-clock.md, in OUT_DIR); with ROUNDS >= 4 also trusted against itself (trusted-aa*.md).
# A round of both modes took 69 s of wall on an H100 (2026-12-07's all-checks call; the 420 s once
# written here summed each benchmark's asv duration once per point), so ROUNDS=5 of every slice
# fits one device call; ONLY (a regex over the program names) keeps some slices.
# Usage: [ONLY=REGEX] lab/untrusted/suite-h200.sh BIN_DIR OUT_DIR [ROUNDS]
#   BIN_DIR: pitot and the bench_* programs (libcupti.so.13 beside them; libzip.so.4 and
#   libfmt.so.9 in BIN_DIR/lib). Writes OUT_DIR/untrusted-suite/ (JSON per run, table.md).
set -uo pipefail
bin=$(cd "${1:?usage: suite-h200.sh BIN_DIR OUT_DIR [ROUNDS]}" && pwd)
out=${2:?usage: suite-h200.sh BIN_DIR OUT_DIR [ROUNDS]}/untrusted-suite
rounds=${3:-2}
mkdir -p "$out"
export LD_LIBRARY_PATH="$bin/lib:$bin:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
slices=(
  "bench_gemm:^(gemm_bf16\[model=llama3\.1-8b,tp=1,|gemm_fp8\[model=llama3\.1-70b,tp=8,layer=qkv|moe_bf16\[model=deepseek-v2-lite,ep=8,layer=down,routing=balanced|square_)"
  "bench_attention:^attention\[model=llama3\.1-8b,"
  "bench_norm:^(layernorm|rmsnorm)\[.*hidden=4096"
  "bench_cast:^cast_to_fp8"
  "bench_copy:."
)
for r in $(seq 1 "$rounds"); do
  for slice in "${slices[@]}"; do
    program=${slice%%:*} filter=${slice#*:}
    [[ "$program" =~ ${ONLY:-.} ]] || continue
    for mode in trusted untrusted; do
      extra=(); [ "$mode" = untrusted ] && extra=(--untrusted --sandbox off)
      "$bin/pitot" run "$bin/$program" --filter "$filter" --clock kernel "${extra[@]}" --no-asv \
        --progress plain --json "$out/$program-$mode-$r.json" > "$out/$program-$mode-$r.log" 2>&1
      echo "$program $mode $r rc $?" >> "$out/runs.txt"
    done
  done
done
python3 - "$out" <<'PY'
import collections, glob, json, os, statistics, sys
out = sys.argv[1]
med = collections.defaultdict(lambda: collections.defaultdict(list))
refused = {}
for path in glob.glob(os.path.join(out, "*.json")):
    mode = "untrusted" if "-untrusted-" in path else "trusted"
    for p in json.load(open(path))["points"]:
        key = p["program"] + "." + p["name"]
        if p["status"] == "ok":
            med[key][mode].append(p["stats"]["median"])
        elif p["status"] == "failed":
            refused[key + f" ({mode})"] = p.get("reason", "")
rows = ["| point | trusted | untrusted | untrusted / trusted |", "|---|---|---|---|"]
ratios = []
for key in sorted(med):
    t, u = med[key]["trusted"], med[key]["untrusted"]
    if not t or not u:
        continue
    ratio = statistics.median(u) / statistics.median(t)
    ratios.append(ratio)
    rows.append(f"| {key} | {statistics.median(t) * 1e6:.2f} us | {statistics.median(u) * 1e6:.2f} us | {ratio:.4f} |")
text = "\n".join(rows) + "\n\n"
if ratios:
    ratios.sort()
    text += (f"{len(ratios)} points in both modes; untrusted/trusted median {statistics.median(ratios):.4f}, "
             f"range {ratios[0]:.4f}-{ratios[-1]:.4f}; {sum(abs(r - 1) <= 0.01 for r in ratios)} within 1%\n")
text += f"failed points: {len(refused)}\n" + "".join(f"- {k}: {v}\n" for k, v in sorted(refused.items()))
open(os.path.join(out, "table.md"), "w").write(text)
print(text[-3000:])
PY
# Each mode's rounds as one run of several processes (a round a process), for pitot compare.
merge=$(dirname "$0")/merge_rounds.py
python3 "$merge" "$out" trusted all "$out/trusted-merged.json"
python3 "$merge" "$out" untrusted all "$out/untrusted-merged.json"
# untrusted against trusted, by time and per clock (the kernel clock measures each sample's SM
# clock); with 4+ rounds, trusted's odd rounds against its even ones beside them: the verdicts a
# mode gets against itself.
verdict() {  # verdict NAME BASE HEAD [compare options]
  local name=$1 base=$2 head=$3
  shift 3
  "$bin/pitot" compare "$base" "$head" --threshold 1% --markdown -o "$out/$name.md" "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  echo "$name.md (pitot compare at 1%${1:+, $*}): exit $rc; $(grep -m1 -E 'slower, ' "$out/$name.md")"
}
if [ "$rounds" -ge 2 ]; then
  verdict compare "$out/trusted-merged.json" "$out/untrusted-merged.json"
  verdict compare-per-clock "$out/trusted-merged.json" "$out/untrusted-merged.json" --per-clock
fi
if [ "$rounds" -ge 4 ]; then
  odd=$(seq -s, 1 2 "$rounds") even=$(seq -s, 2 2 "$rounds")
  python3 "$merge" "$out" trusted "$odd" "$out/trusted-odd.json"
  python3 "$merge" "$out" trusted "$even" "$out/trusted-even.json"
  verdict trusted-aa "$out/trusted-odd.json" "$out/trusted-even.json"
  verdict trusted-aa-per-clock "$out/trusted-odd.json" "$out/trusted-even.json" --per-clock
fi
