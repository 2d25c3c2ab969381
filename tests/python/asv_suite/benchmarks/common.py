# Helpers shared by the suite's modules (imported relatively, as asv suites do). No benchmarks here.
import random


def make_floats(n, seed=1):
    rng = random.Random(seed)
    return [rng.random() for _ in range(n)]


def words(n):
    return [f"w{i}" for i in range(n)]
