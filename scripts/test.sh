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
rm -f ctest-junit.xml
rc=0
ctest --output-on-failure -j2 --timeout 900 --output-junit ctest-junit.xml || rc=$?
# ctest names skipped tests but not why; their output says it ("skipped: no CUDA device ...", or
# gtest's "file:line: Skipped" followed by the message). One line per skipped test.
python3 - ctest-junit.xml <<'PY' || true  # a missing report costs the reasons, not the result
import sys
import xml.etree.ElementTree as ET

def reason(out):
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.lower().startswith("skipped:"):
            return line[len("skipped:"):].strip()
        if line.endswith(": Skipped") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[-1] if lines else "(it printed nothing)"

try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except (OSError, ET.ParseError) as e:
    sys.exit(f"test.sh: cannot read ctest's report for the skip reasons: {e}")
skipped = [(c.get("name"), reason(c.findtext("system-out") or "")) for c in cases if c.find("skipped") is not None]
if skipped:
    print(f"Why {len(skipped)} test(s) were skipped:")
    for name, why in skipped:
        print(f"  {name}: {why}")
PY
exit "$rc"
