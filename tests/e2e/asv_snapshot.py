#!/usr/bin/env python3
"""The shape of the asv files a run of the example suite writes, with the measured values and the
host's facts masked, so that a refactoring that changes which points, names, params, versions,
units, columns or keys land in the database fails a test (issue 14: "the same asv files before and
after").

usage: asv_snapshot.py RESULTS_DIR SNAPSHOT [--update]
Exit 0 when RESULTS_DIR's shape equals SNAPSHOT (a JSON file); 1 with the differences otherwise.
--update writes SNAPSHOT from RESULTS_DIR instead (review the diff before committing it).
"""
import json
import math
import os
import sys

# Columns whose values are measurements or clocks: only their kind is kept.
MEASURED = {"result", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25",
            "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"}


BACKEND_KEYS = {"cuda", "hip"}


def kind(value):
    """A measured value reduced to what must not change: number, NaN, null, list of them."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        kinds = sorted({json.dumps(kind(v)) for v in value})
        return ["list of"] + [json.loads(k) for k in kinds]
    if isinstance(value, dict):
        return {k: kind(v) for k, v in sorted(value.items())}
    return type(value).__name__


def load(path):
    with open(path) as f:
        return json.load(f)  # asv's dialect: NaN and Infinity are allowed


def results_shape(doc):
    shape = {}
    for key, value in sorted(doc.items()):
        if key == "results":
            columns = doc.get("result_columns", [])
            rows = {}
            for name, row in sorted(value.items()):
                cells = dict(zip(columns, row))
                rows[name] = {c: (kind(v) if c in MEASURED else v) for c, v in cells.items()}
            shape[key] = rows
        elif key in ("commit_hash", "date", "durations"):
            shape[key] = kind(value) if key != "commit_hash" else "hash"
        elif key in ("params", "requirements"):
            # Host facts and the toolchain (cpu, compiler, ...) vary by machine, and the backend
            # keys (cuda, hip) by build; the other keys do not.
            shape[key] = sorted(k for k in value if k not in BACKEND_KEYS) if isinstance(value, dict) else kind(value)
        else:
            shape[key] = value
    return shape


def folder_shape(results_dir):
    shape = {}
    for root, _dirs, files in os.walk(results_dir):
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, results_dir)
            doc = load(path)
            if name == "benchmarks.json":
                shape[rel] = doc
            elif name == "machine.json":
                shape[rel] = sorted(doc)  # the keys asv asks for; the values are the host's
            else:
                # <machine>/<commit>-<env>.json: the commit part varies run to run
                machine = os.path.dirname(rel)
                env = name.split("-", 1)[1] if "-" in name else name
                shape[os.path.join(machine, "COMMIT-" + env)] = results_shape(doc)
    return dict(sorted(shape.items()))


def differences(want, got, where=""):
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for k in sorted(set(want) | set(got)):
            if k not in got:
                out.append(f"{where}/{k}: missing now")
            elif k not in want:
                out.append(f"{where}/{k}: new (not in the snapshot)")
            else:
                out += differences(want[k], got[k], f"{where}/{k}")
        return out
    return [] if want == got else [f"{where}: snapshot {json.dumps(want)[:200]} != now {json.dumps(got)[:200]}"]


def report(tool, diff, failed, passed):
    """Prints the first 50 differences and a last line; the exit code."""
    for line in diff[:50]:
        print(f"{tool}: {line}")
    print(f"{tool}: {len(diff)} difference(s) {failed}" if diff else f"{tool}: {passed}")
    return 1 if diff else 0


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        print(__doc__, file=sys.stderr)
        return 2
    results_dir, snapshot = sys.argv[1], sys.argv[2]
    got = folder_shape(results_dir)
    if not got:
        print(f"asv_snapshot: {results_dir} holds no asv files", file=sys.stderr)
        return 1
    if len(sys.argv) == 4:
        with open(snapshot, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"asv_snapshot: wrote {snapshot}")
        return 0
    want = load(snapshot)
    return report("asv_snapshot", differences(want, got),
                  f"from {snapshot}; if intended, rerun with --update", f"{results_dir} matches {snapshot}")


if __name__ == "__main__":
    sys.exit(main())
