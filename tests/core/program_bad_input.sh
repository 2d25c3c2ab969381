#!/usr/bin/env bash
# Each malformed flag or value gives exit code 2 and a message naming the problem.
set -u
prog=$1
fails=0
expect() {  # expect CODE PATTERN ARGS...
  local code=$1 pattern=$2
  shift 2
  local out rc
  out=$("$prog" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (want $code), output: $out"
    fails=$((fails + 1))
  fi
}
expect 2 "--bogus|bogus" --bogus
expect 2 "has an axis named 'nope'" --axis nope=1
expect 2 "not an integer" --axis n=abc --list
expect 2 "power of two" --axis bytes=1000 --list
expect 2 "not a valid regular expression" --filter '(' --quiet
expect 2 "no point matches" --filter 'does-not-exist' --quiet
expect 2 "no point 999" --points 999 --quiet
expect 2 "k/N" --shard 3 --quiet
expect 2 "timing" --timing lukewarm --quiet
expect 2 "min-samples|Range|range" --min-samples 0 --quiet
expect 0 "sort_ints" --list
expect 0 '"benchmarks"' --list --json
if [ "$fails" -ne 0 ]; then echo "$fails bad-input checks failed"; exit 1; fi
echo "all bad-input checks passed"
