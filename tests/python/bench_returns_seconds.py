# A benchmark file in the seed suite's style: each time_* measures its own work and returns the
# seconds (there, CUDA events around the launches), and the file ends by handing itself to the
# suite's own runner, a module that is not here. `pitot run` imports it, so that block never runs.
#
# The stand-in clock (no GPU in CI): each call sleeps, then returns the next value of a fixed
# sequence, a little shorter than the sleep, as events read less than the call's wall time. Every
# returned value is appended to $PITOT_TEST_LOG, so a test can hold the samples against them.
import os
import time


def _log(point, value):
    with open(os.environ["PITOT_TEST_LOG"], "a") as f:
        f.write(f"{point} {value!r}\n")


class BenchClocked:
    params = [[1, 3]]
    param_names = ["scale"]

    def setup(self, scale):
        self.calls = 0

    def time_forward(self, scale):
        self.calls += 1
        seconds = scale * (1e-4 + 1e-7 * (self.calls % 89))
        time.sleep(seconds * 1.5)
        _log(f"forward-{scale}", seconds)
        return seconds


if __name__ == "__main__":
    from driver import run_as_main  # the suite's own runner: not importable here

    run_as_main()
