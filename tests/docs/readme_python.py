#!/usr/bin/env python3
"""README.md's Python example (bench_sort.py), extracted as the user would save it, run, and held
to what the README says of it: its two benchmarks run, and random input sorts measurably slower
than sorted input. Run by tests/python/python_tests.sh with the interpreter pitot is installed in.

usage: readme_python.py ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

FAST = ["--max-time", "0.2", "--min-time", "0.02", "--warmup", "0", "--quiet"]


def fail(message):
    print(f"README Python example: {message}", file=sys.stderr)
    sys.exit(1)


def run_json(args, cwd):
    """The program's --json document (anything it printed before the JSON is skipped)."""
    p = subprocess.run([sys.executable, *args, "--json", "-"], cwd=cwd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return json.loads(p.stdout[p.stdout.index("{"):])


def main():
    if len(sys.argv) != 2:
        print("usage: readme_python.py ROOT", file=sys.stderr)
        sys.exit(2)
    root = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, os.path.join(root, "tests", "docs", "extract_blocks.py"),
                        os.path.join(root, "README.md"), work], check=True, stdout=subprocess.DEVNULL)
        if not os.path.isfile(os.path.join(work, "bench_sort.py")):
            fail("README lost its tagged example (<!-- file: bench_sort.py -->)")

        listed = run_json(["bench_sort.py", "--list"], work)
        names = [b["name"] for b in listed["benchmarks"]]
        if len(names) != 2 or names[0] != "sort_floats":
            fail(f"benchmarks {names}, expected sort_floats and the Sums class's time_sum")
        points = run_json(["bench_sort.py", *FAST], work)["points"]
        failed = [p["name"] for p in points if p["status"] != "ok"]
        if len(points) != 6 or failed:
            fail(f"{len(points)} points, not ok: {failed}")

        # The README's claim: random input sorts slower than sorted (Timsort passes over a sorted
        # list once). A generator made per element gives n equal values, and the two are equal.
        median = {tuple(p["values"]): p["stats"]["median"] for p in points if p["benchmark"] == "sort_floats"}
        random_s, sorted_s = median.get((100000, "random")), median.get((100000, "sorted"))
        if random_s is None or sorted_s is None:
            fail(f"no n=100000 points of sort_floats among {sorted(median)}")
        print(f"README Python example: n=100000 random {random_s * 1e3:.3f} ms, sorted {sorted_s * 1e3:.3f} ms")
        if not random_s > 2 * sorted_s:
            fail(f"random input ({random_s:.3g} s) is not more than 2x sorted input ({sorted_s:.3g} s): "
                 "does the example still build varied data?")
    print("README Python example: passed")


if __name__ == "__main__":
    main()
