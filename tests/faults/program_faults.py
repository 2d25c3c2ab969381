#!/usr/bin/env python3
"""Program-side fault model (docs/DESIGN.md, "Fault model"): bad bytes from a benchmark author
never kill the program, and names or axis values asv cannot store are refused with exit 2 and a
message saying why. Usage: program_faults.py PROGRAM (tests/faults/bad_text.cpp)."""
import json
import os
import re
import subprocess
import sys
import tempfile

PROG = os.path.abspath(sys.argv[1])
NAME = os.path.basename(PROG)
FAST = ["--warmup", "0", "--min-time", "0", "--max-time", "0.02", "--min-samples", "2"]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(mode, args, **kw):
    env = dict(os.environ, FAULT_MODE=mode)
    env.pop("PITOT_RESULT_FD", None)
    return subprocess.run([PROG] + args, env=env, capture_output=True, timeout=120, **kw)


def bytes_mode(tmp):
    """Item 1: a 0xFF byte in an exception message, a skip reason and a version."""
    channel_path = os.path.join(tmp, "channel")
    json_path = os.path.join(tmp, "out.json")
    asv_dir = os.path.join(tmp, "asv")
    commit = "ab" * 20
    with open(channel_path, "wb") as channel:
        env = dict(os.environ, FAULT_MODE="bytes", PITOT_RESULT_FD="3")
        p = subprocess.run(
            ["bash", "-c", 'exec "$0" "$@" 3>&1 1>&2 2>/dev/null', PROG, "--json", json_path, "--asv-dir", asv_dir,
             "--commit", commit, "--machine", "box", "--env", "env1"] + FAST,
            env=env, stdout=channel, stderr=subprocess.PIPE, timeout=120)
    table = p.stderr.decode("utf-8", "replace")  # the table, moved to stderr above
    check(p.returncode == 1, f"bytes: exit {p.returncode}, want 1 (one failed point); output: {table[-2000:]}")
    for i in range(5):
        check(f"good[i={i}]" in table, f"bytes: the table lacks good[i={i}]: {table[-2000:]}")
    check("skips" in table and "throws" in table, "bytes: the table lacks the skipped or the failed point")

    # --json: strict UTF-8 JSON with every point; the reasons readable.
    try:
        with open(json_path, encoding="utf-8", errors="strict") as f:
            doc = json.load(f)
    except Exception as e:  # noqa: BLE001
        check(False, f"bytes: --json output unreadable: {e}")
        doc = {"points": []}
    points = {pt["name"]: pt for pt in doc["points"]}
    check(len(points) == 7, f"bytes: --json holds {len(points)} points, want 7")
    check(all(points.get(f"good[i={i}]", {}).get("status") == "ok" for i in range(5)), "bytes: a good point is not ok")
    thrown = points.get("throws", {})
    check(thrown.get("status") == "failed" and re.search(r"bad byte .+ in the message", thrown.get("reason", "")),
          f"bytes: the failed point's reason is not readable: {thrown.get('reason')!r}")
    skipped = points.get("skips", {})
    check(skipped.get("status") == "skipped" and re.search(r"no .+ device here", skipped.get("reason", "")),
          f"bytes: the skipped point's reason is not readable: {skipped.get('reason')!r}")

    # The result channel: one strict UTF-8 JSON object per line, every point, then done.
    with open(channel_path, "rb") as f:
        lines = f.read().splitlines()
    try:
        messages = [json.loads(line.decode("utf-8", "strict")) for line in lines]
    except Exception as e:  # noqa: BLE001
        check(False, f"bytes: result channel unreadable: {e}")
        messages = []
    reported = {m["name"]: m["status"] for m in messages if m.get("type") == "point"}
    check(len(reported) == 7 and reported.get("throws") == "failed" and reported.get("skips") == "skipped",
          f"bytes: result channel reported {reported}")
    check(bool(messages) and messages[-1] == {"type": "done"}, "bytes: result channel lacks done")

    # The asv database: the five good points measured, the skipped one NaN, the failed one null.
    try:
        with open(os.path.join(asv_dir, "box", commit[:8] + "-env1.json"), encoding="utf-8") as f:
            results = json.load(f)["results"]
        with open(os.path.join(asv_dir, "benchmarks.json"), encoding="utf-8") as f:
            benchmarks = json.load(f)
    except Exception as e:  # noqa: BLE001
        check(False, f"bytes: asv files unreadable: {e}")
        results, benchmarks = {}, {}
    good = results.get(f"{NAME}.good", [[]])[0]
    check(len(good) == 5 and all(isinstance(x, float) and x > 0 for x in good), f"bytes: asv row of good: {good}")
    check(f"{NAME}.good.items_per_second" in results, "bytes: asv lacks good's items track")
    skip_row = results.get(f"{NAME}.skips", [[0]])[0]
    check(skip_row == [float("nan")] or (len(skip_row) == 1 and skip_row[0] != skip_row[0]),
          f"bytes: asv row of skips: {skip_row}")
    check(results.get(f"{NAME}.throws", [[0]])[0] in (None, [None]), f"bytes: asv row of throws: {results.get(f'{NAME}.throws')}")
    check(benchmarks.get(f"{NAME}.good", {}).get("version", "").startswith("v"), "bytes: benchmarks.json version")

    # --list --json: strict UTF-8 (the version holds a replaced byte).
    p = run("bytes", ["--list", "--json"])
    try:
        listed = json.loads(p.stdout.decode("utf-8", "strict"))
        check(p.returncode == 0 and len(listed["points"]) == 7, f"bytes: --list --json exit {p.returncode}")
    except Exception as e:  # noqa: BLE001
        check(False, f"bytes: --list --json unreadable (exit {p.returncode}): {e}; {p.stderr[-500:]!r}")


