#!/usr/bin/env bash
# zizmor (https://docs.zizmor.sh) on a GitHub Actions workflow: fails on any finding of medium
# severity or above (excessive permissions, persisted credentials, unpinned actions, template
# injection...) and on a file zizmor cannot parse as a workflow.
# usage: zizmor_check.sh WORKFLOW BUILD_DIR [PYTHON3]
# zizmor comes from PyPI, pinned, into a virtualenv: $PITOT_ZIZMOR_VENV, else BUILD_DIR/.venv-zizmor,
# created once. No PyPI, no zizmor: the check fails and says so.
set -uo pipefail
workflow=${1:?usage: zizmor_check.sh WORKFLOW BUILD_DIR [PYTHON3]}
build=${2:?usage: zizmor_check.sh WORKFLOW BUILD_DIR [PYTHON3]}
python=${3:-python3}
version=1.32.0
venv=${PITOT_ZIZMOR_VENV:-$build/.venv-zizmor}
zizmor=$venv/bin/zizmor

say() { echo "zizmor_check: $*" >&2; }
[ -f "$workflow" ] || { say "no such file: $workflow"; exit 1; }

if [ "$("$zizmor" --version 2>/dev/null)" != "zizmor $version" ]; then
  say "installing zizmor $version into $venv (python3 -m venv; pip install zizmor==$version)"
  rm -rf "$venv"
  "$python" -m venv "$venv" ||
    { say "cannot create a virtualenv: install the python3-venv package (apt install python3-venv)"; exit 1; }
  "$venv/bin/python" -m pip install --quiet "zizmor==$version" &&
    [ "$("$zizmor" --version 2>/dev/null)" = "zizmor $version" ] ||
    { say "cannot install zizmor $version with pip (is PyPI reachable?); the check did not run"; exit 1; }
fi

# --offline: no GitHub token in CI, and the offline audits are the ones this guards.
# --no-config: no zizmor.yml lying around may silence a finding (ignore comments in the
# workflow itself still count: they are there to read in review).
# --strict-collection: a file zizmor cannot read as a workflow is an error, not a warning.
"$zizmor" --offline --no-config --strict-collection --no-progress --color=never \
  --min-severity medium "$workflow"
rc=$?
if [ $rc -ne 0 ]; then
  say "zizmor $version found problems of medium severity or above in $workflow (exit $rc); see above"
  exit 1
fi
say "OK: no finding above low in $workflow"
