#!/usr/bin/env bash
# Installs the build into a temporary prefix, then configures, builds and runs a separate project
# that uses find_package(pitot) and pitot_add_benchmark (a CUDA benchmark too when CUDA is on).
set -euo pipefail
build=$1 project=$2 cmake=$3 with_cuda=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
"$cmake" -S "$project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DWITH_CUDA="$with_cuda" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
"$cmake" --build "$work/build" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/build/bench_installed" --max-time 0.05 --quiet --json -)
grep -q '"name": "sum\[n=1000\]"' <<<"$out" || { echo "unexpected output: $out"; exit 1; }
grep -q '"bench_installed"' "$work/build/pitot-manifest.json" || { echo "manifest lacks the program"; exit 1; }
if [ "$with_cuda" = 1 ]; then
  [ -x "$work/build/bench_installed_cuda" ] || { echo "the CUDA benchmark was not built"; exit 1; }
  "$work/build/bench_installed_cuda" --list | grep -q "fill_floats\[n=1024\]" || { echo "CUDA program cannot list"; exit 1; }
fi
echo "find_package(pitot) from an install: passed"
