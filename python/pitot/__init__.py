"""pitot for benchmarks written in Python, on pitot's C++ engine.

Two ways to define benchmarks, both registered into the engine's registry (the same one
PITOT_BENCHMARK fills), so planning, sampling, the stopping rule, the outputs and the driver
protocol are the C++ program's own:

    import pitot

    @pitot.benchmark(axes={"n": [1000, 100000], "order": ["random", "sorted"]})
    def sort_ints(state):
        data = make(state["n"], state["order"])       # setup: not timed
        state.add_items(state["n"])
        state.exec(lambda: sorted(data))                 # host clock; device time with device="cuda"

    class Suite:                                          # asv's classes, named Suite.time_sum
        params = [[256, 4096]]
        param_names = ["n"]
        def setup(self, n): ...
        def time_sum(self, n): ...
        def work_sum(self, n): return {"flops": n}        # pitot's counters (asv ignores it)

    if __name__ == "__main__":
        pitot.main()                                      # the program: --list, --filter, --json, ...

An asv suite needs no pitot import at all: `pitot run benchmarks/` (or a file, or asv.conf.json)
imports each module with `python -m pitot` and finds its benchmarks as asv does (pitot/_asv.py).
docs/writing-benchmarks.md ("Python") has the whole of it.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import sys
import traceback

from . import _asv, _asv_discovery, _engine, _self_timed
from ._streams import _launcher

__all__ = ["benchmark", "pow2", "State", "main", "has_cuda", "register_asv", "Problem", "Buffer", "Tolerance", "submission",
           "torch_process_group"]

has_cuda: bool = _engine.has_cuda

_PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
_BUILD_TYPE = f"python{_PYTHON_VERSION}"
_GPU_DEVICES = ("cuda", "gpu")
_uses_device = False  # a GPU benchmark is registered: the env names the GPU backend
# How `python -m pitot` started this program (pitot/__main__.py): the program's name and the
# command that starts it again for --processes. Empty when a file runs as a script.
_launch: dict = {}


class pow2:
    """A power-of-two axis given by exponents: ``pow2(16, 22, 28)`` sweeps 2^16, 2^22, 2^28."""

    def __init__(self, *exponents: int):
        if len(exponents) == 1 and not isinstance(exponents[0], int):
            exponents = tuple(exponents[0])
        self.exponents = [int(e) for e in exponents]


def _axis_kind(name, values):
    """The axis's kind from its values, as C++'s axis() deduces it from the element type:
    (kind, engine values, the author's objects by displayed value for a string axis of objects)."""
    if isinstance(values, pow2):
        return "pow2", values.exponents, None
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"axis {name!r}: give a list of values (or pitot.pow2(...)), not {values!r}")
    values = list(values)
    plain_int = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    if values and all(plain_int(v) for v in values):
        return "int", values, None
    if values and all(plain_int(v) or isinstance(v, float) for v in values):
        return "float", [float(v) for v in values], None
    if all(isinstance(v, str) for v in values):
        return "string", values, None
    # Other objects (a torch.dtype, a tuple): a string axis of their str(), mapped back for the body.
    shown = [v if isinstance(v, str) else str(v) for v in values]
    if len(set(shown)) != len(shown):
        raise ValueError(f"axis {name!r}: two values print the same ({shown}); give distinct values")
    return "string", shown, dict(zip(shown, values))


class _Bench:
    def __init__(self, name, fn, axes, device, objects):
        self.name, self.fn, self.axes, self.device, self.objects = name, fn, axes, device, objects


