#!/usr/bin/env bash
# Issue 34's GPU checks in one device call (by hand, not in CI): the exploit corpus trusted and
# untrusted, the problem corpus (every expected verdict), the driver's cross-check against forging
# programs, the checks' cost a call (the problem corpus's honest entries, trusted and untrusted),
# and the bundled suite's kernels as honest submissions (lab/untrusted/suite-h200.sh, ROUNDS;
# pitot compare's verdict on "within 1%" per point needs ROUNDS >= 2: run that part alone).
# usage: lab/untrusted/all-checks-h200.sh BIN_DIR PROGRAMS_DIR OUT_DIR
#   BIN_DIR: pitot, the bench_* programs and the libraries they lack (libzip, libfmt, libcupti);
#   PROGRAMS_DIR: untrusted_corpus, untrusted_problem_corpus, the forger_* programs and the other
#   test programs of tests/untrusted (cross_check.py's PROGRAMS_DIR). Writes OUT_DIR/checks34/.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: all-checks-h200.sh BIN_DIR PROGRAMS_DIR OUT_DIR}" && pwd)
programs=$(cd "${2:?}" && pwd)
out=${3:?}/checks34
mkdir -p "$out/build/src/driver" "$out/build/tests/untrusted"
export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# run-h200.sh reads a build folder's layout.
ln -sf "$bin/pitot" "$out/build/src/driver/pitot"
ln -sfn "$programs" "$out/build/tests/untrusted/programs"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv; } >"$out/environment.txt" 2>&1
step() {  # step NAME COMMAND...: output in NAME.log, exit and seconds in steps.txt
  local name=$1 t
  shift
  t=$(date +%s)
  "$@" >"$out/$name.log" 2>&1
  echo "$name: exit $?, $(($(date +%s) - t)) s" | tee -a "$out/steps.txt"
}
step corpus sh "$root/lab/untrusted/run-h200.sh" "$out/build" "$out/corpus"
step check-corpus python3 "$root/tests/untrusted/check_corpus.py" "$programs/untrusted_corpus"
step check-problems python3 "$root/tests/untrusted/check_problems.py" "$bin/pitot" "$programs/untrusted_problem_corpus" \
  "$root/tests/untrusted/expected_problem_corpus.json" --gpu
step cross-check python3 "$root/tests/untrusted/cross_check.py" "$bin/pitot" "$programs"
# The checks' cost: the honest problem submissions alone, trusted (no checks but the harness's own)
# against --untrusted; both on the kernel clock.
step honest-trusted "$programs/untrusted_problem_corpus" --filter '^honest' --clock kernel --quiet \
  --json "$out/problem-honest-trusted.json"
step honest-untrusted "$programs/untrusted_problem_corpus" --filter '^honest' --clock kernel --untrusted --quiet \
  --json "$out/problem-honest-untrusted.json"
rm -rf "$out/build"
step suite bash "$root/lab/untrusted/suite-h200.sh" "$bin" "$out" "${ROUNDS:-1}"