def refused(mode, pattern, args=("--list",)):
    """Exit 2 with a message matching pattern, with --list and with --list --json (what pitot run asks)."""
    for extra in ([], ["--json"]):
        p = run(mode, list(args) + extra)
        err = p.stderr.decode("utf-8", "replace")
        check(p.returncode == 2 and re.search(pattern, err),
              f"{mode} {' '.join(list(args) + extra)}: exit {p.returncode} (want 2), stderr: {err[-600:]!r}")
        check("json.exception" not in err, f"{mode}: a raw JSON-library message: {err[-300:]!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        bytes_mode(tmp)
    # Item 9: duplicate names.
    refused("dup", r"benchmark dup is registered twice .*rename one")
    # Item 7: a name asv publish cannot write as a file.
    refused("long", r"too long for asv: .* is 2[0-9][0-9] bytes, over 200.*rename the benchmark to at most")
    # Item 10: `fn.items_per_second` would be the asv key of fn's items track.
    refused("dot", r"'fn\.items_per_second' has a '\.'.*same asv key.*rename it")
    refused("slash", r"'a/b' has the character '/'.*asv replaces with '_'")
    # Item 11: axis values JSON and asv cannot hold.
    refused("nan_axis", r"axis 'x': the value nan is not a finite number")
    refused("inf_axis", r"axis 'x': the value inf is not a finite number")
    refused("bad_string", r"axis 's': the value bad\\xFF is not UTF-8 text")
    refused("bad_name", r"benchmark name 'bad\\xC3' is not UTF-8 text")
    # --axis overrides: the same refusals, in words.
    refused("strings", r"--axis s of benchmark good: 'x\\xFF' is not UTF-8 text", ["--list", "--axis", os.fsdecode(b"s=x\xff")])
    refused("strings", r"--axis x of benchmark good: 'nan' is not a finite number", ["--list", "--axis", "x=nan"])
    refused("strings", r"--axis x of benchmark good: '-inf' is not a finite number", ["--list", "--axis", "x=-inf"])
    # Engine knobs never take NaN or infinity.
    for knob in ["--warmup", "--min-time", "--max-time", "--ci-target", "--batch-time", "--min-sample-time",
                 "--throttle-ratio", "--device", "--graph-launches", "--min-samples", "--max-samples",
                 "--interleave", "--seed"]:
        for value in ["nan", "inf", "-nan"]:
            p = run("strings", ["--quiet", knob, value])
            check(p.returncode == 2, f"{knob} {value}: exit {p.returncode}, want 2")
    # A filter that cannot be matched is a usage error, never a crash.
    p = run("strings", ["--quiet", "--filter", "good", "--axis", "s=a"] + FAST)
    check(p.returncode == 0, f"a plain run after the refusals: exit {p.returncode}: {p.stderr[-500:]!r}")
    if failures:
        print(f"{len(failures)} program fault checks failed")
        return 1
    print("all program fault checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
