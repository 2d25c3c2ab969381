#!/usr/bin/env bash
# An engine cut A/B'd with pitot ab itself (issue 33, item 3: "each cut shown to leave medians
# within noise"): the same benchmark program built before the cut (OLD_BIN) and after (NEW_BIN),
# alternated ABBA by `pitot ab` at its defaults, every sample kept; then where each side's time
# went (lab/suite/phases.py). A verdict other than unchanged or inconclusive at a point says the
# cut moved it; the phases say what it saved.
# usage: lab/suite/engine-ab-h200.sh OLD_BIN NEW_BIN OUT_DIR [PROGRAM] [ab options...]
#   OLD_BIN, NEW_BIN: folders holding the program (and NEW_BIN the pitot driver and the libraries
#   it lacks, as lab/carry-cuda.sh lays out .carry/bin); PROGRAM: bench_gemm by default. Writes
#   OUT_DIR/engine-ab.tar.xz.
#   e.g. lab/suite/engine-ab-h200.sh .carry/old .carry/bin OUT bench_gemm --filter '405b|70b'
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
old=$(cd "${1:?usage: engine-ab-h200.sh OLD_BIN NEW_BIN OUT_DIR [PROGRAM] [ab options...]}" && pwd)
new=$(cd "${2:?}" && pwd)
out_root=${3:?}
program=${4:-bench_gemm}
shift 4 2>/dev/null || shift $#
out=$out_root/engine-ab
mkdir -p "$out/old" "$out/new"
cp "$old/$program" "$out/old/" && cp "$new/$program" "$out/new/" || exit 2
export LD_LIBRARY_PATH="$new:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" XDG_CACHE_HOME=$out/cache
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$out/environment.txt" 2>&1
t=$(date +%s.%N)
"$new/pitot" ab "$out/old" "$out/new" --progress plain --json-dir "$out/sides" "$@" >"$out/ab.txt" 2>"$out/ab.log"
rc=$?
echo "ab: exit $rc, $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" | tee "$out/steps.txt"
for side in base head; do
  python3 "$here/phases.py" "$out/sides/$side.json" --by-benchmark >"$out/phases-$side.md" 2>&1
done
rm -rf "$out/old" "$out/new" "$out/cache"
tar -C "$out_root" -cJf "$out_root/engine-ab.tar.xz" engine-ab
tail -n 4 "$out/ab.log"; grep -E "^(slower|faster)" "$out/ab.txt"; cat "$out/phases-base.md" "$out/phases-head.md"
