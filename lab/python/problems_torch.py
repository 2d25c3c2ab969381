"""Python submissions to a CUDA problem, on torch (issue 34): a float32 GEMM the harness owns, one
honest submission and two it must refuse. Written on a machine without a GPU: never run yet.

On a GPU machine with torch, after `pip install ./python` (or lab/python/run-h200.sh's build):
    python lab/python/problems_torch.py --check        # runs the line below and checks the verdicts
    pitot run lab/python/problems_torch.py --untrusted --no-asv --json out.json --max-time 1
Expected: mm ok (backend_info.problem.calls_checked >= number x samples); cached_by_pointer
refused `untrusted: wrong output ...`; own_stream refused with an `untrusted: ` reason (work on a
stream pitot does not time: output not written, wrong, or changed after the call returned).
generate and reference run on host views (memoryviews), read through torch.frombuffer.
"""
import json
import os
import subprocess
import sys
import tempfile

import pitot
import torch


def host(view, *shape):
    return torch.frombuffer(view, dtype=torch.float32).view(*shape)


def generate(shape, seed, ins):
    g = torch.Generator().manual_seed(seed)
    for v in ins:
        host(v, len(v)).copy_(torch.rand(len(v), generator=g) * 2 - 1)


def reference(shape, ins, expected):
    n = shape["n"]
    torch.mm(host(ins[0], n, n), host(ins[1], n, n), out=host(expected[0], n, n))


GEMM = pitot.Problem(
    name="gemm_f32", shapes={"n": [256, 1024]},
    inputs=lambda s: [pitot.Buffer("a", "f32", s["n"] ** 2), pitot.Buffer("b", "f32", s["n"] ** 2)],
    outputs=lambda s: [pitot.Buffer("c", "f32", s["n"] ** 2)],
    generate=generate, reference=reference, tolerance=pitot.Tolerance(atol=1e-3, rtol=1e-3),
    work=lambda s: (2.0 * s["n"] ** 3, 12.0 * s["n"] ** 2), inputs_independent=True)


def dev(view, n):
    return torch.as_tensor(view, device="cuda").view(n, n)


@pitot.submission(GEMM, device="cuda")
def mm(ins, outs):
    n = int(round(len_of(outs[0]) ** 0.5))
    torch.mm(dev(ins[0], n), dev(ins[1], n), out=dev(outs[0], n))


def len_of(view):
    return view.__cuda_array_interface__["shape"][0]


_cache = {}


@pitot.submission(GEMM, device="cuda")
def cached_by_pointer(ins, outs):
    key = ins[0].__cuda_array_interface__["data"][0]
    n = int(round(len_of(outs[0]) ** 0.5))
    if key not in _cache:
        mm(ins, outs)
        _cache[key] = dev(outs[0], n).clone()
    dev(outs[0], n).copy_(_cache[key])


_side = {}


@pitot.submission(GEMM, device="cuda")
def own_stream(ins, outs):
    """The work on a stream of its own, never joined to pitot's: nothing of it is timed."""
    s = _side.setdefault("s", torch.cuda.Stream())
    with torch.cuda.stream(s):
        mm(ins, outs)


def check():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        driver = os.environ.get("PITOT_DRIVER", "pitot")
        subprocess.run([driver, "run", os.path.abspath(__file__), "--untrusted", "--no-asv", "--json", out,
                        "--max-time", "1"], env=dict(os.environ, PITOT_PYTHON=sys.executable), check=False)
        points = {p["name"]: p for p in json.load(open(out))["points"]}
    bad = []
    for name, p in sorted(points.items()):
        reason = p.get("reason", "")
        print(f"{name}: {p['status']} {reason[:160]}")
        if name.startswith("mm["):
            info = p.get("backend_info", {}).get("problem", {})
            if p["status"] != "ok" or info.get("calls_checked", 0) < p["number"] * len(p["samples"]):
                bad.append(name)
        elif name.startswith("cached_by_pointer[") and "untrusted: wrong output" not in reason:
            bad.append(name)
        elif name.startswith("own_stream[") and not reason.startswith("untrusted: "):
            bad.append(name)
    print("problems_torch:", "FAILED " + ", ".join(bad) if bad else "every verdict as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(check())
    sys.exit(pitot.main())
