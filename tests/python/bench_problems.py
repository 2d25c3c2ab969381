"""Python submissions to a Python problem (python/pitot/_problem.py), for test_problems.py: an
honest one, and attacks the C++ harness must refuse. CPU only, no numpy: memoryviews.

The problem: out[i] = a[i] * b[i] + 1 over float32 vectors of n elements.
"""
import random
import struct
import sys

import pitot


def generate(shape, seed, ins):
    rng = random.Random(seed)
    for buf in ins:
        for i in range(len(buf)):
            buf[i] = rng.uniform(-1.0, 1.0)


def reference(shape, ins, expected):
    a, b = ins
    (out,) = expected
    for i in range(len(out)):
        out[i] = struct.unpack("f", struct.pack("f", a[i] * b[i]))[0] + 1.0


def fma_problem(name="fma", tolerance=pitot.Tolerance(atol=1e-5, rtol=1e-5), deterministic=False, ref=reference):
    return pitot.Problem(
        name=name, shapes={"n": [64, 256]},
        inputs=lambda shape: [pitot.Buffer("a", "f32", shape["n"]), pitot.Buffer("b", "f32", shape["n"])],
        outputs=lambda shape: [pitot.Buffer("out", "f32", shape["n"])],
        generate=generate, reference=ref, tolerance=tolerance,
        work=lambda shape: (2.0 * shape["n"], 12.0 * shape["n"]),
        inputs_independent=True, deterministic=deterministic)


FMA = fma_problem()


@pitot.submission(FMA)
def honest(ins, outs):
    a, b = ins
    out = outs[0]
    for i in range(len(out)):
        out[i] = a[i] * b[i] + 1.0


_cache = {}


@pitot.submission(FMA)
def cached_by_input(ins, outs):
    """Computes once per input object (the harness's buffers are the same ones on every call)."""
    key = (id(ins[0]), len(ins[0]))
    if key not in _cache:
        honest(ins, outs)
        _cache[key] = list(outs[0])
    for i, v in enumerate(_cache[key]):
        outs[0][i] = v


_calls = {}


@pitot.submission(FMA)
def lazy_after_3(ins, outs):
    """Does the work on its first 3 calls (of each shape), then returns at once."""
    n = len(outs[0])
    _calls[n] = _calls.get(n, 0) + 1
    if _calls[n] <= 3:
        honest(ins, outs)


_jitter = [0]


def jittery(ins, outs):
    """Within the tolerance, but a different last bit on every other call."""
    honest(ins, outs)
    _jitter[0] += 1
    if _jitter[0] % 2:
        outs[0][0] = outs[0][0] + 1e-7 * max(1.0, abs(outs[0][0]))


pitot.submission(fma_problem("fma_deterministic", deterministic=True), jittery, name="jittery")


@pitot.submission(FMA)
def raises(ins, outs):
    if len(outs[0]) > 64:
        raise ValueError("no kernel for n > 64")
    honest(ins, outs)


def broken_reference(shape, ins, expected):
    raise KeyError("reference lost its table")


pitot.submission(fma_problem("fma_broken", ref=broken_reference), honest, name="broken_reference")

_kept = []


def keeping_generate(shape, seed, ins):
    generate(shape, seed, ins)
    _kept.append(ins[0])


def reference_reading_kept_view(shape, ins, expected):
    """Reads the view generate kept past its call: released by then, so it must raise ValueError
    (generate and reference both run in the point's checker process, docs/untrusted.md)."""
    try:
        _kept[0][0]
    except ValueError:
        return reference(shape, ins, expected)
    raise AssertionError("a view kept past generate's call still reads the harness's memory")


@pitot.submission(pitot.Problem(
    name="fma_kept", shapes={"n": [64]}, inputs=FMA.inputs, outputs=FMA.outputs, generate=keeping_generate,
    reference=reference_reading_kept_view, tolerance=FMA.tolerance))
def reads_kept_view(ins, outs):
    """generate ran in the checker process, so nothing it kept is in this one."""
    if _kept:
        raise AssertionError("generate ran in the submission's process")
    return honest(ins, outs)


if __name__ == "__main__":
    sys.exit(pitot.main())
