#!/usr/bin/env bash
# Issue 36 on one GPU: Python multi-rank benchmarks with torch.distributed's NCCL group
# (lab/ranks/bench_torch_collectives.py), alone and under `pitot run --ranks 1`. Builds the Python
# package there (build_python_site of lab/carried-deps-env.sh; .carry/usr from lab/carry-build-deps.sh).
# Usage (repository root, on the GPU machine): lab/ranks/python-nccl-h200.sh DRIVER OUT_DIR
#   Writes OUT_DIR/python-nccl/ (build log, JSON and table of each run).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
driver=$(realpath "${1:?usage: python-nccl-h200.sh DRIVER OUT_DIR}")
out=${2:?usage: python-nccl-h200.sh DRIVER OUT_DIR}/python-nccl
mkdir -p "$out"
. "$root/lab/carried-deps-env.sh"
export PATH="$PATH:/usr/local/cuda/bin"
site=/tmp/pitot-python-site
[ -d "$site/pitot" ] || build_python_site "$site" "$out/build.log" | tee "$out/summary.txt"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
bench=$root/lab/ranks/bench_torch_collectives.py
timeout 200 python3 "$bench" --max-time 0.2 --json "$out/alone.json" > "$out/alone.txt" 2>&1
echo "alone: exit $?" >> "$out/summary.txt"
timeout 200 "$driver" run "$bench" --ranks 1 --max-time 0.2 --no-asv --progress plain --json "$out/pitot.json" \
  > "$out/pitot.txt" 2>&1
echo "pitot run --ranks 1: exit $?" >> "$out/summary.txt"
python3 - "$out" >> "$out/summary.txt" <<'PY'
import json, os, sys
for run in ("alone", "pitot"):
    path = os.path.join(sys.argv[1], run + ".json")
    if not os.path.exists(path):
        print(run, "no JSON"); continue
    for p in json.load(open(path))["points"]:
        s = p.get("stats") or {}
        info = (p.get("backend_info") or {})
        print(run, p["name"], p["status"], p.get("reason", "")[:120], "median %.3g s" % s["median"] if s else "",
              "ranks", (info.get("ranks") or {}).get("world_size"), "clock", info.get("clock") or info.get("timing"))
PY
cat "$out/summary.txt"