class State:
    """What a benchmark function sees of its point (the C++ pitot::State, plus axis values by
    name). Valid only while the benchmark function runs."""

    __slots__ = ("_s", "_bench", "_streams")

    def __init__(self, engine_state, bench: _Bench):
        self._s = engine_state
        self._bench = bench
        self._streams = {}

    # Axis values.
    def __getitem__(self, axis: str):
        kind = self._bench.axes.get(axis)
        if kind is None:
            raise KeyError(f"benchmark {self._bench.name} has no axis {axis!r} (axes: {', '.join(self._bench.axes)})")
        if kind in ("int", "pow2"):
            return self._s.get_int(axis)
        if kind == "float":
            return self._s.get_float(axis)
        value = self._s.get_string(axis)
        return self._bench.objects.get(axis, {}).get(value, value)

    def get_int(self, axis: str) -> int:
        return self._s.get_int(axis)

    def get_float(self, axis: str) -> float:
        return self._s.get_float(axis)

    def get_string(self, axis: str) -> str:
        return self._s.get_string(axis)

    @property
    def params(self) -> dict:
        """Every axis value of this point, by name, in declared order."""
        return {a: self[a] for a in self._bench.axes}

    # Skips and work counters.
    def skip(self, reason: str) -> None:
        """Skip this point (asv shows n/a) with the reason; return from the function after it."""
        self._s.skip(str(reason))

    @property
    def skipped(self) -> bool:
        return self._s.skipped()

    def add_items(self, n: float) -> None:
        self._s.add_items(float(n))

    def add_bytes(self, n: float) -> None:
        """Bytes read plus written by one call of the timed function (-> GB/s)."""
        self._s.add_bytes(float(n))

    def add_flops(self, n: float) -> None:
        self._s.add_flops(float(n))

    @property
    def benchmark_name(self) -> str:
        return self._s.benchmark_name()

    @property
    def point_name(self) -> str:
        return self._s.point_name()

    @property
    def device(self) -> str:
        return self._bench.device

    # Ranks (docs/ranks.md): a multi_rank benchmark's points run in every rank's process.
    @property
    def rank(self) -> int:
        """This process's rank in the point's world (0 outside a multi-rank run)."""
        return self._s.rank()

    @property
    def world_size(self) -> int:
        """The number of ranks the point runs in (1 outside a multi-rank run)."""
        return self._s.world_size()

    @property
    def local_rank(self) -> int:
        """This process's rank on its host: which GPU it takes (0 outside a multi-rank run)."""
        return self._s.local_rank()

    # The timed region.
    def exec(self, fn) -> None:
        """Time ``fn()``. In a CPU benchmark: the host clock, the loop sized so a sample lasts
        >= 100 us. In a GPU benchmark (device="cuda"): device time through the CUDA backend, on
        pitot's stream; fn launches on it: it runs inside ``torch.cuda.stream(...)`` when torch is
        imported and inside CuPy's stream when CuPy is, and a fn taking one argument gets the
        stream's handle (a cudaStream_t as an int) for anything else."""
        if self._bench.device in _GPU_DEVICES:
            self._exec_device(fn)
        else:
            errors = []
            _reraising(errors, self._s.exec_cpu, _recording(errors, fn))

    def _exec_device(self, fn) -> None:
        """exec(fn) on the device clock, also for an asv method of a CPU benchmark that
        `--self-timed device` moves there (pitot/_self_timed.py)."""
        if not has_cuda and self._bench.device not in _GPU_DEVICES:
            raise RuntimeError(f"--self-timed device: this pitot module was built without its CUDA backend, so "
                               f"{self._bench.name} cannot be timed on the device clock (install pitot built "
                               "with CUDA, or use --self-timed returned)")
        errors = []
        _reraising(errors, self._s.exec_device, _recording(errors, _launcher(fn, self._streams)))

    def _set_info(self, key: str, value) -> None:
        """One entry of the point's backend_info (the JSON report carries it)."""
        self._s.set_info(str(key), json.dumps(value))

    def exec_manual(self, fn, *, warmup_time=-1.0, repeat=0) -> None:
        """The escape hatch: ``fn()`` runs one iteration and returns its own seconds; each
        returned number is one sample as it is. warmup_time (seconds, < 0: --warmup) and repeat
        (samples, 0: the stopping rule) are asv's attributes."""
        errors = []
        _reraising(errors, lambda c: self._s.exec_manual(c, warmup_time=float(warmup_time), repeat=int(repeat)),
                   _recording(errors, lambda: float(fn())))

    def exec_cpu(self, fn, *, number=0, sample_time=0.0, warmup_time=-1.0, repeat=0) -> None:
        """``exec(fn)`` on the host clock with asv's timing attributes (0 or < 0: pitot's own):
        number of calls per sample, sample_time, warmup_time, repeat (samples)."""
        errors = []
        _reraising(errors, lambda c: self._s.exec_cpu(c, number=int(number), sample_time=float(sample_time),
                                                      warmup_time=float(warmup_time), repeat=int(repeat)),
                   _recording(errors, fn))

    def exec_value(self, fn) -> None:
        """A value measured once, not a time: ``fn()`` returns the point's one sample (asv's
        track_, mem_ and peakmem_ kinds; the unit is the benchmark's)."""
        errors = []
        _reraising(errors, self._s.exec_value, _recording(errors, lambda: float(fn())))


