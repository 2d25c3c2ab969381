# A module of a sub-package: asv names its benchmarks nested.bench_text.<...>.
from ..common import words


def time_join():
    "-".join(words(300))


def timeraw_import_json():
    return "import json"


class Case:
    params = [[True, False], [None, 1.5]]
    param_names = ["upper", "extra"]

    def time_format(self, upper, extra):
        text = f"{extra}"
        text.upper() if upper else text.lower()
