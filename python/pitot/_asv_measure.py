"""One point of an asv benchmark measured as asv measures its kind: time_ on pitot's clocks,
timeraw_ in a fresh interpreter, track_ the number it returns, mem_ the size of the object it
returns, peakmem_ the peak memory of a process of its own; and the folder the calls run in.
pitot/_asv.py runs the point around the measurement (setup_cache, setup, teardown).
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import pickle
import subprocess
import sys
import textwrap
import time

from . import _self_timed
from ._asv_discovery import all_attrs_any_case, discover, first_attr


class SkipPoint(Exception):
    """Raised inside a point to skip it with a reason (asv shows it n/a)."""


@contextlib.contextmanager
def in_folder(folder):
    """Runs the block in `folder` (None: where it is), then goes back."""
    if folder is None:
        yield
        return
    back = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(back)


def _in(folder, fn):
    """fn, called in `folder`."""
    def call():
        with in_folder(folder):
            return fn()
    return call


def measure(b, state, func, sources, args, folder=None):
    """Measures the point by its kind; every kind but time_ calls the function in `folder`."""
    if b.kind == "time":
        _time(b, state, func, sources, args)
    elif b.kind == "timeraw":
        _timeraw(state, _in(folder, lambda: func(*args)), sources, folder)
    elif b.kind == "track":
        state.exec_value(_in(folder, lambda: _number(b, func(*args))))
    elif b.kind == "mem":
        state.exec_value(_in(folder, lambda: _asizeof_of(func(*args))))
    else:  # peakmem
        state.exec_value(lambda: _peakmem_in_child(b, args, folder))


def _number(b, value):
    """A track's value as a float: NaN skips the point (asv shows n/a), a non-number fails it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{b.name} returned {value!r}, not a number")
    if math.isnan(value):
        raise SkipPoint(f"{b.name} returned NaN")
    return float(value)


def _timing_knobs(sources):
    """asv's timing attributes, where the benchmark sets them (read after setup, which may change
    them, as asv reads them); None where it does not."""
    repeat = first_attr(sources, "repeat")
    if isinstance(repeat, (tuple, list)):  # (min, max, max_time): pitot's rule, at most max samples
        repeat = repeat[1]
    return {"number": int(first_attr(sources, "number", 0)),
            "sample_time": float(first_attr(sources, "sample_time", 0.0)),
            "warmup_time": float(first_attr(sources, "warmup_time", -1.0)),
            "repeat": int(repeat or 0)}


def _time(b, state, func, sources, args):
    """time_*: pitot's device clock when the class opts in (pitot_device = "cuda"); the returned
    number when the function measured itself, or pitot's device clock for a method that read
    CUDA events under `--self-timed device` (_self_timed.py); else pitot's host clock (asv's
    number, repeat, sample_time and warmup_time where set). The point's backend_info says which
    convention timed it ("convention") and whether its method reads CUDA events ("self_timed")."""
    suffix = b.attr_name[len("time_"):] if b.attr_name.startswith("time_") else b.attr_name
    work = first_attr(sources[1:], "work_" + suffix)
    for counter, n in counters(work(*args) if callable(work) else None).items():
        getattr(state, "add_" + counter)(n)
    knobs = _timing_knobs(sources)
    if state.device in ("cuda", "gpu"):
        convention, events = "device", False
    else:
        convention, events = _self_timed.decide(b.name, lambda: func(*args),
                                                first_attr(sources, "pitot_returns_seconds"), time.perf_counter)
    state._set_info("convention", convention)
    if events:
        state._set_info("self_timed", "cuda-events")
    if convention == "device":
        skip = first_attr(sources, "pitot_skip_waits", True)
        with _self_timed.host_waits_skipped() if skip else contextlib.nullcontext():
            state._exec_device(lambda: func(*args))
    elif convention == "returned-seconds":
        state.exec_manual(lambda: func(*args), warmup_time=knobs["warmup_time"], repeat=knobs["repeat"])
    else:
        state.exec_cpu(lambda: func(*args), **knobs)


