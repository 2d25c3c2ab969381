#!/usr/bin/env bash
# A HIP benchmark program started on a machine with no AMD GPU: lists its points, and running a
# point fails that point (exit 1) with a message that says there is no AMD GPU and what to do.
# Exits 77 (skipped) where an AMD GPU is present.
set -u
program=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$program" --list --json "$out/list.json" || { echo "FAIL: --list --json exited $?"; exit 1; }
grep -q '"memcpy_d2d"' "$out/list.json" || { echo "FAIL: --list --json lacks memcpy_d2d"; exit 1; }

"$program" --filter '^copy_kernel' --points 3 --json "$out/run.json" >"$out/stdout" 2>"$out/stderr"
rc=$?
if [ $rc -eq 0 ]; then
  echo "skipped: the point ran, so this machine has an AMD GPU"
  exit 77
fi
[ $rc -eq 1 ] || { echo "FAIL: expected exit 1 (a point failed), got $rc"; cat "$out/stdout" "$out/stderr"; exit 1; }
for text in "no AMD GPU" "/dev/kfd" "HIP backend"; do
  grep -q "$text" "$out/stdout" || { echo "FAIL: the table does not say '$text':"; cat "$out/stdout"; exit 1; }
done
python3 - "$out/run.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["device"] is None, f"device facts without a GPU: {doc['device']}"
[point] = doc["points"]
assert point["status"] == "failed", point
assert point["name"] == "copy_kernel[n=2^16]", point["name"]
assert point["reason"].startswith("no AMD GPU"), point["reason"]
PY
echo "ok: the program says there is no AMD GPU"
