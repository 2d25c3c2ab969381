#!/usr/bin/env bash
# The table reads well: rates get an SI prefix (GFLOP/s on a CPU, not 0.01 TFLOP/s), a point
# that stopped on its time limit with a wide interval is marked noisy with a footnote, and a
# Release build carries no unoptimized warning.
set -u
prog=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
out=$("$prog" --filter saxpy --max-time 0.05 --min-time 0 2>&1)
grep -qE "[0-9.]+ [kMG]FLOP/s" <<<"$out" || fail "saxpy's rate has an SI prefix: $out"
grep -q "TFLOP/s" <<<"$out" && fail "no TFLOP/s for a CPU saxpy: $out"
grep -q "WARNING" <<<"$out" && fail "a Release build does not warn: $out"
# A target no run reaches in 10 ms: every point stops on the time limit, noisy.
out=$("$prog" --filter 'sort_ints.*n=1000,order=random' --max-time 0.01 --min-time 0 --min-samples 2 --ci-target 0.0000001 2>&1)
grep -qE "%  *!" <<<"$out" || grep -qE "% !" <<<"$out" || fail "the noisy point is marked '!': $out"
grep -q "^! noisy: 1 point stopped on a limit with the 99% interval of the median wider than --ci-target (1e-05%)" <<<"$out" ||
  fail "footnote: $out"
if [ "$fails" -ne 0 ]; then echo "$fails table check(s) failed"; exit 1; fi
echo "all table checks passed"
