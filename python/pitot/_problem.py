"""Problems and submissions (docs/untrusted.md, "Problems"): the Python face of <pitot/problem.hpp>.

The platform declares a Problem; a submission registered with @pitot.submission(problem) is an
ordinary benchmark whose points are the problem's shapes. The C++ harness (pitot._engine.run_problem)
holds every buffer, stages the inputs, poisons the outputs and checks every call; the functions
here only carry Python's callables to it and turn its refusals into the point's reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import _engine, _failure, _launcher, _register, _source_of, State

DTYPES = ("f32", "f64", "bf16", "i32", "i64", "u8")


@dataclass(frozen=True)
class Buffer:
    """One buffer a problem declares: its name (for messages), element type and element count."""
    name: str
    dtype: str
    count: int

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"buffer {self.name}: dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")


@dataclass(frozen=True)
class Tolerance:
    """When an output element matches the reference's: bit for bit (exact, the default) or
    |got - expected| <= atol + rtol * |expected| (floating-point elements; integers stay exact)."""
    atol: float = 0.0
    rtol: float = 0.0
    exact: Optional[bool] = None  # None: bit for bit when atol and rtol are both 0

    def __post_init__(self):
        if self.exact is None:
            object.__setattr__(self, "exact", self.atol == 0 and self.rtol == 0)

    @staticmethod
    def bit_exact() -> "Tolerance":
        return Tolerance(exact=True)

    @staticmethod
    def close(atol: float, rtol: float) -> "Tolerance":
        return Tolerance(atol, rtol, exact=False)


@dataclass
class Problem:
    """A problem the harness owns. The functions take the point's shape (a pitot.State: shape["n"]):
    inputs(shape), outputs(shape): lists of pitot.Buffer; generate(shape, seed, inputs) fills the
    inputs (host views) from seed; reference(shape, inputs, expected) writes the expected outputs;
    work(shape): (flops, bytes) of one call, optional. shapes: {axis: values}, as pitot.benchmark's axes."""
    name: str
    shapes: dict
    inputs: Callable
    outputs: Callable
    generate: Callable
    reference: Callable
    tolerance: Tolerance = Tolerance.bit_exact()
    work: Optional[Callable] = None
    draws: int = 3
    inputs_independent: bool = False
    deterministic: bool = False


class _Refused(Exception):
    """The harness's verdict (untrusted: ..., problem: ...), the point's reason as it is."""
    _pitot_verdict = True


class DeviceView:
    """A device buffer the harness holds, for torch.as_tensor(x, device="cuda") or cupy.asarray(x)
    (__cuda_array_interface__ version 3, its stream the one pitot times on)."""
    __slots__ = ("ptr", "count", "typestr", "stream")

    def __init__(self, ptr, count, typestr, stream):
        self.ptr, self.count, self.typestr, self.stream = ptr, count, typestr, stream

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": (self.count,), "typestr": self.typestr, "data": (self.ptr, False),
                "version": 3, "strides": None, "stream": self.stream or None}


def _tagged(errors, what, fn):
    def call(*args):
        try:
            return fn(*args)
        except BaseException as e:
            errors.append((what, e))
            raise
    return call


def _specs(fn, shape, side):
    out = []
    for b in fn(shape):
        if not isinstance(b, Buffer):
            raise TypeError(f"problem {side}: expected pitot.Buffer objects, got {type(b).__name__}")
        out.append((b.name, b.dtype, int(b.count)))
    return out


def _run(problem: Problem, fn, device: bool, state: State) -> None:
    errors: list = []
    p = problem
    tag = lambda what, f: _tagged(errors, what, f)  # noqa: E731
    work = None if p.work is None else tag("work", lambda: tuple(float(x) for x in p.work(state)))
    spec = (p.name, tag("inputs", lambda: _specs(p.inputs, state, "inputs")),
            tag("outputs", lambda: _specs(p.outputs, state, "outputs")),
            tag("generate", lambda seed, ins: p.generate(state, seed, ins)),
            tag("reference", lambda ins, exp: p.reference(state, ins, exp)),
            float(p.tolerance.atol), float(p.tolerance.rtol), bool(p.tolerance.exact), work, int(p.draws),
            bool(p.inputs_independent), bool(p.deterministic))
    if device:
        current = []
        launch = _launcher(lambda: fn(*current), state._streams)

        def submit(ins, outs, handle):
            current[:] = (ins, outs)
            return launch(handle)
        submit = tag("submission", submit)
    else:
        submit = tag("submission", fn)
    try:
        _engine.run_problem(state._s, spec, submit, DeviceView if device else None)
    except RuntimeError as e:
        if not errors:
            raise _Refused(str(e)) from None
        what, err = errors[0]
        if what == "submission":
            raise err from None
        text = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        _failure(err)  # its traceback to stderr
        raise _Refused(f"problem {p.name}: its {what} raised {text}") from err


def submission(problem: Problem, fn: Any = None, *, name=None, version="1", timeout=60.0, device=None):
    """Register fn(inputs, outputs) as a submission to `problem`: a benchmark named `name` (fn's
    name by default) whose points are the problem's shapes. On the CPU the views are writable
    memoryviews of the element type; with device="cuda", objects with __cuda_array_interface__ on
    the stream pitot times (torch's and CuPy's current stream during the call). As a decorator:
    @pitot.submission(problem)."""
    gpu = (device or "cpu").lower() != "cpu"

    def wrap(f):
        source_file, code = _source_of(f)
        _register(name or f.__name__, lambda state: _run(problem, f, gpu, state), problem.shapes,
                  version=version, timeout=timeout, device=device, source_file=source_file, code=code)
        f.__pitot_benchmark__ = True
        return f

    return wrap(fn) if fn is not None else wrap

