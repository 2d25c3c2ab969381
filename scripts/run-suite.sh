#!/usr/bin/env bash
# Command one of the README: install what is missing, build, run the bundled suite with the pitot
# driver, and grow an asv database under ./asv-results (or $PITOT_ASV_DIR). Extra arguments go to
# `pitot run` (e.g. --filter 'gemm', --max-time 0.5, --machine h200).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
export PITOT_BUILD_DIR=${PITOT_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
build=$PITOT_BUILD_DIR
pitot=$build/src/driver/pitot
asv_dir=${PITOT_ASV_DIR:-$root/asv-results}

mkdir -p "$asv_dir"
if [ ! -f "$asv_dir/asv.conf.json" ]; then
  "$pitot" init --dir "$asv_dir" --repo "$root"
fi

# Without an NVIDIA GPU the GPU programs could only fail: run the CPU examples alone.
programs=()
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run-suite: no NVIDIA GPU here: running the CPU examples only (bench_examples)"
  programs=("$build/benchmarks/cpu/bench_examples")
fi

rc=0
(cd "$root" && "$pitot" run "${programs[@]}" --build-dir "$build" --config "$asv_dir/asv.conf.json" "$@") || rc=$?
if [ "$rc" -ge 2 ]; then
  exit "$rc"
fi
cat <<TXT

The asv database is in $asv_dir/results (machine folders, one results file per commit and build).
View it:  scripts/pitot-asv --config $asv_dir/asv.conf.json preview    (needs: pip install asv==0.6.6)
Compare:  $pitot compare HEAD~1 HEAD --config $asv_dir/asv.conf.json
TXT
# Exit 1 only when points failed (the bundled CPU examples hold one planted failing point).
exit "$rc"
