#!/usr/bin/env bash
# The example workflow's bench job, run by a stand-in GitHub runner (run_workflow.py) for a push
# and a pull request of a scratch project built against this build's install.
set -euo pipefail
build=$1 cmake=$2 python=$3 workflow=$4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log"
"$python" "$here/run_workflow.py" "$workflow" "$work/prefix"
