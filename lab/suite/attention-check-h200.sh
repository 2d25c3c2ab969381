#!/usr/bin/env bash
# Attention's CPU check made cheaper (issue 33, item 3): the old and the new bench_attention under
# `pitot run` at ab's lean limits, on the GPU machine in one call (by hand, not in CI). The first
# run builds cuDNN's plans (shared through XDG_CACHE_HOME); then new, old, new read them. Every
# point must pass its check in both; phases.py gives each run's setup; `pitot compare` the medians.
# usage: lab/suite/attention-check-h200.sh OLD_BIN_DIR NEW_BIN_DIR OUT_DIR
#   (NEW_BIN_DIR holds only bench_attention; pitot and the libraries come from OLD_BIN_DIR)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
old=$(cd "${1:?usage: attention-check-h200.sh OLD_BIN_DIR NEW_BIN_DIR OUT_DIR}" && pwd)
new=$(cd "${2:?}" && pwd)
out=${3:?}/attention-check
mkdir -p "$out"
export LD_LIBRARY_PATH="$old:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" XDG_CACHE_HOME=$out/cache
lean=(--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$out/environment.txt" 2>&1
for tag in plans:$old new1:$new old1:$old new2:$new; do
  name=${tag%%:*} dir=${tag#*:}
  t0=$(date +%s.%N)
  "$old/pitot" run "$dir/bench_attention" --no-asv --progress none --json "$out/$name.json" "${lean[@]}" \
    >"$out/$name.log" 2>&1
  echo "$name rc $? wall $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s" | tee -a "$out/walls.txt"
done
for name in plans new1 old1 new2; do
  python3 - "$out/$name.json" <<'PY' | tee -a "$out/status.txt"
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(p.get("status", "?") for p in doc.get("points", []))
print(sys.argv[1].rsplit("/", 1)[-1], dict(c))
for p in doc.get("points", []):
    if p.get("status") not in ("ok", "skipped"):
        print("  ", p.get("status"), p.get("name"), str(p.get("reason", ""))[:200])
PY
done
for name in plans new1 old1 new2; do  # one table a process: phases.py sums the reports it is given
  echo "## $name"
  python3 "$root/lab/suite/phases.py" "$out/$name.json"
done >"$out/phases.md" 2>&1
"$old/pitot" compare "$out/old1.json" "$out/new2.json" >"$out/compare-old1-new2.txt" 2>&1
"$old/pitot" compare "$out/new1.json" "$out/new2.json" >"$out/compare-new1-new2.txt" 2>&1
tail -n 3 "$out/compare-old1-new2.txt" "$out/compare-new1-new2.txt"
cat "$out/phases.md"
tar -cJf "${out}.tar.xz" -C "$(dirname "$out")" --exclude attention-check/cache attention-check
