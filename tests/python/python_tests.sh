#!/usr/bin/env bash
# Builds and installs the pitot Python package as a user does, less its driver (`pip install ./python`, into
# a virtualenv: nanobind and scikit-build-core from PyPI), then runs test_python.py with it. Any
# step that cannot be done (no python3-venv, no Python headers, no PyPI, a compile error) fails
# this test loudly: it never skips.
# usage: python_tests.sh ROOT BUILD_DIR PYTHON DRIVER WITH_CUDA
set -euo pipefail
root=$1 build=$2 python=$3 driver=$4 with_cuda=$5
venv=${PITOT_PYTHON_VENV:-$build/.venv-python}
fail() { echo "python tests: $*" >&2; exit 1; }

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv" || fail "cannot create a virtualenv with $python (install python3-venv: scripts/install-deps.sh)"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "nanobind>=2.0" \
  || fail "cannot install scikit-build-core and nanobind from PyPI into $venv"

# The package's build folder lives in this build, not in the source tree; ccache when there is one.
# The package's own driver is left out: these tests use this build's (PITOT_DRIVER), and the
# README's `pip install -v ./python`, run in order by CI's first step, builds the whole package.
cmake_args="-DPITOT_ENABLE_CUDA=$([ "$with_cuda" = 1 ] && echo ON || echo OFF) -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF"
command -v ccache >/dev/null && cmake_args="$cmake_args -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
log=$build/python-install.log
CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps \
  --config-settings=build-dir="$build/python-build" "$root/python" >"$log" 2>&1 \
  || { tail -60 "$log" >&2; fail "pip install ./python failed (whole log: $log)"; }

cd "$build"
"$venv/bin/python" "$root/tests/docs/readme_python.py" "$root"  # the README's example does what it says
PITOT_DRIVER=$driver PITOT_ASV_CHECK=$root/scripts/asv-check PITOT_ASV_PYTHON=$python \
  "$venv/bin/python" "$root/tests/python/test_python.py"
# Self-timed methods (the seed's CUDA events, on a stand-in torch): the note, the convention each
# point records, --self-timed through the program, pitot run and asv.conf.json.
PITOT_DRIVER=$driver "$venv/bin/python" "$root/tests/python/test_self_timed.py"
# Python submissions to a Python problem, through `pitot run --untrusted` (the C++ harness's checks).
PITOT_DRIVER=$driver "$venv/bin/python" "$root/tests/python/test_problems.py"
# Multi-rank Python benchmarks through `pitot run --ranks 2` (torch's group where torch is installed).
PITOT_DRIVER=$driver "$venv/bin/python" "$root/tests/python/test_ranks.py"
# An asv suite under pitot and the real asv (installs asv 0.6.6 into the venv; about 15 s).
PITOT_DRIVER=$driver "$venv/bin/python" "$root/tests/python/test_asv_suite.py"
# A real third-party suite (asv's own test benchmarks, tests/python/third_party/asv): the real asv
# records one commit, pitot run the next, asv publish draws one line per benchmark (about 25 s).
PITOT_DRIVER=$driver "$venv/bin/python" "$root/tests/python/test_third_party_asv.py"
