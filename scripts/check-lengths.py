#!/usr/bin/env python3
"""Source files over 450 lines and functions over 120 lines in src/ and python/ (issue 35).

C++ functions are found by layout (clang-format's): a definition starts at column 0 with a '('
and ends at the next '}' at column 0. Python: a def to the next line indented no deeper.
Exit 1 when something is over.
"""
import pathlib
import re
import subprocess
import sys

MAX_FILE, MAX_FUNCTION = 450, 120
root = pathlib.Path(__file__).resolve().parent.parent
over = []


def cpp_functions(lines):
    start = None
    for i, line in enumerate(lines):
        if start is None and re.match(r"[A-Za-z].*\(", line) and not line.startswith(("namespace", "struct", "class", "enum", "#")):
            if not line.endswith(";"):  # a declaration or a constant (`constexpr auto k = f(20);`) starts nothing
                start = i
        elif start is not None and line.startswith("}"):
            yield lines[start].strip(), start + 1, i - start + 1
            start = None


def python_functions(lines):
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)(async\s+)?def ", line)
        if not m:
            continue
        depth, end = len(m.group(1)), i + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > depth):
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        yield line.strip(), i + 1, end - i


def source_files(folders):
    """The files of `folders` that git tracks or would (untracked, not ignored): not a build's own
    (python/build/ after `pip install ./python` holds CMake's generated sources). Every file when
    this is not a git checkout."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                                 "--", *folders], capture_output=True, text=True)
    except OSError:  # no git
        listed = None
    if listed is None or listed.returncode != 0:
        return sorted(path for folder in folders for path in (root / folder).rglob("*"))
    return sorted({root / name for name in listed.stdout.split("\0") if name})


for path in source_files(["src", "python"]):
    if path.suffix not in {".cpp", ".hpp", ".cu", ".cuh", ".h", ".py"} or not path.is_file():
        continue
    lines = path.read_text(errors="replace").splitlines()
    name = path.relative_to(root)
    if len(lines) > MAX_FILE:
        over.append(f"{name}: {len(lines)} lines")
    functions = python_functions(lines) if path.suffix == ".py" else cpp_functions(lines)
    for head, line, length in functions:
        if length > MAX_FUNCTION:
            over.append(f"{name}:{line}: {length} lines: {head[:70]}")

print("\n".join(over) if over else f"no file over {MAX_FILE} lines, no function over {MAX_FUNCTION}")
sys.exit(1 if over else 0)
