"""The Python blocks of bindings/python/README.md and of the repository's
README.md run as shown, and print what their comments say: each `# ...`
line right after a line with `print(` is that print's output."""

import contextlib
import io
import os
import re

import pytest

from conftest import ROOT

READMES = [ROOT / "bindings" / "python" / "README.md", ROOT / "README.md"]


def blocks():
    found = []
    for readme in READMES:
        found += [(readme, b) for b in re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)]
    return found


def expected_output(code):
    out, after_print = [], False
    for line in code.splitlines():
        s = line.strip()
        if after_print and s.startswith("# "):
            out.append(s[2:])
            continue
        after_print = "print(" in line
    return out


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_block_runs_and_prints_its_comments(index, tmp_path):
    readme, code = blocks()[index]
    for module in re.findall(r"^(?:import|from) (\w+)", code, re.M):
        pytest.importorskip(module)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "%s block %d" % (readme, index), "exec"), {"__name__": "__readme__"})
    finally:
        os.chdir(cwd)
    assert buf.getvalue().splitlines() == expected_output(code)
