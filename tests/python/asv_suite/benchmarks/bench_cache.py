# setup_cache: built once, handed to setup and every benchmark as their first argument.
from .common import words


class Lookup:
    params = [["hit", "miss"]]
    param_names = ["kind"]
    timeout = 30

    def setup_cache(self):
        return {w: i for i, w in enumerate(words(500))}

    def setup(self, table, kind):
        self.key = "w7" if kind == "hit" else "absent"

    def time_get(self, table, kind):
        table.get(self.key)

    def track_entries(self, table, kind):
        return len(table)
