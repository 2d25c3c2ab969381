"""python -m pitot FILE [flags]: run a benchmark file (an asv-style module unchanged, or one using
@pitot.benchmark) as a pitot program, with the flags and exit codes of a C++ program."""

import os
import runpy
import sys

import pitot


def _main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help") and len(sys.argv) == 2:
        print("usage: python -m pitot FILE.py [program flags: --list, --filter, --json, --asv-dir, ...]",
              file=sys.stderr)
        sys.exit(2 if len(sys.argv) < 2 else 0)
    path = sys.argv[1]
    if not os.path.isfile(path):
        print(f"pitot: {path}: no such file", file=sys.stderr)
        sys.exit(2)
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    # Not "__main__": a file that calls pitot.main() under `if __name__ == "__main__"` is loaded
    # here, not run twice.
    namespace = runpy.run_path(path, run_name="__pitot_benchmarks__")
    pitot.main(namespace=namespace)


_main()
