"""The GPU stream a Python benchmark's work runs on: pitot hands each launch its stream as an int
handle; the work runs inside torch's and CuPy's stream context for it when those are imported, or
gets the handle when it takes one argument."""
import inspect
import sys


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
