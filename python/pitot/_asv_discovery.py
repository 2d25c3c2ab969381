"""asv benchmarks found, named and versioned as asv_runner (0.2-0.3) finds, names and versions
them: asv's kinds, its helpers copied in behaviour, and AsvBenchmark, one benchmark of a module
with its asv metadata. pitot/_asv.py runs their points.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import textwrap
from collections import Counter

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
