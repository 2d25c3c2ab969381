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
# The README's filter after an override that removes n=1000: why, and how to see the names.
expect 2 "no point matches --filter 'sort.\*n=1000' after --axis n=500,5000 .*sort_ints\[n=500.*--list --axis n=500,5000" \
  --filter 'sort.*n=1000' --axis n=500,5000 --quiet
# Knobs: plain messages, no 300-digit range; a mistyped flag gets the closest one.
expect 2 "--max-time: '-1' is not allowed: give a number above 0" --max-time -1 --quiet
expect 2 "--max-time: 'nan' is not a finite number" --max-time nan --quiet
expect 2 "--warmup: 'inf' is not a finite number" --warmup inf --quiet
expect 2 "--min-time: '-0.5' is not allowed: give a number of 0 or more" --min-time -0.5 --quiet
expect 2 "--throttle-ratio: 'nan' is outside 0 to 1" --throttle-ratio nan --quiet
# The knobs' bounds, the same in pitot run (src/core/knobs.hpp).
expect 2 "--graph-launches: Value 1000001 not in range" --graph-launches 1000001 --quiet
expect 2 "--seed: '-1' is not allowed: give a whole number" --seed -1 --quiet
expect 2 "did you mean --max-time\?" --max-tme 1 --quiet
expect 2 "did you mean --filter\?" --filtr x --quiet
expect 0 "^pitot [0-9]+\.[0-9]+\.[0-9]+$" --version
if out=$("$prog" --max-time -1 --quiet 2>&1); [ ${#out} -gt 200 ]; then
  echo "FAIL: --max-time -1 message is ${#out} characters: $out"; fails=$((fails + 1))
fi
expect 0 "sort_ints" --list
expect 0 '"benchmarks"' --list --json
if [ "$fails" -ne 0 ]; then echo "$fails bad-input checks failed"; exit 1; fi
echo "all bad-input checks passed"
