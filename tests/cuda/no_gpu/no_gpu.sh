#!/usr/bin/env bash
# A CUDA program on a machine without a usable GPU: one line says so, its GPU points are skipped
# with that reason, its CPU points run, exit 0; under `pitot run` too. Skipped (77) with a GPU.
# usage: no_gpu.sh PROGRAM PITOT
set -u
prog=$1 pitot=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if "$prog" --list --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["device"] is None else 1)'; then :; else
  echo "a GPU is usable here: nothing to check"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
K=(--warmup 0 --min-samples 3 --min-time 0 --max-time 0.02)

"$prog" "${K[@]}" --json "$work/out.json" >"$work/table.txt" 2>"$work/err.txt"
rc=$?
[ "$rc" = 0 ] || fail "program exit $rc, want 0 ($(cat "$work/err.txt"))"
lines=$(grep -c . "$work/err.txt")
[ "$lines" = 1 ] || fail "want one line on stderr, got $lines: $(head -5 "$work/err.txt")"
grep -qE "^no_gpu_mixed: no CUDA GPU usable here \(.+\): its 6 GPU points are skipped$" "$work/err.txt" ||
  fail "the one line names the program, the reason and the count: $(cat "$work/err.txt")"
python3 - "$work/out.json" <<'PY' || fail "JSON statuses"
import json, sys
d = json.load(open(sys.argv[1]))
by = {p["name"]: p for p in d["points"]}
gpu = [p for n, p in by.items() if n.startswith("gpu_")]
cpu = [p for n, p in by.items() if n.startswith("cpu_")]
assert len(gpu) == 6 and all(p["status"] == "skipped" and p["reason"].startswith("no CUDA GPU usable here (") for p in gpu), gpu
assert len(cpu) == 2 and all(p["status"] == "ok" for p in cpu), cpu
PY

# Under the driver: skipped points, no errors, one summary line for the shared reason.
git -C "$work" init -q && git -C "$work" -c user.name=t -c user.email=t@x commit -q --allow-empty -m x
(cd "$work" && "$pitot" run "$prog" --machine testbox --progress plain "${K[@]}") >"$work/run.out" 2>"$work/run.err"
rc=$?
[ "$rc" = 0 ] || fail "pitot run exit $rc, want 0: $(tail -5 "$work/run.err")"
grep -q "8 points in .*: 2 ok, 0 failed, 6 skipped" "$work/run.out" || fail "summary: $(cat "$work/run.out")"
grep -qE "FAILED|Failed" "$work/run.out" "$work/run.err" && fail "no failure lines: $(grep -E "FAILED|Failed" "$work/run.out" "$work/run.err" | head -3)"
total=$(cat "$work/run.out" "$work/run.err" | grep -c "cudaError")
[ "$total" -le 2 ] || fail "the CUDA error is repeated $total times: $(cat "$work/run.out" "$work/run.err")"
if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all no-GPU checks passed"
