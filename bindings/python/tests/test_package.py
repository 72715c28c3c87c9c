"""The installed package: its version, where it found its native library,
the loader's errors, and the C structs it mirrors."""

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rocksfilter
from conftest import ROOT, cargo_version
from rocksfilter import _ffi


def test_version_matches_cargo_toml():
    assert rocksfilter.version() == cargo_version()
    assert rocksfilter.__version__ == cargo_version()


@pytest.mark.skipif(os.environ.get("ROCKSFILTER_EXPECT_WHEEL") != "1", reason="not running from an installed wheel (run-tests.sh sets ROCKSFILTER_EXPECT_WHEEL=1)")
def test_running_from_the_installed_wheel_with_its_bundled_native():
    from importlib import metadata

    pkg = Path(rocksfilter.__file__).resolve().parent
    src = ROOT / "bindings" / "python" / "src"
    assert src not in pkg.parents and pkg.parent.name == "site-packages", "imported %s, not the installed wheel" % pkg
    assert "ROCKSFILTER_LIBRARY" not in os.environ
    assert Path(rocksfilter.LIBRARY_PATH) == pkg / "_native" / _ffi.LIBFILE
    assert (pkg / "py.typed").is_file()
    assert metadata.version("rocksfilter") == cargo_version()
    assert "Apache-2.0" in metadata.metadata("rocksfilter")["License"]


def _import_with(env_value):
    env = dict(os.environ)
    if env_value is None:
        env.pop("ROCKSFILTER_LIBRARY", None)
    else:
        env["ROCKSFILTER_LIBRARY"] = env_value
    return subprocess.run(
        [sys.executable, "-c", "import rocksfilter; print(rocksfilter.LIBRARY_PATH)"],
        env=env, capture_output=True, text=True,
    )


def test_the_environment_variable_wins_and_a_bad_one_says_what_was_tried(tmp_path):
    r = _import_with(rocksfilter.LIBRARY_PATH)
    assert r.returncode == 0 and r.stdout.strip() == rocksfilter.LIBRARY_PATH
    missing = str(tmp_path / "nope.so")
    r = _import_with(missing)
    assert r.returncode != 0
    assert "NativeLibraryNotFound" in r.stderr and "ROCKSFILTER_LIBRARY=%s: no such file" % missing in r.stderr
    assert "unset ROCKSFILTER_LIBRARY" in r.stderr
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not a library")
    r = _import_with(str(junk))
    assert r.returncode != 0 and "ROCKSFILTER_LIBRARY=%s:" % junk in r.stderr


def test_without_the_variable_the_bundled_copy_is_tried():
    r = _import_with(None)
    bundled = os.path.join(os.path.dirname(_ffi.__file__), "_native", _ffi.LIBFILE)
    if os.path.isfile(bundled):
        assert r.returncode == 0 and r.stdout.strip() == bundled
    else:  # a checkout's src/: nothing bundled
        assert r.returncode != 0
        assert "the bundled copy %s: no such file" % bundled in r.stderr and "pip install rocksfilter" in r.stderr


def test_struct_layouts_match_the_header(tmp_path):
    """bindings/layout/struct_layout.c prints every mirrored struct as the C
    compiler lays it out from include/rocksfilter.h; ctypes must agree."""
    cc = os.environ.get("CC", "cc")
    exe = tmp_path / "struct_layout"
    try:
        subprocess.run(
            [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(ROOT / "include"),
             str(ROOT / "bindings" / "layout" / "struct_layout.c"), "-o", str(exe)],
            check=True, capture_output=True, text=True,
        )
    except FileNotFoundError:
        pytest.skip("no C compiler (%s)" % cc)
    c = {}
    for line in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines():
        w = line.split()
        if w[0] == "struct":
            c[w[1]] = (int(w[2]), int(w[3]), [])
        else:
            assert w[0] == "field", line
            c[w[1]][2].append((w[2], int(w[3]), int(w[4])))
    assert set(c) == set(_ffi.STRUCTS), "the structs struct_layout.c prints are the structs _ffi mirrors"
    for name, (size, align, fields) in c.items():
        s = _ffi.STRUCTS[name]
        py = [(f, getattr(s, f).offset, getattr(s, f).size) for f, _t in s._fields_]
        assert py == fields, name
        assert ctypes.sizeof(s) == size and ctypes.alignment(s) == align, name
