#!/usr/bin/env python3
"""Submissions to a problem the harness owns (docs/untrusted.md, "Problems"), run by `pitot run
--untrusted` (the driver's cross-check applies, and the fence where the machine allows it): each
attack is refused with its reason (EXPECTED: the start of the reason and words in it), each
honest control is accepted with every call it made checked. An expectation with "options" is
checked again in a run of its own with them (longer sampling, where the verdict needs it). Then one
attack without --untrusted: still refused, its reason starting "problem: ".

usage: check_problems.py PITOT PROGRAM EXPECTED [--gpu] [PITOT RUN OPTIONS...]
With --gpu, exit 77 (skipped) without an NVIDIA GPU; other options go to pitot run (--sandbox off)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile


def no_gpu():
    return not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0


def check_point(name, want, p):
    """What is wrong with point p against the expectation want (a list of lines)."""
    bad = []
    reason = p.get("reason", "")
    info = p.get("backend_info", {})
    if not info.get("untrusted"):
        bad.append(f"{name}: backend_info lacks untrusted: true")
    if want.get("status") == "ok":
        if p["status"] != "ok":
            bad.append(f"{name}: refused ({reason}), expected accepted")
            return bad
        problem = info.get("problem", {})
        timed = len(p.get("samples", [])) * p.get("number", 0)
        if problem.get("calls_checked", 0) < timed or timed == 0:
            bad.append(f"{name}: {problem.get('calls_checked')} calls checked, fewer than the {timed} timed")
        return bad
    if p["status"] != "failed" or not reason.startswith(want["reason"]):
        bad.append(f"{name}: {p['status']} ({reason}), expected refused with '{want['reason']}...'")
    for word in want.get("words", []):
        if word not in reason:
            bad.append(f"{name}: the reason lacks '{word}': {reason}")
    return bad


def alone(pitot, program, name, want, scratch, env, extra):
    """The submission `name` in a `pitot run --untrusted` of its own with its expectation's options."""
    out = os.path.join(scratch, name + ".json")
    r = subprocess.run([pitot, "run", program, "--untrusted", "--no-asv", "--json", out, "--progress", "plain",
                        "--filter", f"^{name}\\["] + want["options"] + extra, capture_output=True, text=True,
                       timeout=120, env=env, cwd=scratch)
    options = " ".join(want["options"])
    points = json.load(open(out))["points"] if os.path.exists(out) else []
    if len(points) != 1:
        return [f"{name} with {options}: exit {r.returncode}, {len(points)} points\n{r.stderr}"]
    p = points[0]
    print(f"{name} with {options}: {p['status']} {p.get('reason', '')[:110]}")
    return [f"{line} (with {options})" for line in check_point(name, want, p)]


def profiled(pitot, program, expected, attack, scratch, env):
    """`pitot profile` runs the same submissions (a stand-in nsys: the profile tests' fake), the
    program in untrusted mode through the arguments after `--`: the honest control is accepted with
    its calls checked, the attack refused with its reason, each inside the zip's results.json."""
    nsys = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "profile", "fake", "nsys")
    honest = next(n for n, w in expected.items() if w.get("status") == "ok")
    bad = []
    for name in (honest, attack):
        zip_path = os.path.join(scratch, name + ".zip")
        r = subprocess.run([pitot, "profile", program, "--tool", "nsys", "--tool-path", nsys, "--filter", f"^{name}\\[",
                            "-o", zip_path, "--", "--untrusted"], capture_output=True, text=True, timeout=120,
                           env=env, cwd=scratch)
        # The refused point makes the program, so the profiled run, exit 1; the zip is written either way.
        if r.returncode != (0 if name == honest else 1) or not os.path.exists(zip_path):
            bad.append(f"pitot profile of {name}: exit {r.returncode}, zip {os.path.exists(zip_path)}\n{r.stderr}")
            continue
        points = json.loads(zipfile.ZipFile(zip_path).read("results.json"))["points"]
        p = points[0] if len(points) == 1 else {}
        if name == honest:
            ok = p.get("status") == "ok" and p.get("backend_info", {}).get("problem", {}).get("calls_checked", 0) > 0
        else:
            ok = p.get("status") == "failed" and p.get("reason", "").startswith(expected[name]["reason"])
        print(f"pitot profile of {name}: {p.get('status')} {p.get('reason', '')[:90]}")
        if not ok:
            bad.append(f"pitot profile of {name}: {p.get('status')} ({p.get('reason', '')!r}), expected as in a run")
    return bad


def main():
    pitot, program, expected_path = (os.path.abspath(a) for a in sys.argv[1:4])
    extra = [a for a in sys.argv[4:] if a != "--gpu"]
    if "--gpu" in sys.argv[4:] and no_gpu():
        print("skipped: no NVIDIA GPU on this machine (nvidia-smi -L fails)")
        return 77
    expected = json.load(open(expected_path))
    bad = []
    with tempfile.TemporaryDirectory(prefix="pitot-problems-") as scratch:
        out = os.path.join(scratch, "run.json")
        env = dict(os.environ, XDG_CACHE_HOME=scratch)  # the cost book stays here
        r = subprocess.run([pitot, "run", program, "--untrusted", "--no-asv", "--json", out, "--progress", "plain",
                            "--max-time", "0.3"] + extra, capture_output=True, text=True, timeout=240, env=env, cwd=scratch)
        if r.returncode != 1 or not os.path.exists(out):
            print(r.stdout, r.stderr)
            bad.append(f"pitot run exited {r.returncode}, expected 1 (some points refused)")
        points = {p["benchmark"]: p for p in json.load(open(out))["points"]} if os.path.exists(out) else {}
        for name, want in expected.items():
            if name not in points:
                bad.append(f"{name}: not reported")
                continue
            bad += check_point(name, want, points[name])
            p = points[name]
            print(f"{name}: {p['status']} {p.get('reason', '')[:110]}")
        for name, want in expected.items():
            if "options" in want:
                bad += alone(pitot, program, name, want, scratch, env, extra)
        # Without --untrusted the checks still run; the reason names the problem instead.
        attack = next(n for n, w in expected.items() if w.get("status") != "ok")
        plain = subprocess.run([program, "--filter", f"^{attack}\\[", "--json", out, "--quiet", "--max-time", "0.3"],
                               capture_output=True, text=True, timeout=120, cwd=scratch)
        reason = json.load(open(out))["points"][0].get("reason", "") if os.path.exists(out) else ""
        if plain.returncode != 1 or not reason.startswith("problem: "):
            bad.append(f"{attack} without --untrusted: exit {plain.returncode}, reason {reason!r}; expected 1, 'problem: ...'")
        if "--gpu" not in sys.argv[4:]:
            bad += profiled(pitot, program, expected, attack, scratch, env)
    for line in bad:
        print("FAIL", line)
    print(f"{len(expected)} expected verdicts, {len(bad)} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
