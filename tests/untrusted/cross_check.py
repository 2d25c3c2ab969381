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
# (build, expected status, the start of the reason, words in it, refused by the driver's clock)
CASES = [
    ("forger_honest", "ok", "", "", False),
    ("forger_inflate", "failed", "untrusted: the program's samples claim 20 s of timed work", "reported times forged",
     True),
    ("forger_deflate", "failed", "untrusted: the program's samples account for 2e-05 s of timed work",
     "more than the harness's own work explains", True),
    # A timer detour (the program's own clock_gettime, 100 times slower) is refused inside the
    # program before any sample, so the driver's clock has nothing to check.
    ("forger_slow_clock", "failed", "untrusted: the program's own clock_gettime stands in front of the C library's",
     "timer detour", False),
]


def run(program, scratch, untrusted=True):
    out = os.path.join(scratch, program + ".json")
    env = dict(os.environ, XDG_CACHE_HOME=scratch)  # the cost book stays here
    r = subprocess.run([PITOT, "run", os.path.join(PROGRAMS, program), "--no-asv", "--json", out, "--progress",
                        "plain", "--max-time", "0.5"] + (["--untrusted"] if untrusted else []),
                       capture_output=True, text=True, timeout=120, env=env, cwd=scratch)
    with open(out) as f:
        return r, json.load(f)["points"]


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="pitot-cross-check-") as scratch:
        for program, status, start, words, by_driver in CASES:
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
            if checks.get("driver_wall_clock") != (reason if by_driver else "ok" if status == "ok" else None):
                failures.append(f"{program}: untrusted_checks.driver_wall_clock is {checks.get('driver_wall_clock')!r}")
            print(f"{program}: {p['status']} {reason[:100]} driver_seconds={checks.get('driver_seconds')}")
        # The detour is real: trusted, its 10 ms calls read 100 times faster.
        r, points = run("forger_slow_clock", scratch, untrusted=False)
        median = points[0].get("stats", {}).get("median", 0) if len(points) == 1 else 0
        if points[0]["status"] != "ok" or not 0 < median < 1e-3:
            failures.append(f"forger_slow_clock without --untrusted: {points[0]['status']}, median {median} s; the "
                            "detour should make its 10 ms calls read about 0.1 ms")
        print(f"forger_slow_clock without --untrusted: median {median:.3g} s a 10 ms call")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
