# An asv benchmark module as asv runs it, unchanged: no pitot import. `python -m pitot FILE` runs it.
class TimeDict:
    params = [10, 100]
    param_names = ["size"]

    def setup(self, size):
        self.d = {i: i for i in range(size)}

    def time_keys(self, size):
        for _ in self.d.keys():
            pass


def time_range_sum():
    sum(range(100))
