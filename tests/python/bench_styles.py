# A Python benchmark file of both styles, run by test_python.py as a program and under `pitot run`.
import random

import pitot


@pitot.benchmark(axes={"n": [200, 2000], "order": ["random", "sorted"]})
def sort_floats(state):
    rng = random.Random(42)
    data = [rng.random() for _ in range(state["n"])]
    if state["order"] == "sorted":
        data.sort()
    state.add_items(state["n"])
    state.exec(lambda: sorted(data))


@pitot.benchmark(axes={"n": pitot.pow2(4, 6), "alpha": [0.5, 2.0], "dtype": [int, float]},
                 version="3", timeout=30)
def scaled_sum(state):
    if state["alpha"] == 2.0:
        state.skip("alpha=2 is not written yet")
        return
    kind = state["dtype"]  # the object itself, shown as its str()
    v = [kind(i) for i in range(state["n"])]
    state.add_flops(2 * state["n"])
    state.exec(lambda: state["alpha"] * sum(v))


@pitot.benchmark
def divide_by_zero(state):
    state.exec(lambda: 1 / 0)


class Lists:
    params = [[100, 1000], ["list", "tuple"]]
    param_names = ["n", "container"]
    timeout = 20

    def setup(self, n, container):
        if container == "tuple" and n == 1000:
            raise NotImplementedError("tuples of 1000 are not measured")
        self.data = list(range(n)) if container == "list" else tuple(range(n))

    def teardown(self, n, container):
        self.data = None

    def time_sum(self, n, container):
        sum(self.data)

    def work_sum(self, n, container):
        return {"flops": n, "bytes": 8 * n}

    def time_max(self, n, container):
        max(self.data)


if __name__ == "__main__":
    pitot.main()
