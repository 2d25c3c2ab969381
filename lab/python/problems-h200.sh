#!/usr/bin/env bash
# Issue 34: Python submissions on a GPU (lab/python/problems_torch.py --check), in one device call.
# Builds the Python package there (the machine's Python 3.12, scikit-build-core and nanobind, no
# network; .carry/usr from lab/carry-build-deps.sh stands in for the -dev packages), then runs the
# honest torch.mm submission and the two it must refuse through the carried driver.
# Usage (repository root, on the GPU machine): lab/python/problems-h200.sh DRIVER OUT_DIR
#   DRIVER: a pitot driver built with CUDA (its libzip.so.4 and libfmt.so.9 on LD_LIBRARY_PATH).
#   Writes OUT_DIR/python-problems/ (build log, the check's output).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
driver=$(realpath "${1:?usage: problems-h200.sh DRIVER OUT_DIR}")
out=${2:?usage: problems-h200.sh DRIVER OUT_DIR}/python-problems
mkdir -p "$out"
. "$root/lab/carried-deps-env.sh"
export PATH="$PATH:/usr/local/cuda/bin"
site=/tmp/pitot-python-site
rm -rf "$site"
build_python_site "$site" "$out/build.log" | tee "$out/summary.txt"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
PITOT_DRIVER=$driver timeout 240 python3 "$root/lab/python/problems_torch.py" --check > "$out/check.log" 2>&1
echo "problems_torch --check: exit $?" >> "$out/summary.txt"
tail -20 "$out/check.log" >> "$out/summary.txt"
cat "$out/summary.txt"
