#!/usr/bin/env bash
# Command one of the README: install what is missing, build pitot and the bundled suite (not the
# tests), run the suite with the pitot driver, and grow an asv database under ./asv-results (or
# $PITOT_ASV_DIR). Extra arguments go to `pitot run` (e.g. --filter 'gemm', --max-time 0.5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
export PITOT_BUILD_DIR=${PITOT_BUILD_DIR:-$root/build}
# Warnings as errors by the rule test.sh follows (CI or PITOT_WERROR), so that test.sh after this
# script builds only the tests in the same build folder instead of recompiling all of it.
werror=${PITOT_WERROR:-$([ "${CI:-}" = true ] && echo ON || echo OFF)}
"$root/scripts/build.sh" -DPITOT_WERROR="$werror" -DPITOT_BUILD_TESTS=OFF
build=$PITOT_BUILD_DIR
pitot=$build/src/driver/pitot
asv_dir=${PITOT_ASV_DIR:-$root/asv-results}
config=$asv_dir/asv.conf.json

if [ ! -f "$config" ]; then
  "$pitot" init --dir "$asv_dir" --repo "$root"
fi

# Without an NVIDIA GPU the GPU programs could only skip their points: run the CPU examples alone.
programs=()
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run-suite: no NVIDIA GPU here: running the CPU examples only (bench_examples)"
  programs=("$build/benchmarks/cpu/bench_examples")
fi

rc=0
(cd "$root" && "$pitot" run "${programs[@]}" --build-dir "$build" --config "$config" "$@") || rc=$?

# The next steps, as commands that work from here. The commit measured last time is kept beside
# the database, so a second run can name the pair to compare.
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "")
previous=$(cat "$asv_dir/.last-run-commit" 2>/dev/null || echo "")
[ -z "$commit" ] || echo "$commit" > "$asv_dir/.last-run-commit"
# pitot-asv installs asv on its first use; say so only when that is still to come.
install_note=""
if ! "$root/scripts/pitot-asv" --installed; then
  install_note=" (the first use installs asv $(grep -m1 '^ASV_VERSION=' "$root/scripts/pitot-asv" | cut -d= -f2) into a virtual environment)"
fi
cat <<TXT

The asv database is in $asv_dir/results (one folder per machine, one file per commit and build).
Look at the history$install_note:
  scripts/pitot-asv --config $config publish
  scripts/pitot-asv --config $config preview
TXT
if [ -n "$previous" ] && [ -n "$commit" ] && [ "$previous" != "$commit" ]; then
  cat <<TXT
Did anything get slower since the last run (exit 1 if so; --processes 3 on both runs sharpens it)?
  $pitot compare $previous $commit --config $config
TXT
elif [ -n "$commit" ]; then
  cat <<TXT
After your next commit, run this script again: it prints the pitot compare command for the two runs.
TXT
fi
exit "$rc"
