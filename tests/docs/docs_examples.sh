#!/usr/bin/env bash
# The code of README.md and docs/writing-benchmarks.md, built and run as a user would: the tagged
# blocks are extracted (extract_blocks.py), built against an installed pitot with find_package,
# and the README's program commands are run. An example that stops compiling fails this test.
set -euo pipefail
root=$1 build=$2 cmake=$3 with_cuda=$4 python=$5
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "docs examples: $*"; exit 1; }

"$python" "$here/extract_blocks.py" "$root/README.md" "$work/readme"
"$python" "$here/extract_blocks.py" "$root/docs/writing-benchmarks.md" "$work/writing"
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log"

build_project() {  # build_project SOURCE_DIR BUILD_DIR
  "$cmake" -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$2.configure.log" 2>&1 || { cat "$2.configure.log"; fail "configure $1"; }
  "$cmake" --build "$2" -j2 >"$2.build.log" 2>&1 || { cat "$2.build.log"; fail "build $1"; }
}

# README: the CPU project, exactly as written.
[ -f "$work/readme/CMakeLists.txt" ] && [ -f "$work/readme/my_bench.cpp" ] || fail "README lost its tagged example"
build_project "$work/readme" "$work/readme-build"
"$work/readme-build/my_bench" --max-time 0.05 --quiet --json "$work/my_bench.json" \
  || fail "my_bench exited $?"
grep -q '"sort_ints\[n=100000,order=sorted\]"' "$work/my_bench.json" || fail "my_bench did not run its points"

# README: the GPU project, built where pitot has its CUDA backend (there may be no GPU to run it).
if [ "$with_cuda" = 1 ]; then
  build_project "$work/readme/gpu" "$work/readme-gpu-build"
  "$work/readme-gpu-build/my_copy" --list | grep -q 'copy_floats\[n=2^28\]' || fail "my_copy cannot list its points"
fi

# docs/writing-benchmarks.md: every tagged source is a program of its own.
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "project(writing_examples LANGUAGES CXX)"
  echo "find_package(pitot REQUIRED)"
  for src in "$work"/writing/*.cpp; do
    echo "pitot_add_benchmark($(basename "$src" .cpp) $(basename "$src"))"
  done
} >"$work/writing/CMakeLists.txt"
build_project "$work/writing" "$work/writing-build"
for src in "$work"/writing/*.cpp; do
  name=$(basename "$src" .cpp)
  "$work/writing-build/$name" --max-time 0.05 --quiet || fail "$name (docs/writing-benchmarks.md) exited $?"
done

# README: each command of the tagged blocks, run with the program it names in a scratch git
# repository (the README's commands run inside pitot's checkout, whose commit asv rows record).
[ -s "$work/readme/run.txt" ] || fail "README lost its tagged commands"
while IFS=$'\t' read -r dir command; do
  scratch=$(mktemp -d "$work/run.XXXX")
  git -C "$scratch" init -q
  git -C "$scratch" -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false \
    commit -q --allow-empty -m "docs example"
  program=${command%% *}  # ./bench_examples
  cp "$build/${dir#build/}/${program#./}" "$scratch/"  # the README's build/ is this build
  rc=0
  (cd "$scratch" && bash -c "$command" >"$scratch/out.log" 2>&1) || rc=$?
  [ "$rc" -eq 0 ] || { cat "$scratch/out.log"; fail "README command exited $rc: $command"; }
done <"$work/readme/run.txt"
# README's driver section after the two commands: run-suite.sh made asv-results with
# `pitot init --dir asv-results --repo ROOT`; the README's `pitot init --dir asv-results` then says
# it is already set up (exit 0), while other settings are refused (exit 2) and the file left alone.
for line in 'pitot init --dir asv-results ' 'pitot list --build-dir build '; do
  grep -q "^$line" "$root/README.md" || fail "README's driver section lost '$line'; update this test with it"
done
pitot=$work/prefix/bin/pitot
rc=0
"$pitot" list --build-dir "$build" >"$work/list.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/list.out"; fail "pitot list --build-dir build exited $rc"; }
scratch=$(mktemp -d "$work/init.XXXX")
git -C "$scratch" init -q -b main
git -C "$scratch" -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false \
  commit -q --allow-empty -m "docs example"
(cd "$scratch" && "$pitot" init --dir asv-results --repo "$scratch" >/dev/null) || fail "init as run-suite.sh runs it exited $?"
cp "$scratch/asv-results/asv.conf.json" "$work/asv.conf.before"
rc=0
(cd "$scratch" && "$pitot" init --dir asv-results >"$work/init.out" 2>&1) || rc=$?
[ "$rc" -eq 0 ] && grep -q "already set up" "$work/init.out" \
  || { cat "$work/init.out"; fail "README's pitot init after run-suite.sh exited $rc, or did not say it is set up"; }
rc=0
(cd "$scratch" && "$pitot" init --dir asv-results --branch other >"$work/init.out" 2>&1) || rc=$?
[ "$rc" -eq 2 ] && grep -q 'branches \["main"\], init would write \["other"\]' "$work/init.out" \
  || { cat "$work/init.out"; fail "init with another branch exited $rc, or did not name the difference"; }
cmp -s "$scratch/asv-results/asv.conf.json" "$work/asv.conf.before" || fail "a refused init changed asv.conf.json"
echo "docs examples: passed"
