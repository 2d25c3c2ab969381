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

    class Suite:                                          # asv style: params, setup, time_*, work_*
        params = [[256, 4096]]
        param_names = ["n"]
        def setup(self, n): ...
        def time_sum(self, n): ...
        def work_sum(self, n): return {"flops": n}

    if __name__ == "__main__":
        pitot.main()                                      # the program: --list, --filter, --json, ...

docs/writing-benchmarks.md ("Benchmarks in Python") has the whole of it.
"""

from __future__ import annotations

import inspect
import os
import signal
import sys
import traceback

from . import _engine

__all__ = ["benchmark", "pow2", "State", "main", "has_cuda", "register_asv"]

has_cuda: bool = _engine.has_cuda

_BUILD_TYPE = f"python{sys.version_info.major}.{sys.version_info.minor}"
_GPU_DEVICES = ("cuda", "gpu")


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

    # The timed region.
    def exec(self, fn) -> None:
        """Time ``fn()``. In a CPU benchmark: the host clock, the loop sized so a sample lasts
        >= 100 us. In a GPU benchmark (device="cuda"): device time through the CUDA backend, on
        pitot's stream; fn launches on it: it runs inside ``torch.cuda.stream(...)`` when torch is
        imported and inside CuPy's stream when CuPy is, and a fn taking one argument gets the
        stream's handle (a cudaStream_t as an int) for anything else."""
        errors = []
        if self._bench.device in _GPU_DEVICES:
            launch = _launcher(fn, self._streams)

            def call(handle):
                try:
                    launch(handle)
                except BaseException as e:  # kept to re-raise with its type and traceback
                    errors.append(e)
                    raise

            run = self._s.exec_device
        else:

            def call():
                try:
                    fn()
                except BaseException as e:
                    errors.append(e)
                    raise

            run = self._s.exec_cpu
        try:
            run(call)
        except RuntimeError:
            if errors:
                raise errors[0] from None
            raise

    def exec_manual(self, fn) -> None:
        """The escape hatch: ``fn()`` runs one iteration and returns its own seconds."""
        errors = []

        def call():
            try:
                return float(fn())
            except BaseException as e:
                errors.append(e)
                raise

        try:
            self._s.exec_manual(call)
        except RuntimeError:
            if errors:
                raise errors[0] from None
            raise


def _launcher(fn, streams):
    """fn wrapped to run on the stream pitot hands each launch (an int handle)."""
    wants_handle = _takes_one_argument(fn)
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")

    def contexts(handle):
        found = streams.get(handle)
        if found is None:
            found = []
            if torch is not None and torch.cuda.is_available():
                found.append(torch.cuda.stream(torch.cuda.ExternalStream(handle)))
            if cupy is not None:
                found.append(cupy.cuda.ExternalStream(handle))
            streams[handle] = found
        return found

    def launch(handle):
        ctx = contexts(handle)
        if not ctx:
            return fn(handle) if wants_handle else fn()
        # torch.cuda.stream(...) objects are reusable context managers; so are CuPy's streams.
        for c in ctx:
            c.__enter__()
        try:
            return fn(handle) if wants_handle else fn()
        finally:
            for c in reversed(ctx):
                c.__exit__(None, None, None)

    return launch


def _takes_one_argument(fn) -> bool:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        return False
    return len(params) == 1


def _failure(e: BaseException) -> str:
    """A failed point's reason (its traceback goes to stderr, which the driver keeps the end of)."""
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    sys.stderr.flush()
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _register(name, fn, axes, *, version="1", timeout=60.0, device=None, source_file="", code=""):
    device = (device or "cpu").lower()
    if device not in ("cpu",) + _GPU_DEVICES:
        raise ValueError(f"benchmark {name}: device must be 'cpu' or 'cuda', not {device!r}")
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
                               source_file, code, device in _GPU_DEVICES, _BUILD_TYPE)
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


def benchmark(fn=None, *, axes=None, name=None, version="1", timeout=60.0, device=None):
    """Register a benchmark function ``fn(state)`` with the engine.

    axes: {name: values}: a list of ints (int axis), of numbers (float axis), of strings (string
      axis), of other objects (a string axis of their str(); state[name] gives the object back), or
      pitot.pow2(exponents). Points are the cartesian product, last axis fastest.
    version: bump when results are no longer comparable. timeout: seconds before the driver kills
    a point (default 60). device: None or "cpu" (host clock), "cuda" (device time; its points are
    skipped with the reason on a machine without a GPU).
    """

    def wrap(f):
        source_file, code = _source_of(f)
        _register(name or f.__name__, f, axes, version=version, timeout=timeout, device=device,
                  source_file=source_file, code=code)
        return f

    return wrap(fn) if fn is not None else wrap


# ------------------------------------------------------------------------------------------------
# asv-style classes: params / param_names / setup / teardown / time_* (and work_* for counters).

_asv_done: set = set()


