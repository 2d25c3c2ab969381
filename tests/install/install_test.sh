#!/usr/bin/env bash
# Installs the build into a temporary prefix, then configures, builds and runs a separate project
# that uses find_package(pitot) and pitot_add_benchmark (a CUDA benchmark too when CUDA is on).
# With a fifth argument "default" the project is configured with CMake's default (empty) build
# type, as a new user's project is: unoptimized, which the table, the JSON and the env name say.
set -euo pipefail
build=$1 project=$2 cmake=$3 with_cuda=$4 build_type=${5:-Release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
type_flag=(-DCMAKE_BUILD_TYPE=Release)
[ "$build_type" = default ] && type_flag=()
"$cmake" -S "$project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DWITH_CUDA="$with_cuda" \
  "${type_flag[@]}" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
"$cmake" --build "$work/build" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/build/bench_installed" --max-time 0.05 --quiet --json -)
grep -q '"name": "sum\[n=1000\]"' <<<"$out" || { echo "unexpected output: $out"; exit 1; }
# The benchmark's own build: its JSON, the table's first line and the asv env name.
table=$("$work/build/bench_installed" --max-time 0.05)
git -C "$work" init -q && git -C "$work" -c user.name=t -c user.email=t@x commit -q --allow-empty -m x
(cd "$work" && "$work/build/bench_installed" --max-time 0.05 --quiet --asv-dir asv --machine box) 2> "$work/asv.log"
env_file=$(cd "$work/asv/box" && ls -- *-cpp-*.json)
if [ "$build_type" = default ]; then
  grep -q '"optimized": false' <<<"$out" || { echo "--json lacks \"optimized\": false"; exit 1; }
  head -1 <<<"$table" | grep -q "^WARNING: bench_installed was built without optimization" ||
    { echo "the table does not start with the warning: $table"; exit 1; }
  [[ $env_file == *-unoptimized.json || $env_file == *-unoptimized-* ]] ||
    { echo "env name does not say unoptimized: $env_file"; exit 1; }
else
  grep -q '"optimized": true' <<<"$out" && grep -q '"build_type": "Release"' <<<"$out" ||
    { echo "--json lacks the Release build"; exit 1; }
  grep -q WARNING <<<"$table" && { echo "a Release build warns: $table"; exit 1; }
  [[ $env_file == *-Release* ]] || { echo "env name does not say Release: $env_file"; exit 1; }
fi
grep -q '"bench_installed"' "$work/build/pitot-manifest.json" || { echo "manifest lacks the program"; exit 1; }
if [ "$with_cuda" = 1 ]; then
  [ -x "$work/build/bench_installed_cuda" ] || { echo "the CUDA benchmark was not built"; exit 1; }
  "$work/build/bench_installed_cuda" --list | grep -q "fill_floats\[n=1024\]" || { echo "CUDA program cannot list"; exit 1; }
fi
echo "find_package(pitot) from an install: passed"
