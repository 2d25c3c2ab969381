#!/usr/bin/env bash
# The whole bundled GPU suite as scripts/run-suite.sh's run step runs it (pitot run's defaults, one
# process a program; --no-asv: the database write is not what is timed), stopped with SIGTERM at
# LIMIT seconds (the driver keeps what finished). Used by suite-wall-h200.sh and cuts-h200.sh.
# Usage: lab/suite/whole-suite.sh BUILD OUT LIMIT
#   BUILD: src/driver/pitot and benchmarks/gpu/bench_*. Writes OUT/suite.json, suite.log,
#   suite-wall.txt (exit code, wall, limit), suite-phases.md and suite-phases-by-benchmark.md.
set -uo pipefail
build=${1:?usage: whole-suite.sh BUILD OUT LIMIT} out=${2:?usage: whole-suite.sh BUILD OUT LIMIT}
limit=${3:?usage: whole-suite.sh BUILD OUT LIMIT}
here=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s.%N)
# The programs by their folder: a build's manifest names the build machine's paths.
timeout -s TERM "$limit" "$build/src/driver/pitot" run "$build/benchmarks/gpu" --no-asv --progress plain \
  --json "$out/suite.json" > "$out/suite.log" 2>&1
echo "suite rc $? wall $(python3 -c "print(round($(date +%s.%N) - $s, 1))") limit $limit" > "$out/suite-wall.txt"
python3 "$here/phases.py" "$out/suite.json" > "$out/suite-phases.md" 2>&1
python3 "$here/phases.py" "$out/suite.json" --by-benchmark > "$out/suite-phases-by-benchmark.md" 2>&1
