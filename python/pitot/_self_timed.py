"""time_* methods that time themselves (the seed suite's convention: CUDA events around the work,
then `return start.elapsed_time(end) / 1e3`): how pitot sees one, which convention times it, and
the suite-wide switch between the two (docs/writing-benchmarks.md, "Self-timed methods: the two
conventions").

A self-timed method's samples are what its events read, each wait on them a trip through the host,
so its process-to-process spread carries the host's noise (H200, issue 32: 4-16% for a GEMM
against 0.1-3% on pitot's device clock). `--self-timed device` times the methods seen reading
CUDA events on pitot's device clock instead, the path `pitot_device = "cuda"` takes; CPU methods
(returning seconds they took from the host's clock, or nothing) keep their own path whatever the
switch says.
"""

from __future__ import annotations

import contextlib
import sys
import threading

# The switch's values: the method's own returned seconds (the default: a history recorded that way
# goes on unchanged), or pitot's device clock for the methods seen reading CUDA events.
MODES = ("returned", "device")
OPTION = "--self-timed"
CONFIG_KEY = "pitot_self_timed"  # its key in asv.conf.json, read by `pitot run`
_mode = {"value": "returned"}
_noted: set = set()  # benchmarks the note was printed for, once each per process


def mode() -> str:
    return _mode["value"]


def mode_problem(value) -> str:
    """Why `value` is not a mode ("" when it is one)."""
    if value in MODES:
        return ""
    return (f"{OPTION} {value!r}: choose returned (each self-timed method's own seconds, the default) "
            "or device (pitot's device clock for the methods that time themselves with CUDA events)")


def set_mode(value: str) -> None:
    problem = mode_problem(value)
    if problem:
        raise ValueError(problem)
    _mode["value"] = value


def take_option(args: list):
    """(the mode given in args as `--self-timed X` or `--self-timed=X`, or None; args without it).
    The last one given wins, as for the program's other flags."""
    found, rest, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a == OPTION:
            if i + 1 >= len(args):
                raise ValueError(f"{OPTION} needs a value: returned or device")
            found, i = args[i + 1], i + 2
            continue
        if a.startswith(OPTION + "="):
            found = a[len(OPTION) + 1:]
        else:
            rest.append(a)
        i += 1
    return found, rest


# ------------------------------------------------------------------------------------------------
# Patching torch's and CuPy's waits and event reads, per thread.
#
# The engine runs each interleaved point in a thread of its own and passes a turn between them, so
# one point may make its deciding call (which must read its events for real) while another is
# inside its device-timed block (where the waits must return at once). One wrapper per function
# is installed while any thread is inside such a block and does what the calling thread asked:
# swapping the functions themselves per block made a deciding call read 0.0 from the stand-in of
# another point's block, and moved that point to the host clock (H200, 2026-12-04).

# (module, attribute path) -> (the stand-in while the thread skips waits, counted as an event read)
_POINTS = {
    ("torch", "cuda.Event.synchronize"): (lambda self: None, False),
    ("torch", "cuda.Event.elapsed_time"): (lambda self, end: 0.0, True),
    ("torch", "cuda.Event.query"): (lambda self: True, False),
    ("torch", "cuda.Stream.synchronize"): (lambda self: None, False),
    ("torch", "cuda.synchronize"): (lambda device=None: None, False),
    ("cupy", "cuda.Event.synchronize"): (lambda self: None, False),
    ("cupy", "cuda.Stream.synchronize"): (lambda self: None, False),
    ("cupy", "cuda.get_elapsed_time"): (lambda start, end: 0.0, True),
    ("cupy", "cuda.Device.synchronize"): (lambda self: None, False),
}
_local = threading.local()  # .skip: depth of host_waits_skipped blocks; .reads: the list counting
_lock = threading.Lock()
_installed: dict = {}  # (id(owner), attr) -> [owner, attr, what owner's own dict held, blocks inside]


