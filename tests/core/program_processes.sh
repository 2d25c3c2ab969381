#!/usr/bin/env bash
# A program's own --processes K: K separate processes, each point's samples pooled with the
# per-process medians kept; a failure names its process; refused under the driver's channel.
set -euo pipefail
prog=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
knobs=(--quiet --max-time 0.05 --min-time 0.01 --warmup 0)
"$prog" "${knobs[@]}" --processes 3 --filter 'sort_ints.*n=1000,' --json "$work/out.json"
python3 - "$work/out.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["config"]["processes"] == 3, doc["config"]
points = doc["points"]
assert len(points) == 3, [p["name"] for p in points]
for p in points:
    assert p["status"] == "ok", p
    assert len(p["process_medians"]) == 3, p["process_medians"]
    assert sorted(set(p["sample_process"])) == [0, 1, 2] and len(p["sample_process"]) == len(p["samples"]), p["name"]
PY
rc=0
"$prog" "${knobs[@]}" --processes 2 --filter parse --axis parse_numbers:input=1,abc --json "$work/bad.json" || rc=$?
[ "$rc" -eq 1 ] || { echo "a failing point should exit 1, got $rc"; exit 1; }
grep -q "in process 1 of 2: input 'abc' cannot be parsed" "$work/bad.json" || { echo "reason lacks its process: $(cat "$work/bad.json")"; exit 1; }
rc=0
PITOT_RESULT_FD=1 "$prog" "${knobs[@]}" --processes 2 --filter parse >/dev/null 2>"$work/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "give --processes to pitot run" "$work/err" || { echo "under a driver: exit $rc, $(cat "$work/err")"; exit 1; }
echo "program --processes: passed"