def _asv_params(obj):
    params = getattr(obj, "params", [])
    names = getattr(obj, "param_names", None)
    if params and not isinstance(params[0], (list, tuple)):
        params = [params]  # asv: one parameter may be given as a plain list
    params = [list(p) for p in params]
    if names is None:
        names = [f"param{i + 1}" for i in range(len(params))]
    if len(names) != len(params):
        raise ValueError(f"{obj!r}: {len(params)} params but {len(names)} param_names")
    return list(names), params


def _counters(work) -> dict:
    """What a work_* returns: a number (FLOPs) or a mapping of flops, bytes and items."""
    if work is None:
        return {}
    if isinstance(work, (int, float)):
        return {"flops": work}
    unknown = set(work) - {"flops", "bytes", "items"}
    if unknown:
        raise ValueError(f"work_* returned unknown counters {sorted(unknown)} (known: flops, bytes, items)")
    return dict(work)


def _asv_benchmark(cls, method: str, name: str, device):
    names, params = _asv_params(cls)
    suffix = method[len("time_"):]
    axes = dict(zip(names, params))
    cache = {}

    def body(state):
        args = [state[n] for n in names]
        obj = cls() if inspect.isclass(cls) else None
        target = obj if obj is not None else cls
        if hasattr(target, "setup_cache") and inspect.isclass(cls):
            if "value" not in cache:
                cache["value"] = target.setup_cache()
            args = [cache["value"]] + args
        setup = getattr(target, "setup", None)
        teardown = getattr(target, "teardown", None)
        if callable(setup):
            try:
                setup(*args)
            except NotImplementedError as e:  # asv: this combination of params is skipped
                state.skip(f"setup raised NotImplementedError{': ' + str(e) if str(e) else ''}")
                return
        try:
            work = getattr(target, "work_" + suffix, None)
            for counter, n in _counters(work(*args) if callable(work) else None).items():
                getattr(state, "add_" + counter)(n)
            timed = getattr(target, method)
            state.exec(lambda: timed(*args))
        finally:
            if callable(teardown):
                teardown(*args)

    source_file, code = _source_of(getattr(cls, method))
    _register(name, body, axes, version=str(getattr(cls, "version", None) or "1"),
              timeout=float(getattr(cls, "timeout", 60.0)),
              device=getattr(cls, "pitot_device", None) or device,
              source_file=source_file, code=code)


def register_asv(namespace, *, device=None) -> list:
    """Register the asv-style benchmarks found in ``namespace`` (a module or a dict of globals):
    classes with time_* methods (named <Class>_<method>) and functions named time_*. A class may
    set ``pitot_device = "cuda"``; ``device`` is the default for the others. asv's own attributes
    params, param_names, setup, setup_cache, teardown, timeout and version are honoured; work_<x>
    returns the counters of time_<x> (a number of FLOPs, or {"flops", "bytes", "items"}); other
    asv kinds (track_*, mem_*, peakmem_*, timeraw_*) are left out. Returns the names registered."""
    items = vars(namespace).items() if inspect.ismodule(namespace) else dict(namespace).items()
    added = []
    for key, obj in list(items):
        if key.startswith("_"):
            continue
        if inspect.isclass(obj):
            for method in sorted(m for m in dir(obj) if m.startswith("time_") and callable(getattr(obj, m))):
                name = f"{obj.__name__}_{method}"
                if (obj, method) in _asv_done:
                    continue
                _asv_done.add((obj, method))
                _asv_benchmark(obj, method, name, device)
                added.append(name)
        elif inspect.isfunction(obj) and key.startswith("time_") and (obj, key) not in _asv_done:
            _asv_done.add((obj, key))
            _asv_function(obj, key, device)
            added.append(key)
    return added


def _asv_function(fn, name, device):
    class _Free:  # a free asv function: its attributes are the class's
        params = getattr(fn, "params", [])
        param_names = getattr(fn, "param_names", None)
        timeout = getattr(fn, "timeout", 60.0)
        version = getattr(fn, "version", None)
        pitot_device = getattr(fn, "pitot_device", None)

    setup = getattr(fn, "setup", None)
    teardown = getattr(fn, "teardown", None)
    if setup:
        _Free.setup = staticmethod(setup)
    if teardown:
        _Free.teardown = staticmethod(teardown)
    setattr(_Free, name, staticmethod(fn))
    _asv_benchmark(_Free, name, name, device)


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


def run(argv=None, *, program=None) -> int:
    """The program's main over the benchmarks registered so far; returns its exit code."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if program is None:
        program = os.path.splitext(os.path.basename(script))[0] or "python"
    args = [program] + list(sys.argv[1:] if argv is None else argv)
    # --processes K starts this file again: the interpreter and the script, then the flags.
    self_command = [sys.executable, script] if script and os.path.isfile(script) else []
    # Ctrl-C ends the program as it ends a C++ one (Python's handler would wait for the engine).
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return _engine.main(args, self_command)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