def _recording(errors, fn):
    """fn, keeping any exception it raises, to be re-raised with its type past the engine."""
    def call(*args):
        try:
            return fn(*args)
        except BaseException as e:
            errors.append(e)
            raise
    return call


def _reraising(errors, run, call):
    """run(call), re-raising the exception the Python code raised rather than the engine's text."""
    try:
        run(call)
    except RuntimeError:
        if errors:
            raise errors[0] from None
        raise


def _failure(e: BaseException) -> str:
    """A failed point's reason (its traceback goes to stderr, which the driver keeps the end of)."""
    if getattr(e, "_pitot_verdict", False):  # the harness's refusal (_problem.py): the reason as it is
        return str(e)
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    sys.stderr.flush()
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _register(name, fn, axes, *, version="1", timeout=60.0, device=None, source_file="", code="",
              asv_type="time", unit="seconds", repr_values=False, asv_key="", multi_rank=False):
    global _uses_device
    device = (device or "cpu").lower()
    if device not in ("cpu",) + _GPU_DEVICES:
        raise ValueError(f"benchmark {name}: device must be 'cpu' or 'cuda', not {device!r}")
    _uses_device = _uses_device or device in _GPU_DEVICES
    engine_axes, kinds, objects = [], {}, {}
    for axis_name, values in (axes or {}).items():
        kind, engine_values, objs = _axis_kind(axis_name, values)
        engine_axes.append((str(axis_name), kind, engine_values))
        kinds[str(axis_name)] = kind
        if objs:
            objects[str(axis_name)] = objs
    bench = _Bench(name, fn, kinds, device, objects)

    def run_point(engine_state):
        state = State(engine_state, bench)
        try:
            bench.fn(state)
        except BaseException as e:  # a failed point, never the program: the others still run
            return _failure(e)
        finally:
            state._s = None  # a State kept past its point must not reach freed memory
            state._streams.clear()
        return None

    _engine.register_benchmark(str(name), run_point, engine_axes, str(version), float(timeout),
                               source_file, code, device in _GPU_DEVICES, _BUILD_TYPE, str(asv_type), str(unit),
                               bool(repr_values), str(asv_key or ""), bool(multi_rank))
    return bench


def _source_of(fn) -> tuple[str, str]:
    try:
        source_file = inspect.getsourcefile(fn) or ""
    except TypeError:
        source_file = ""
    try:
        code = inspect.getsource(fn)
    except (OSError, TypeError):
        code = ""
    return source_file, code


def benchmark(fn=None, *, axes=None, name=None, version="1", timeout=60.0, device=None, multi_rank=False):
    """Register a benchmark function ``fn(state)`` with the engine.

    axes: {name: values}: a list of ints (int axis), of numbers (float axis), of strings (string
      axis), of other objects (a string axis of their str(); state[name] gives the object back), or
      pitot.pow2(exponents). Points are the cartesian product, last axis fastest.
    version: bump when results are no longer comparable. timeout: seconds before the driver kills
    a point (default 60). device: None or "cpu" (host clock), "cuda" (device time; its points are
    skipped with the reason on a machine without a GPU). multi_rank: the points run in every rank
    of a world started by `pitot run --ranks N` or a launcher (torchrun, mpirun, srun), with one
    sample count and stopping decision for all and each sample the slowest rank's (docs/ranks.md);
    state.rank and state.world_size say where this process is, pitot.torch_process_group(state)
    gives torch.distributed's group over the same ranks.
    """

    def wrap(f):
        source_file, code = _source_of(f)
        _register(name or f.__name__, f, axes, version=version, timeout=timeout, device=device,
                  source_file=source_file, code=code, multi_rank=multi_rank)
        f.__pitot_benchmark__ = True  # not an asv benchmark too, whatever its name
        return f

    return wrap(fn) if fn is not None else wrap


# ------------------------------------------------------------------------------------------------
# asv benchmarks (pitot/_asv.py): found, named and measured as asv does.

_asv_done: set = set()  # names registered from asv benchmarks, so a second main() adds nothing


