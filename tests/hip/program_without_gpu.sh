#!/usr/bin/env bash
# A HIP benchmark program started on a machine with no AMD GPU: lists its points, and running
# says once that there is no AMD GPU and what to do, reports its GPU points skipped with that
# reason, and exits 0. Exits 77 (skipped) where an AMD GPU is present.
set -u
program=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$program" --list --json "$out/list.json" || { echo "FAIL: --list --json exited $?"; exit 1; }
grep -q '"memcpy_d2d"' "$out/list.json" || { echo "FAIL: --list --json lacks memcpy_d2d"; exit 1; }
if ! python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["device"] is None else 1)' "$out/list.json"; then
  echo "skipped: this machine has an AMD GPU"
  exit 77
fi

"$program" --filter '^copy_kernel' --points 3 --json "$out/run.json" >"$out/stdout" 2>"$out/stderr"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: expected exit 0 (GPU points skipped), got $rc"; cat "$out/stdout" "$out/stderr"; exit 1; }
[ "$(grep -c . "$out/stderr")" = 1 ] || { echo "FAIL: want one line on stderr:"; cat "$out/stderr"; exit 1; }
for text in "no HIP GPU usable here" "no AMD GPU" "/dev/kfd" "its 1 GPU point is skipped"; do
  grep -q "$text" "$out/stderr" || { echo "FAIL: stderr does not say '$text':"; cat "$out/stderr"; exit 1; }
done
python3 - "$out/run.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["device"] is None, f"device facts without a GPU: {doc['device']}"
[point] = doc["points"]
assert point["status"] == "skipped", point
assert point["name"] == "copy_kernel[n=2^16]", point["name"]
assert point["reason"].startswith("no HIP GPU usable here (no AMD GPU"), point["reason"]
PY
echo "ok: the program says there is no AMD GPU, once"
