"""README.md's Python blocks run as shown, and print what their comments say:
each `# ...` line right after a line with `print(` is that print's output."""

import contextlib
import io
import os
import re

import pytest

from conftest import ROOT

README = ROOT / "bindings" / "python" / "README.md"


def blocks():
    text = README.read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


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
    code = blocks()[index]
    for module in re.findall(r"^(?:import|from) (\w+)", code, re.M):
        pytest.importorskip(module)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "%s block %d" % (README.name, index), "exec"), {"__name__": "__readme__"})
    finally:
        os.chdir(cwd)
    assert buf.getvalue().splitlines() == expected_output(code)
