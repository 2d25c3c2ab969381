#!/usr/bin/env python3
"""Summarize one asv results file written by pitot: per benchmark, how many points ran, failed or
were skipped, and the best value of each throughput track, as a markdown table.

usage: summarize-results.py RESULTS_FILE [RESULTS_FILE...]
"""
import json
import math
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            doc = json.load(f)  # Python's JSON dialect reads asv's NaN and Infinity tokens
        columns = doc["result_columns"]
        print(f"### {path.rsplit('/', 1)[-1]}\n")
        print("| benchmark | points | ok | failed | skipped | median time (min-max) | best track |")
        print("|---|---|---|---|---|---|---|")
        rows = {name: dict(zip(columns, row)) for name, row in doc["results"].items()}
        for name in sorted(rows):
            row = rows[name]
            n = math.prod(len(p) for p in row["params"]) if row["params"] else 1
            values = row["result"] if row["result"] is not None else [None] * n
            ok = [v for v in values if v is not None and not math.isnan(v)]
            failed = sum(v is None for v in values)
            skipped = sum(v is not None and math.isnan(v) for v in values)
            if name.rsplit(".", 1)[0] in rows:
                continue  # a throughput track: shown with its time benchmark
            tracks = []
            for t in sorted(rows):
                if t.startswith(name + ".") and rows[t]["result"]:
                    good = [v for v in rows[t]["result"] if v is not None and not math.isnan(v)]
                    if good:
                        tracks.append(f"{t[len(name) + 1:]} {max(good):.4g}")
            span = f"{min(ok) * 1e6:.4g}-{max(ok) * 1e6:.4g} µs" if ok else "-"
            print(f"| {name} | {n} | {len(ok)} | {failed} | {skipped} | {span} | {'; '.join(tracks)} |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
