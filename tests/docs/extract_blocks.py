#!/usr/bin/env python3
"""Writes the tagged code blocks of a Markdown page into a folder, so a test can build and run them.

A fenced block right after `<!-- file: PATH -->` is written to OUT/PATH (also after
`<!-- file: PATH in DIR -->`: DIR is where the page tells the user to save it, which
readme_in_order.py honours; here it is OUT/PATH all the same). A block right after
`<!-- run: DIR -->` holds commands, one a line: they are appended to OUT/run.txt as
`DIR<TAB>command`. Untagged blocks are left alone. Exit 2 when a tag has no block after it.
"""
import os
import re
import sys

TAG = re.compile(r"^<!--\s*(file|run):\s*(\S+)(?:\s+in\s+\S+)?\s*-->\s*$")


def main():
    if len(sys.argv) != 3:
        print("usage: extract_blocks.py PAGE.md OUT_DIR", file=sys.stderr)
        sys.exit(2)
    page, out = sys.argv[1], sys.argv[2]
    lines = open(page, encoding="utf-8").read().splitlines()
    count = 0
    i = 0
    while i < len(lines):
        m = TAG.match(lines[i])
        i += 1
        if not m:
            continue
        kind, where = m.groups()
        if i >= len(lines) or not lines[i].startswith("```"):
            print(f"{page}:{i}: the '{kind}: {where}' tag must be followed by a fenced code block", file=sys.stderr)
            sys.exit(2)
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = lines[i + 1:end]
        i = end + 1
        count += 1
        if kind == "file":
            path = os.path.join(out, where)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
        else:
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, "run.txt"), "a", encoding="utf-8") as f:
                for command in body:
                    if command.strip():
                        f.write(f"{where}\t{command}\n")
    print(f"{page}: {count} tagged block(s)")


if __name__ == "__main__":
    main()
