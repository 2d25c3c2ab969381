# The seed suite's self-timed style without a GPU (tests/python/test_self_timed.py): a stand-in
# `torch` whose events read a fixed time, so pitot sees a method reading CUDA events, beside a CPU
# method that returns the host's seconds and one that returns nothing.
import sys
import time
import types


class _Event:
    """torch.cuda.Event as the seed uses it: record, synchronize, elapsed_time (milliseconds)."""

    def __init__(self, enable_timing=False):
        self.at = 0.0

    def record(self, stream=None):
        self.at = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.at - self.at) * 1e3 * 0.9  # events read a little less than the call's wall time


torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(Event=_Event, synchronize=lambda device=None: None, is_available=lambda: False)
sys.modules["torch"] = torch  # this process only: the file is its program


class SelfTimed:
    def setup(self):
        self.start = _Event(enable_timing=True)
        self.end = _Event(enable_timing=True)

    def time_events(self):
        self.start.record()
        sum(range(2000))
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) / 1e3

    def time_host_seconds(self):
        start = time.perf_counter()
        sum(range(2000))
        return time.perf_counter() - start

    def time_plain(self):
        sum(range(2000))
