"""asv benchmark suites on pitot's engine: benchmarks found, named, versioned and measured as
asv (asv_runner 0.2-0.3) finds, names, versions and measures them, so that results continue an
asv history (docs/writing-benchmarks.md, "asv suites"). What pitot does differently is listed in
that document's table.

A benchmark here is one asv benchmark: a method of a class or a function of a module whose name
matches one of asv's kinds (time_, timeraw_, track_, mem_, peakmem_, or the CamelCase forms), or
that sets `benchmark_name`. The program is its module, so its asv key is <module>.<name>, or the
`benchmark_name` as it is (asv's rule).
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import hashlib
import inspect
import itertools
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter

from . import _self_timed

# asv_runner's kinds, in the order it tries them (its benchmark modules, sorted by name).
KINDS = [
    ("mem", re.compile("^(Mem[A-Z_].+)|(mem_.+)$")),
    ("peakmem", re.compile("^(PeakMem[A-Z_].+)|(peakmem_.+)$")),
    ("time", re.compile("^(Time[A-Z_].+)|(time_.+)$")),
    ("timeraw", re.compile("^(Timeraw[A-Z_].+)|(timeraw_.+)$")),
    ("track", re.compile("^(Track[A-Z_].+)|(track_.+)$")),
]
# asv's type and unit of each kind (a track may set its own).
TYPES = {"time": ("time", "seconds"), "timeraw": ("time", "seconds"), "mem": ("memory", "bytes"),
         "peakmem": ("peakmemory", "bytes")}


# ------------------------------------------------------------------------------------------------
# asv_runner's helpers, copied in behaviour (asv_runner/benchmarks/_base.py): attribute lookup,
# the source a version hashes, parameter reprs.

def first_attr(sources, name, default=None):
    for source in sources:
        value = getattr(source, name, None)
        if value is not None:
            return value
    return default


def all_attrs_any_case(sources, name):
    """asv's _get_all_attrs(sources, name, ignore_case=True): setup, SetUp, ... from each source."""
    found = []
    for source in sources:
        same = [getattr(source, key) for key in dir(source) if key.lower() == name.lower()]
        if len(same) > 1:
            raise ValueError(f"{source.__name__} contains multiple {name} functions.")
        if same and same[0] is not None:
            found.append(same[0])
    return found


def source_code(items):
    """asv's get_source_code: the dedented sources of the benchmark, its setups and setup_cache,
    a method under its class line. The version of a benchmark is the sha256 of this text."""
    sources = []
    prev_class_name = None
    for func in items:
        if hasattr(func, "pretty_source"):
            src = textwrap.dedent(func.pretty_source).lstrip()
        else:
            try:
                lines, _ = inspect.getsourcelines(func)
            except TypeError:
                continue
            if not lines:
                continue
            src = "\n".join(line.rstrip() for line in lines)
            src = textwrap.dedent(src)
        class_name = None
        if inspect.ismethod(func):
            if hasattr(func, "im_class"):
                class_name = func.im_class.__name__
            elif hasattr(func, "__qualname__"):
                names = func.__qualname__.split(".")
                if len(names) > 1:
                    class_name = names[-2]
        if class_name and prev_class_name != class_name:
            src = "class {}:\n    {}".format(class_name, src.replace("\n", "\n    "))
        elif class_name:
            src = "    " + src.replace("\n", "\n    ")
        sources.append(src)
        prev_class_name = class_name
    return "\n\n".join(sources).rstrip()


def repr_no_address(obj):
    """repr(obj) without the ' at 0x...' of a default repr (asv's _repr_no_address)."""
    result = repr(obj)
    match = re.match(r"^(<.*) at (0x[\da-fA-F]*)(>)$", result)
    if match:
        known = re.match(r"^(<.*) at (0x[\da-fA-F]*)(>)$", object.__repr__(obj))
        if known and known[2] == match[2]:
            result = match[1] + match[3]
    return result


def validate_params(params, param_names):
    """asv's _validate_params: a list of lists, names padded with param<k>."""
    param_names = [str(x) for x in list(param_names)]
    params = list(params)
    if params and not isinstance(params[0], (tuple, list)):
        params = [params]
    else:
        params = [list(entry) for entry in params]
    if len(param_names) != len(params):
        param_names = param_names[:len(params)]
        param_names += [f"param{k + 1}" for k in range(len(param_names), len(params))]
    return params, param_names


