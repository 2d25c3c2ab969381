#!/usr/bin/env python3
"""The asv run records two executables wrote for the same points, held equal (issue 35, item 3):
a benchmark program's own --asv-dir and `pitot run` build the record with one function
(src/asv/run_record.hpp), so the same points land in the same files, with the same machine.json,
benchmarks.json and results params, whichever wrote them.

usage: same_record.py RESULTS_A RESULTS_B
Exit 0 when equal but for what a measurement or its clock gives (the measured columns, a row's
started_at and duration, the results file's durations); 1 with the differences otherwise.
"""
import os
import sys

from asv_snapshot import differences, load, report  # the same reading and the same report of a difference

# Columns a second measurement of the same point changes.
MEASURED = {"result", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25",
            "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"}


def record(results_dir):
    """Every file but its measurements: {relative path: document}."""
    files = {}
    for root, _dirs, names in os.walk(results_dir):
        for name in names:
            if name.startswith("."):
                continue
            path = os.path.join(root, name)
            doc = load(path)
            if "results" in doc:
                columns = doc.get("result_columns", [])
                doc["results"] = {row: {c: v for c, v in zip(columns, cells) if c not in MEASURED}
                                  for row, cells in doc["results"].items()}
                doc.pop("durations", None)
            files[os.path.relpath(path, results_dir)] = doc
    return files


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = record(sys.argv[1]), record(sys.argv[2])
    if not a or not b:
        print(f"same_record: no asv files in {sys.argv[1] if not a else sys.argv[2]}", file=sys.stderr)
        return 1
    # differences() calls the first folder "snapshot" and the second "now".
    return report("same_record", differences(a, b), f"between {sys.argv[1]} and {sys.argv[2]}",
                  f"{len(a)} files, the same record")


if __name__ == "__main__":
    sys.exit(main())
