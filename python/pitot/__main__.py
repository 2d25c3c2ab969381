"""python -m pitot [--root DIR] [--self-timed MODE] FILE.py [flags]: import a benchmark file as a module and run it as a
pitot program, with the flags and exit codes of a C++ program. The file is imported, never run as
__main__, so its `if __name__ == "__main__"` block (which may call anything) does not run; its
asv benchmarks and @pitot.benchmark functions are registered.

The module is named as asv names it: FILE inside the asv benchmark folder DIR (or, without
--root, inside the top folder of the package holding it) is DIR's package plus the path below, so
relative imports work and the asv keys are <path below DIR>.<Class>.<method>. A file outside any
package is imported as a top-level module named by its file."""

import importlib
import importlib.util
import os
import sys
import traceback

import pitot
from pitot import _self_timed

USAGE = ("usage: python -m pitot [--root DIR] [--self-timed returned|device] FILE.py "
         "[program flags: --list, --filter, --json, --asv-dir, ...]")


def fail(message: str) -> None:
    print(f"pitot: {message}", file=sys.stderr)
    sys.exit(2)


def package_top(path: str):
    """The top folder of the packages (folders holding __init__.py) around `path`, or None."""
    top, folder = None, os.path.dirname(path)
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        top, folder = folder, os.path.dirname(folder)
    return top


def module_name(path: str, root):
    """(the name to import `path` by, or None for a top-level file; the program's name, which
    starts the asv keys: the module's path below the benchmark folder)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if root is not None and os.path.basename(root).isidentifier():
        rel = os.path.relpath(path, root)
        if rel.startswith(os.pardir + os.sep):
            fail(f"{path} is not inside the benchmark folder {root}")
        parts = os.path.splitext(rel)[0].split(os.sep)
        if parts[-1] == "__init__":
            parts.pop()
        if not parts:
            fail(f"{path}: benchmarks in the benchmark folder's own __init__.py have no module in asv's "
                 "names, which pitot's programs need: move them into a module of the folder")
        if not all(p.isidentifier() for p in parts):
            fail(f"{path}: {'.'.join(parts)} is not a Python module name")
        # asv imports <folder>.<module>; the asv key leaves the folder's name out.
        return ".".join([os.path.basename(root)] + parts), ".".join(parts)
    return None, stem


def import_file(path: str, root, name):
    """Imports `path` as `name` (its package's parent on sys.path), or as a top-level module."""
    if name is not None:
        sys.path.insert(0, os.path.dirname(root))
        # A folder of plain files (a suite of pitot programs, not an asv package) imports its
        # siblings by their own names (`import shapes`), as when the file is given by name.
        sys.path.append(os.path.dirname(path))
        return importlib.import_module(name)
    sys.path.insert(0, os.path.dirname(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(stem, module)  # pickle, dataclasses and inspect find it by name
    spec.loader.exec_module(module)
    return module


def _main() -> None:
    args = sys.argv[1:]
    root = None
    # The launcher's options, before the file (`pitot run` starts Python programs this way).
    while args[:1] in (["--root"], ["--self-timed"]):
        if len(args) < 2:
            fail(USAGE)
        if args[0] == "--self-timed":
            problem = _self_timed.mode_problem(args[1])
            if problem:
                fail(problem)
            pitot._launch["self_timed"] = args[1]
        else:
            root = os.path.abspath(args[1])
            if not os.path.isdir(root):
                fail(f"--root {args[1]}: no such folder")
        args = args[2:]
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not args else sys.stdout)
        sys.exit(2 if not args else 0)
    path = os.path.abspath(args[0])
    if not os.path.isfile(path):
        fail(f"{args[0]}: no such file")
    if not path.endswith(".py"):
        fail(f"{args[0]}: not a Python file (.py)")
    if root is None:
        root = package_top(path)
    # The program's argv: the file, then its flags; --processes starts `python -m pitot` again.
    sys.argv = [path] + args[1:]
    pitot._launch["self_command"] = [sys.executable, "-m", "pitot"] + (["--root", root] if root else []) + [path]
    name, pitot._launch["program"] = module_name(path, root)
    try:
        module = import_file(path, root, name)
    except Exception as e:  # the file is bad input: its traceback, then exit 2 as for any bad input
        traceback.print_exc()
        fail(f"cannot import {args[0]}: {type(e).__name__}: {e}")
    pitot.main(namespace=module)


_main()