def unique_reprs(params):
    """asv's _unique_param_ids: each value's repr, duplicates within an axis numbered 'x (0)'."""
    reprs = [[repr_no_address(item) for item in entry] for entry in params]
    for i, axis in enumerate(reprs):
        if len(axis) != len(set(axis)):
            seen = {name: 0 for name, count in Counter(axis).items() if count > 1}
            for j, name in enumerate(axis):
                if name in seen:
                    axis[j] = f"{name} ({seen[name]})"
                    seen[name] += 1
    return reprs


def version_of(sources, code, kind):
    """asv's version: the class's or function's `version`, else sha256 of the code (a timeraw
    benchmark's `env` included, as asv_runner 0.3 does)."""
    explicit = first_attr(sources, "version")
    if explicit is not None:
        return str(explicit)
    env = first_attr(sources, "env") if kind == "timeraw" else None
    if env:
        code = code + "\n# timeraw_env\n" + repr(sorted((str(k), str(v)) for k, v in env.items()))
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------------------------
# Discovery.

class AsvBenchmark:
    """One asv benchmark of a module: its name below the module, kind, asv metadata, and how to
    reach its function (a fresh class instance per point: points of one process interleave).
    `key` is the whole asv key when the benchmark sets its own (`benchmark_name`: asv keys it by
    that name alone, without the module), else None (the key is <module>.<name>)."""

    def __init__(self, name, kind, attr_name, module, klass, func, key=None):
        self.name, self.kind, self.attr_name, self.key = name, kind, attr_name, key
        self.module, self.klass, self.func = module, klass, func
        _, sources = self.parts()
        self.setups = all_attrs_any_case(sources, "setup")[::-1]
        self.setup_cache = first_attr(sources, "setup_cache")
        self.code = source_code([sources[0]] + self.setups + [self.setup_cache])
        self.version = version_of(sources, self.code, kind)
        params, self.param_names = validate_params(first_attr(sources, "params", []),
                                                   first_attr(sources, "param_names", []))
        self.reprs = unique_reprs(params)
        # The engine's axes hold the reprs; the benchmark gets the objects back by them.
        self.objects = [dict(zip(r, p)) for r, p in zip(self.reprs, params)]
        self.skip_tuples = [tuple(t) for t in first_attr(sources, "skip_params", [])]
        self.timeout = float(first_attr(sources, "timeout", 60.0))
        self.type, self.unit = TYPES.get(kind, (first_attr(sources, "type", "track"),
                                                first_attr(sources, "unit", "unit")))
        self.device = first_attr(sources, "pitot_device")

    def parts(self):
        """The function to call, on a new instance of the class, and where asv looks up its
        attributes: the function, the instance, the module."""
        if self.klass is None:
            return self.func, [self.func, self.module]
        instance = self.klass()
        func = getattr(instance, self.attr_name)
        return func, [func, instance, self.module]

    @property
    def cache_key(self):
        """asv's setup_cache key (module:line): benchmarks sharing a setup_cache share its value."""
        if self.setup_cache is None:
            return None
        return f"{inspect.getsourcefile(self.setup_cache)}:{inspect.getsourcelines(self.setup_cache)[1]}"


def _kind_of(search):
    for kind, regex in KINDS:
        if regex.match(search):
            return kind
    return None


def _benchmark(attr_name, module, klass, func):
    """asv's _get_benchmark: the benchmark a function or method is, or None."""
    if getattr(func, "skip_benchmark", False):
        return None
    custom = getattr(func, "benchmark_name", None)
    kind = _kind_of(custom.split(".")[-1] if custom is not None else attr_name)
    if kind is None:
        return None
    if klass is None:
        name = custom if custom is not None else func.__name__
    else:
        name = custom if custom is not None else f"{klass.__name__}.{attr_name}"
    return AsvBenchmark(name, kind, attr_name, module, klass, func, key=custom)