def register_asv(namespace, *, device=None) -> list:
    """Register the asv benchmarks found in ``namespace`` (a module or a dict of globals) as asv
    finds them: classes' and functions' time_*, timeraw_*, track_*, mem_* and peakmem_* (and
    asv's CamelCase forms and ``benchmark_name``), each named as asv names it below its module
    (``Class.time_x``, ``time_y``) with asv's params, version and code. asv's setup, teardown,
    setup_cache, skip_params, timeout and timing attributes are honoured; work_<x> returns the
    counters of time_<x>. A class may set ``pitot_device = "cuda"``; ``device`` is the default for
    the others. Returns the names registered."""
    if inspect.ismodule(namespace):
        module, items = namespace, list(vars(namespace).items())
    else:
        items = list(dict(namespace).items())
        module = sys.modules.get(dict(namespace).get("__name__", ""))
    added = []
    for b in _asv_discovery.discover([(k, v) for k, v in items if not getattr(v, "__pitot_benchmark__", False)], module):
        if b.name in _asv_done:
            continue
        _asv_done.add(b.name)
        _register_asv(b, device)
        added.append(b.name)
    return added


def _register_asv(b, device):
    def body(state):
        params = [objects[state.get_string(name)] for name, objects in zip(b.param_names, b.objects)]
        _asv.run_point(b, state, params)

    source_file = getattr(b.module, "__file__", "") or ""
    _register(b.name, body, dict(zip(b.param_names, b.reprs)), version=b.version, timeout=b.timeout,
              device=(b.device or device) if b.kind == "time" else None, source_file=source_file,
              code=b.code, asv_type=b.type, unit=b.unit, repr_values=True, asv_key=b.key)


# ------------------------------------------------------------------------------------------------
# The program.

def main(argv=None, *, device=None, namespace=None, program=None):
    """Run this file as a pitot benchmark program: the C++ programs' main (src/program), so the
    same flags (--list [--json], --filter, --axis, --json, --csv, --asv-dir, --processes, the
    engine knobs, and what `pitot run` passes) and exit codes (0 ran, 1 a point failed, 2 bad
    input, 3 device lost). asv-style classes of the calling module are registered first (device:
    their default, e.g. "cuda"). Exits the process with the program's code."""
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    register_asv(namespace, device=device)
    sys.exit(run(argv, program=program))


def _self_timed_option(args):
    """--self-timed MODE (pitot/_self_timed.py), taken out of the program's flags (given after the
    file, or before it to `python -m pitot`, which puts it in _launch): (the mode given or None,
    the other flags). A bad value is bad input: exit 2, as for the program's other flags."""
    try:
        given, rest = _self_timed.take_option(list(args))
        given = given or _launch.get("self_timed")
        if given:
            _self_timed.set_mode(given)
    except ValueError as e:
        print(f"pitot: {e}", file=sys.stderr)
        sys.exit(2)
    return given, rest


def _requirements() -> dict:
    """What this program's asv env is made of: the interpreter (asv's `python` parameter, the
    path as asv records an existing environment's, so an asv history run with --python=same goes
    on in the same graphs), its version (which names the env: python3.12) and the GPU backend
    when a benchmark uses it; not the compiler or the GPU toolkits the module was built with."""
    req = {"python": os.path.abspath(sys.executable), "python_version": _PYTHON_VERSION}
    if _uses_device and _engine.cuda_version():
        req["cuda"] = _engine.cuda_version()
    return req


def run(argv=None, *, program=None) -> int:
    """The program's main over the benchmarks registered so far; returns its exit code."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if program is None:
        program = _launch.get("program") or os.path.splitext(os.path.basename(script))[0] or "python"
    given, rest = _self_timed_option(sys.argv[1:] if argv is None else argv)
    args = [program] + rest
    # --processes K starts this program again as it was started, then the flags.
    self_command = _launch.get("self_command") or ([sys.executable, script] if script and os.path.isfile(script) else [])
    if given:  # the engine does not know the flag: each process is given it again
        self_command = self_command + [_self_timed.OPTION, given]
    # Ctrl-C ends the program as it ends a C++ one (Python's handler would wait for the engine).
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return _engine.main(args, self_command, _requirements())
    finally:
        sys.stdout.flush()
        sys.stderr.flush()

from ._problem import Buffer, DeviceView, Problem, Tolerance, submission  # noqa: E402,F401
from ._ranks import torch_process_group  # noqa: E402,F401
