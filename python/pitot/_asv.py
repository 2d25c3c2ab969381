"""asv benchmark suites on pitot's engine: benchmarks found, named, versioned and measured as
asv (asv_runner 0.2-0.3) finds, names, versions and measures them, so that results continue an
asv history (docs/writing-benchmarks.md, "asv suites"). What pitot does differently is listed in
that document's table.

A benchmark here is one asv benchmark: a method of a class or a function of a module whose name
matches one of asv's kinds (time_, timeraw_, track_, mem_, peakmem_, or the CamelCase forms), or
that sets `benchmark_name`. The program is its module, so its asv key is <module>.<name>, or the
`benchmark_name` as it is (asv's rule).

Found, named and versioned in _asv_discovery.py, measured by kind in _asv_measure.py; here each
point runs as asv's runner runs it: setup_cache once, setup, the measurement, teardown.
"""

from __future__ import annotations

import atexit
import inspect
import pickle
import shutil
import tempfile

from . import _self_timed
from ._asv_discovery import all_attrs_any_case
from ._asv_measure import SkipPoint, in_folder, measure

# Kept here by name for the code and tests that reach it through this module.
host_waits_skipped = _self_timed.host_waits_skipped


# ------------------------------------------------------------------------------------------------
# Running one point.

_caches: dict = {}  # setup_cache key -> (pickled value or the exception it raised, its folder)


def _cache_of(b):
    """setup_cache's (pickled value, folder): made once per process and key in a new empty folder
    of its own (removed at exit), as asv runs each setup_cache in a temporary directory that is
    then the working directory of the benchmarks using it (files it writes are theirs to read)."""
    key = b.cache_key
    if key not in _caches:
        folder = tempfile.mkdtemp(prefix="pitot-setup-cache-")
        atexit.register(shutil.rmtree, folder, True)
        try:
            with in_folder(folder):
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
        with in_folder(folder):
            for setup in setups:
                setup(*args)
    except NotImplementedError as e:
        skipped = f"setup raised NotImplementedError{': ' + str(e) if str(e) else ''}"
    try:
        if skipped is not None:
            state.skip(skipped)
            return
        try:
            measure(b, state, func, sources, args, folder)
        except SkipPoint as e:
            state.skip(str(e))
        except Exception as e:
            if not _is_skip(e):
                raise
            state.skip(f"SkipNotImplemented{': ' + str(e) if str(e) else ''}")
    finally:
        with in_folder(folder):
            for teardown in teardowns:
                teardown(*args)
