#!/usr/bin/env python3
"""Checks that every fenced code block in a README that follows a marker line
`<!-- file: PATH -->` is exactly the file PATH (relative to the README's
directory), so the examples the README shows are the ones the tests build.
(scripts/readme-test.py runs the README's shell blocks.)

    scripts/check-readme-examples.py README.md [MORE.md ...]
"""
import difflib
import pathlib
import re
import sys

MARKER = re.compile(r"^<!-- file: (\S+) -->\s*$")


def check(readme: pathlib.Path) -> int:
    lines = readme.read_text(encoding="utf-8").splitlines(keepends=True)
    checked = failed = 0
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        i += 1
        if not m:
            continue
        where = f"{readme}:{i}"
        if i >= len(lines) or not lines[i].startswith("```"):
            print(f"{where}: marker for {m.group(1)} is not followed by a ``` block")
            failed += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if end == len(lines):
            print(f"{where}: unterminated ``` block for {m.group(1)}")
            failed += 1
            break
        block = "".join(lines[start:end])
        path = readme.parent / m.group(1)
        checked += 1
        if not path.is_file():
            print(f"{where}: {m.group(1)} does not exist")
            failed += 1
        else:
            text = path.read_text(encoding="utf-8")
            if block != text:
                failed += 1
                print(f"{where}: the block differs from {m.group(1)}:")
                sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), block.splitlines(True),
                                                           str(m.group(1)), f"{readme} block at line {start + 1}"))
        i = end + 1
    print(f"readme-check: {readme}: {checked - failed if checked >= failed else 0} of {checked} marked blocks match their files")
    if checked == 0:
        print(f"{readme}: no `<!-- file: PATH -->` markers found")
        return 1
    return failed


if __name__ == "__main__":
    sys.exit(1 if sum(check(pathlib.Path(a)) for a in sys.argv[1:] or ["README.md"]) else 0)
