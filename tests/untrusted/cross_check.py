#!/usr/bin/env python3
"""The driver's cross-check end to end (docs/untrusted.md, "forged samples"): `pitot run
--untrusted` runs forger.cpp's builds, each a pitot program that forges its reported times through
the result channel, and must refuse each point with the named reason; the honest build, the same
work timed by pitot's own sampler, must pass.

usage: cross_check.py PITOT PROGRAMS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

PITOT, PROGRAMS = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
# (build, expected status, the start of the reason, words in it)
CASES = [
    ("forger_honest", "ok", "", ""),
    ("forger_inflate", "failed", "untrusted: the program's samples claim 20 s of timed work", "reported times forged"),
    ("forger_deflate", "failed", "untrusted: the program's samples account for 2e-05 s of timed work",
     "more than the harness's own work explains"),
]


def run(program, scratch):
    out = os.path.join(scratch, program + ".json")
    env = dict(os.environ, XDG_CACHE_HOME=scratch)  # the cost book stays here
    r = subprocess.run([PITOT, "run", os.path.join(PROGRAMS, program), "--untrusted", "--no-asv", "--json", out,
                        "--progress", "plain", "--max-time", "0.5"],
                       capture_output=True, text=True, timeout=120, env=env, cwd=scratch)
    with open(out) as f:
        return r, json.load(f)["points"]


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="pitot-cross-check-") as scratch:
        for program, status, start, words in CASES:
            r, points = run(program, scratch)
            if len(points) != 1:
                failures.append(f"{program}: {len(points)} points reported, expected 1 ({r.stderr})")
                continue
            p = points[0]
            reason = p.get("reason", "")
            checks = p.get("backend_info", {}).get("untrusted_checks", {})
            if p["status"] != status or not reason.startswith(start) or words not in reason:
                failures.append(f"{program}: {p['status']} ({reason!r}), expected {status} ({start!r}...{words!r})")
            if r.returncode != (0 if status == "ok" else 1):
                failures.append(f"{program}: pitot run exited {r.returncode}\n{r.stderr}")
            if checks.get("driver_wall_clock") != (reason if status == "failed" else "ok"):
                failures.append(f"{program}: untrusted_checks.driver_wall_clock is {checks.get('driver_wall_clock')!r}")
            print(f"{program}: {p['status']} {reason[:100]} driver_seconds={checks.get('driver_seconds')}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
