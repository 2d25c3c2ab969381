#!/usr/bin/env bash
# The GPU checks of work built without a GPU, in one device call: the untrusted problem corpus
# (issue 34: every attack refused by its expected reason, the honest controls accepted) and
# bench_overlap at world size 1 (issue 36: its checks pass, each schedule times).
# Usage: lab/gpu-checks-h200.sh BUILD OUT_DIR
#   BUILD: src/driver/pitot, tests/untrusted/programs/untrusted_problem_corpus,
#   benchmarks/gpu/bench_overlap, lib/ (libzip.so.4, libfmt.so.9, libcupti.so.13).
#   Writes OUT_DIR/gpu-checks/ (summary.txt and the programs' JSON).
set -uo pipefail
build=$(cd "${1:?usage: gpu-checks-h200.sh BUILD OUT_DIR}" && pwd)
out=${2:?usage: gpu-checks-h200.sh BUILD OUT_DIR}/gpu-checks
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$build/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cp "$build/lib/libcupti.so.13" "$build/tests/untrusted/programs/" 2>/dev/null
cp "$build/lib/libcupti.so.13" "$build/benchmarks/gpu/" 2>/dev/null
{
  echo "== untrusted problem corpus"
  timeout 200 python3 "$root/tests/untrusted/check_problems.py" "$build/src/driver/pitot" \
    "$build/tests/untrusted/programs/untrusted_problem_corpus" "$root/tests/untrusted/expected_problem_corpus.json" --gpu 2>&1 | tail -30
  echo "rc ${PIPESTATUS[0]}"
  echo "== bench_overlap, world size 1"
  timeout 120 "$build/benchmarks/gpu/bench_overlap" --max-time 0.1 --json "$out/overlap.json" 2>&1 | tail -40
  echo "rc ${PIPESTATUS[0]}"
} > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
