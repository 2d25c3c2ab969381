#!/usr/bin/env python3
"""Checks an asv results folder written by the example program, field by field (docs/asv-format.md).

usage: check_asv_files.py RESULTS_DIR FIRST_COMMIT SECOND_COMMIT RUN_JSON
"""
import json
import math
import os
import statistics
import sys

COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
           "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]
STATS = COLUMNS[5:11]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def strict_load(path):
    def no_constants(token):
        raise ValueError(f"{path}: non-strict JSON token {token}")
    with open(path) as f:
        return json.load(f, parse_constant=no_constants)


def main():
    results_dir, first, second, run_json = sys.argv[1:5]
    machine = "e2e-box"
    bench = strict_load(os.path.join(results_dir, "benchmarks.json"))
    check(bench.get("version") == 2, "benchmarks.json version is 2")
    expected = {
        "bench_examples.sort_ints": ("time", "seconds", [["1000", "100000"], ["'random'", "'sorted'", "'reversed'"]], "1"),
        "bench_examples.sort_ints.items_per_second": ("track", "items/s", None, "1"),
        "bench_examples.copy_bytes": ("time", "seconds", [["4096", "65536", "1048576"]], "1"),
        "bench_examples.copy_bytes.gbytes_per_second": ("track", "GB/s", None, "1"),
        "bench_examples.saxpy": ("time", "seconds", [["0.5", "2.0"]], "2"),
        "bench_examples.saxpy.tflops": ("track", "TFLOP/s", None, "2"),
        "bench_examples.parse_numbers": ("time", "seconds", [["'12345'", "'not-a-number'"]], "1"),
        "bench_examples.accumulate_manual": ("time", "seconds", [["100000"]], "1"),
    }
    for name, (typ, unit, params, version) in expected.items():
        b = bench.get(name)
        check(b is not None, f"benchmarks.json has {name}")
        if b is None:
            continue
        check(b["name"] == name, f"{name}: name equals key")
        check(b["type"] == typ, f"{name}: type {typ}")
        check(b["unit"] == unit, f"{name}: unit {unit} (got {b['unit']})")
        check(b["version"] == version, f"{name}: version {version!r}")
        check(isinstance(b["params"], list) and all(isinstance(v, str) for axis in b["params"] for v in axis),
              f"{name}: params are lists of strings")
        check(len(b["param_names"]) == len(b["params"]), f"{name}: param_names match params")
        if params is not None:
            check(b["params"] == params, f"{name}: params {params} (got {b['params']})")
    # A track's params are its time benchmark's params.
    check(bench["bench_examples.sort_ints.items_per_second"]["params"] == bench["bench_examples.sort_ints"]["params"],
          "track params equal the time benchmark's")

    m = strict_load(os.path.join(results_dir, machine, "machine.json"))
    check(m.get("version") == 1 and m.get("machine") == machine, "machine.json version 1 and name")
    check(all(isinstance(v, str) for k, v in m.items() if k != "version"), "machine.json values are strings")
    for key in ("arch", "cpu", "num_cpu", "os", "ram"):
        check(m.get(key), f"machine.json has {key}")

    dates = {first: 1709251200000, second: 1709337600000}
    files = sorted(os.listdir(os.path.join(results_dir, machine)))
    check(files == sorted(["machine.json", f"{first[:8]}-cpp-e2e.json", f"{second[:8]}-cpp-e2e.json"]),
          f"results folder holds machine.json and one file per commit (got {files})")
    for commit in (first, second):
        path = os.path.join(results_dir, machine, f"{commit[:8]}-cpp-e2e.json")
        with open(path) as f:
            r = json.load(f)  # Python's dialect: NaN and Infinity tokens allowed
        check(r["version"] == 2, "results version 2")
        check(r["commit_hash"] == commit, "full commit hash")
        check(r["date"] == dates[commit], f"commit date in ms ({r['date']} vs {dates[commit]})")
        check(r["env_name"] == "cpp-e2e", "env_name")
        check(r["params"]["machine"] == machine, "params.machine equals the folder")
        check(all(isinstance(v, str) for v in r["params"].values()), "params values are strings")
        check("python" in r and "requirements" in r, "python and requirements keys")
        check(r["result_columns"] == COLUMNS, "result_columns verbatim")
        rows = {name: dict(zip(COLUMNS, row)) for name, row in r["results"].items()}
        check(set(expected) <= set(rows), f"every benchmark has a row ({sorted(set(expected) - set(rows))} missing)")
        sort = rows["bench_examples.sort_ints"]
        check(sort["params"] == expected["bench_examples.sort_ints"][2], "row params equal benchmarks.json params")
        check(len(sort["result"]) == 6, "one result per point")
        check(math.isnan(sort["result"][5]), "skipped point (100000, reversed) is NaN")
        for i in range(5):
            value = sort["result"][i]
            check(isinstance(value, float) and value > 0, f"sort_ints point {i} has a time")
            samples = sort["samples"][i]
            # Up to 101 samples are kept as measured, more as their 101 percentiles (docs/asv-format.md §5).
            repeat = sort["stats_repeat"][i]
            check(len(samples) == min(repeat, 101), f"{len(samples)} samples kept of {repeat} at {i}")
            if repeat > 101:
                check(samples == sorted(samples), f"kept percentiles are sorted at {i}")
                check(samples[25] == sort["stats_q_25"][i] and samples[75] == sort["stats_q_75"][i],
                      f"kept percentiles hold the quartiles at {i}")
            check(math.isclose(statistics.median(samples), value, rel_tol=1e-9), f"result is the median of samples at {i}")
            check(sort["stats_ci_99_a"][i] <= value <= sort["stats_ci_99_b"][i], f"median inside its 99% interval at {i}")
            check(sort["stats_q_25"][i] <= value <= sort["stats_q_75"][i], f"median between the quartiles at {i}")
            check(sort["stats_number"][i] >= 1, f"number >= 1 at {i}")
        parse = rows["bench_examples.parse_numbers"]
        check(parse["result"][1] is None, "failed point is null")
        for col in STATS + ["samples"]:
            values = parse.get(col)
            check(values is None or values[1] is None, f"failed point is null in {col}")
            check(values is not None and values[0] is not None, f"ok point has {col}")
        track = rows["bench_examples.sort_ints.items_per_second"]
        check(math.isnan(track["result"][5]), "track of the skipped point is NaN")
        n_values = [1000, 1000, 1000, 100000, 100000]
        for i in range(5):
            check(math.isclose(track["result"][i], n_values[i] / sort["result"][i], rel_tol=1e-6),
                  f"items/s = n / median at {i}")
    # The second commit's values are what the program printed in its JSON output.
    with open(run_json) as f:
        run = json.load(f)
    second_rows = json.load(open(os.path.join(results_dir, machine, f"{second[:8]}-cpp-e2e.json")))["results"]
    sort = dict(zip(COLUMNS, second_rows["bench_examples.sort_ints"]))
    for p in run["points"]:
        if p["benchmark"] == "sort_ints" and p["status"] == "ok":
            check(math.isclose(p["stats"]["median"], sort["result"][p["id"]], rel_tol=1e-12),
                  f"asv median equals the program's JSON median for {p['name']}")
    if failures:
        print("asv files check FAILED:")
        for f in failures:
            print("  -", f)
        sys.exit(1)
    print("asv files check: all fields as docs/asv-format.md says")


if __name__ == "__main__":
    main()