def discover(items, module):
    """The asv benchmarks among a module's attributes (asv's disc_benchmarks for one module):
    public classes' benchmark methods (asv takes imported classes too) and benchmark functions."""
    found = []
    for attr_name, attr in items:
        if attr_name.startswith("_"):
            continue
        if inspect.isclass(attr) and not inspect.isabstract(attr):
            for name, member in inspect.getmembers(attr):
                if inspect.isfunction(member) or inspect.ismethod(member):
                    b = _benchmark(name, module, attr, member)
                    if b is not None:
                        found.append(b)
        elif inspect.isfunction(attr):
            b = _benchmark(attr_name, module, None, attr)
            if b is not None:
                found.append(b)
    return found


# ------------------------------------------------------------------------------------------------
# Running one point.

class SkipPoint(Exception):
    """Raised inside a point to skip it with a reason (asv shows it n/a)."""


_caches: dict = {}  # setup_cache key -> (pickled value or the exception it raised, its folder)


@contextlib.contextmanager
def _cwd(folder):
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
        with _cwd(folder):
            return fn()
    return call


def _cache_of(b):
    """setup_cache's (pickled value, folder): made once per process and key in a new empty folder
    of its own (removed at exit), as asv runs each setup_cache in a temporary directory that is
    then the working directory of the benchmarks using it (files it writes are theirs to read)."""
    key = b.cache_key
    if key not in _caches:
        folder = tempfile.mkdtemp(prefix="pitot-setup-cache-")
        atexit.register(shutil.rmtree, folder, True)
        try:
            with _cwd(folder):
                # asv_runner 0.3 runs parameter-free module setup hooks before setup_cache.
                for setup in b.setups:
                    if not inspect.ismethod(setup) and _takes_no_arguments(setup):
                        setup()
                value = pickle.dumps(b.setup_cache(), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # every point of this cache fails with it
            value = e
        _caches[key] = (value, folder)
    return _caches[key]


def _with_cache(b, params):
    """(the arguments of setup, the benchmark and teardown: setup_cache's value first, if any;
    the folder they run in: setup_cache's, or None). asv hands each benchmark its own copy of the
    pickle, so each point unpickles one."""
    if b.setup_cache is None:
        return tuple(params), None
    value, folder = _cache_of(b)
    if isinstance(value, BaseException):
        raise value
    cache = pickle.loads(value)
    return (tuple(params) if cache is None else (cache,) + tuple(params)), folder  # asv: None is no argument


def _takes_no_arguments(fn):
    try:
        inspect.signature(fn).bind()
    except (TypeError, ValueError):
        return False
    return True


def _is_skip(e):
    # asv_runner.benchmarks.mark.SkipNotImplemented, without importing asv_runner.
    return type(e).__name__ == "SkipNotImplemented"


def run_point(b, state, params):
    """One point of `b` with the objects `params`, as asv's runner does it: setup (skipped on
    NotImplementedError), the measurement of its kind, teardown (also after a skip). With a
    setup_cache, the setups, teardowns and the calls of every kind but time_ run in setup_cache's
    folder; time_ calls run where the program runs (points interleave in one process, so the
    folder would be another point's, and a chdir around each timed call would be timed)."""
    if tuple(params) in b.skip_tuples:
        state.skip("skip_params")
        return
    func, sources = b.parts()
    setups = all_attrs_any_case(sources, "setup")[::-1]
    teardowns = all_attrs_any_case(sources, "teardown")
    args, folder = _with_cache(b, params)
    skipped = None
    try:
        with _cwd(folder):
            for setup in setups:
                setup(*args)
    except NotImplementedError as e:
        skipped = f"setup raised NotImplementedError{': ' + str(e) if str(e) else ''}"
    try:
        if skipped is not None:
            state.skip(skipped)
            return
        try:
            _measure(b, state, func, sources, args, folder)
        except SkipPoint as e:
            state.skip(str(e))
        except Exception as e:
            if not _is_skip(e):
                raise
            state.skip(f"SkipNotImplemented{': ' + str(e) if str(e) else ''}")
    finally:
        with _cwd(folder):
            for teardown in teardowns:
                teardown(*args)


def _measure(b, state, func, sources, args, folder=None):
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


# Kept here by name for the code and tests that reach it through this module.
host_waits_skipped = _self_timed.host_waits_skipped


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
    p = subprocess.run([sys.executable, "-c", "import pitot._asv as a; a.peakmem_child()"],
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