def _dispatch(original, stand_in, counted):
    def call(*args, **kwargs):
        reads = getattr(_local, "reads", None)
        if counted and reads is not None:
            reads.append(1)
        if getattr(_local, "skip", 0):
            return stand_in(*args, **kwargs)
        return original(*args, **kwargs)
    return call


@contextlib.contextmanager
def _wrappers_installed():
    """Within the block, each function of _POINTS whose module is imported goes through
    _dispatch; the last block to leave (of any thread) puts the originals back. A type that
    cannot be patched (an extension type) keeps its own."""
    taken = []
    with _lock:
        for (module_name, path), (stand_in, counted) in _POINTS.items():
            owner = sys.modules.get(module_name)
            *parents, attr = path.split(".")
            for part in parents:
                owner = getattr(owner, part, None)
            if owner is None or not hasattr(owner, attr):
                continue
            key = (id(owner), attr)
            if key not in _installed:
                own = owner.__dict__.get(attr) if isinstance(owner, type) else getattr(owner, attr)
                try:
                    setattr(owner, attr, _dispatch(getattr(owner, attr), stand_in, counted))
                except (TypeError, AttributeError):
                    continue
                _installed[key] = [owner, attr, own, 0]
            _installed[key][3] += 1
            taken.append(key)
    try:
        yield
    finally:
        with _lock:
            for key in taken:
                entry = _installed[key]
                entry[3] -= 1
                if entry[3] == 0:
                    owner, attr, own, _ = _installed.pop(key)
                    if own is None:
                        delattr(owner, attr)  # it was inherited: the base's shows again
                    else:
                        setattr(owner, attr, own)


@contextlib.contextmanager
def host_waits_skipped():
    """Within the block, this thread's waits of _POINTS return at once (of the modules already
    imported). Under pitot's device clock these waits would stop the launches from queueing
    behind pitot's blocking kernel, so the point would lose the kernel clock and hold the host's
    launch latency; the returned seconds are ignored there anyway."""
    with _wrappers_installed():
        _local.skip = getattr(_local, "skip", 0) + 1
        try:
            yield
        finally:
            _local.skip -= 1


@contextlib.contextmanager
def event_reads_counted():
    """Within the block, this thread's reads of the time between two CUDA events still work and
    are counted: yields a list whose length is their number."""
    seen = []
    with _wrappers_installed():
        saved = getattr(_local, "reads", None)
        _local.reads = seen
        try:
            yield seen
        finally:
            _local.reads = saved


# ------------------------------------------------------------------------------------------------
# Which convention times a time_* method.

def decide(name, call, declared, wall_clock):
    """One call of the method decides (untimed): (convention, reads CUDA events). The convention
    is "returned-seconds" when the method returned a number above 0 and no longer than the call
    (or declared so: pitot_returns_seconds), "host" otherwise; under `--self-timed device`, a
    method returning seconds that its CUDA events read is "device"."""
    with event_reads_counted() as reads:
        start = wall_clock()
        value = call()
        wall = wall_clock() - start
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= wall
    returns = number if declared is None else bool(declared)
    events = returns and bool(reads)
    if events:
        note(name)
    if events and mode() == "device":
        return "device", True
    return ("returned-seconds" if returns else "host"), events


def note(name) -> None:
    """Says once per benchmark, on stderr, what pitot sees and what the switch does."""
    if name in _noted:
        return
    _noted.add(name)
    if mode() == "device":
        text = (f"{name} times itself with CUDA events: timed on pitot's device clock ({OPTION} device), "
                "its returned seconds ignored; its rows go to an env of their own "
                "(docs/writing-benchmarks.md, \"Self-timed methods\")")
    else:
        text = (f"{name} times itself with CUDA events: its samples carry the host's noise, which differs "
                f"between processes; {OPTION} device (or \"{CONFIG_KEY}\": \"device\" in asv.conf.json) "
                "times it on pitot's device clock instead, in an env of its own: a new graph line, as the "
                "values step (docs/writing-benchmarks.md, \"Self-timed methods\")")
    print(f"pitot: {text}", file=sys.stderr, flush=True)
