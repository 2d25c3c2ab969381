# asv benchmarks of list operations: parameters, setup and teardown, a skipped combination, and
# the time, track, mem and peakmem kinds.
from .common import make_floats


class TimeSort:
    params = [[100, 1000], ["random", "sorted"]]
    param_names = ["n", "order"]

    def setup(self, n, order):
        if n == 1000 and order == "sorted":
            raise NotImplementedError("sorted input of 1000 is not measured")
        self.data = make_floats(n)
        if order == "sorted":
            self.data.sort()

    def teardown(self, n, order):
        self.data = None

    def time_sorted(self, n, order):
        sorted(self.data)

    def time_min(self, n, order):
        min(self.data)


class Sizes:
    params = [10, 100]
    param_names = ["n"]

    def track_length(self, n):
        return len(make_floats(n))

    track_length.unit = "floats"

    def mem_list(self, n):
        return make_floats(n)

    def peakmem_list(self, n):
        make_floats(n)


def time_sum_floats():
    sum(make_floats(200))