def counters(work) -> dict:
    """What a work_* returns: a number (FLOPs) or a mapping of flops, bytes and items."""
    if work is None:
        return {}
    if isinstance(work, (int, float)):
        return {"flops": work}
    unknown = set(work) - {"flops", "bytes", "items"}
    if unknown:
        raise ValueError(f"work_* returned unknown counters {sorted(unknown)} (known: flops, bytes, items)")
    return dict(work)


# asv_runner's timeraw child (benchmarks/timeraw.py): timeit of the returned code in a new process.
_TIMERAW = textwrap.dedent('''
    from __future__ import print_function
    from timeit import timeit, default_timer as timer
    print(repr(timeit(stmt="""{stmt}""", setup="""{setup}""",
                number={number}, timer=timer)))
''').strip()


def _timeraw(state, code_of, sources, folder=None):
    """timeraw_*: the function (code_of() calls it) returns code (or (code, setup)); each sample
    times it in a fresh interpreter (started in `folder`), `number` times (default 1), as asv does."""
    knobs = _timing_knobs(sources)
    number = knobs["number"] or 1
    env = dict(os.environ)
    env.update({str(k): str(v) for k, v in (first_attr(sources, "env") or {}).items()})

    def one_sample():
        stmt = code_of()
        stmt, setup = stmt if isinstance(stmt, tuple) else (stmt, "")
        code = _TIMERAW.format(stmt=textwrap.dedent(stmt).replace('"""', r'\"\"\"'),
                               setup=textwrap.dedent(setup).replace('"""', r'\"\"\"'), number=number)
        p = subprocess.run([sys.executable, "-c", "import sys; exec(sys.stdin.read())"], input=code,
                           capture_output=True, text=True, env=env, cwd=folder)
        if p.returncode != 0:
            raise RuntimeError(f"the timed process failed: {p.stderr.strip()}")
        return float(p.stdout.strip()) / number

    state.exec_manual(one_sample, warmup_time=knobs["warmup_time"], repeat=knobs["repeat"])


def _asizeof_of(obj):
    """mem_*: the size of the returned object as asv measures it (pympler's asizeof of a copy)."""
    try:
        from pympler.asizeof import asizeof
    except ImportError:
        raise RuntimeError("mem_ benchmarks need pympler, as asv's do: pip install pympler") from None
    return float(asizeof([obj, copy.copy(obj)]) - asizeof([obj, obj]))


def _peakmem_in_child(b, args, folder=None):
    """peakmem_*: the peak resident memory of a fresh process (started in `folder`) that imports
    the module, sets the point up and runs the function, as asv runs every benchmark in its own
    process."""
    spec = {"module": b.module.__name__, "file": getattr(b.module, "__file__", None),
            "path": [p for p in sys.path if p], "name": b.name, "args": pickle.dumps(args).hex()}
    p = subprocess.run([sys.executable, "-c", "import pitot._asv_measure as m; m.peakmem_child()"],
                       input=repr(spec), capture_output=True, text=True, cwd=folder)
    if p.returncode != 0:
        raise RuntimeError(f"the peakmem process failed: {p.stderr.strip()[-2000:]}")
    return float(p.stdout.strip().splitlines()[-1])


def peakmem_child():
    """The child of _peakmem_in_child: reads its spec on stdin, prints the peak RSS in bytes."""
    import ast
    import importlib
    import resource
    import importlib.util
    spec = ast.literal_eval(sys.stdin.read())
    sys.path[:0] = spec["path"]
    if spec["module"] == "__main__":  # a file run as a script: imported here, its __main__ block not run
        loader = importlib.util.spec_from_file_location("__pitot_peakmem__", spec["file"])
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
    else:
        module = importlib.import_module(spec["module"])
    (b,) = [x for x in discover(vars(module).items(), module) if x.name == spec["name"]]
    args = pickle.loads(bytes.fromhex(spec["args"]))
    func, sources = b.parts()
    for setup in all_attrs_any_case(sources, "setup")[::-1]:
        setup(*args)
    func(*args)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)  # Linux: kB
