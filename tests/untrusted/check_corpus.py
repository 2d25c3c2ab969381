#!/usr/bin/env python3
"""The exploit corpus under --untrusted (docs/untrusted.md): each attack fails with its named
reason (expected.json: the start of its reason), the control and the honestly timed attacks pass,
and those read at least half the control's time (the work is the same).
Usage: check_corpus.py PROGRAM. Exit 77 (skipped) without an NVIDIA GPU."""
import json
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def main():
    program = sys.argv[1]
    if not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        print("skipped: no NVIDIA GPU on this machine (nvidia-smi -L fails)")
        return 77
    expected = json.load(open(os.path.join(here, "expected.json")))
    run = subprocess.run([program, "--untrusted", "--quiet", "--json", "-", "--no-interleave", "--min-samples", "5",
                          "--max-time", "0.3"], capture_output=True, text=True, timeout=240)
    points = {p["name"]: p for p in json.loads(run.stdout)["points"]}
    control = points["honest_fma"]["stats"]["median"]
    bad = []
    for name, want in expected.items():
        p = points.get(name)
        if p is None:
            bad.append(f"{name}: not reported")
            continue
        if not p.get("backend_info", {}).get("untrusted"):
            bad.append(f"{name}: backend_info lacks untrusted: true")
        if want == "ok":
            if p["status"] != "ok":
                bad.append(f"{name}: refused ({p.get('reason')}), expected accepted")
            elif p["stats"]["median"] < 0.5 * control:
                bad.append(f"{name}: {p['stats']['median']:.3g} s, under half the control's {control:.3g} s")
        elif p["status"] != "failed" or not p.get("reason", "").startswith(want):
            bad.append(f"{name}: {p['status']} ({p.get('reason')}), expected refused with '{want}...'")
    for line in bad:
        print("FAIL", line)
    print(f"{len(expected) - len(bad)} of {len(expected)} as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
