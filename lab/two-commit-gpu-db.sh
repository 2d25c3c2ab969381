#!/usr/bin/env bash
# Issue 21 on the GPU machine: `pitot compare BASE HEAD` of two commits of a CUDA database (rows in
# two envs: <env> for events, <env>-kclock for the kernel clock) compares each env with its
# counterpart without --env; and `pitot ab` with a head 5% slower lists the changed kernels.
# Usage: lab/two-commit-gpu-db.sh BIN_DIR OUT_DIR (BIN_DIR: pitot, bench_copy, bench_spin)
set -uo pipefail
bin=$(cd "${1:?usage: two-commit-gpu-db.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?}
mkdir -p "$out/repo" && cd "$out/repo" || exit 2
git init -q . && git config user.name lab && git config user.email lab@example.invalid
for c in base head; do git commit -q --allow-empty -m "$c"; done
base=$(git rev-parse HEAD~1) head=$(git rev-parse HEAD)
"$bin/pitot" init >/dev/null
filter='^(copy_kernel|memcpy_d2d)\[n=2\^(16|28)\]|^spin_kernel'
for c in "$base" "$head"; do
  "$bin/pitot" run "$bin/bench_copy" "$bin/bench_spin" --filter "$filter" --commit "$c" --machine h200 \
    --processes 2 --progress none >"run-${c:0:8}.log" 2>&1
  echo "run ${c:0:8}: exit $?"
done
ls results/h200
"$bin/pitot" compare "$base" "$head" --threshold 1%
echo "compare without --env: exit $?"
mkdir -p head-1.05
printf '#!/bin/sh\nPITOT_SPIN_SCALE=1.05 exec "%s" "$@"\n' "$bin/bench_spin" >head-1.05/bench_spin
chmod +x head-1.05/bench_spin
"$bin/pitot" ab "$bin/bench_spin" head-1.05/bench_spin --threshold 1% --progress none
echo "ab spin 1.05: exit $?"
