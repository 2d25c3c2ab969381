#!/usr/bin/env bash
# Command two of the README: install what is missing, build everything, run all tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --with-hip
export PITOT_BUILD_DIR=${PITOT_BUILD_DIR:-$root/build}
# Warnings are errors in CI (its compiler is known); elsewhere a newer compiler's new warning
# should not stop the tests. PITOT_WERROR=ON|OFF overrides.
werror=${PITOT_WERROR:-$([ "${CI:-}" = true ] && echo ON || echo OFF)}
"$root/scripts/build.sh" -DPITOT_WERROR="$werror" -DPITOT_BUILD_TESTS=ON
cd "$PITOT_BUILD_DIR"
ctest --output-on-failure -j2 --timeout 900
