"""build_wheels.py and check_wheels.py on the native this suite loaded: the
wheel is reproducible and passes the checker, and the checker catches a tag
its native does not fit."""

import importlib.util
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import rocksfilter
from conftest import ROOT, cargo_version

HERE = ROOT / "bindings" / "python"
pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the wheel tools run on Linux"),
    pytest.mark.skipif(shutil.which("llvm-readelf") is None or shutil.which("file") is None,
                       reason="check_wheels.py needs llvm-readelf, llvm-objdump and file"),
]


def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / ("%s.py" % name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(script, *args):
    return subprocess.run([sys.executable, str(HERE / script), *map(str, args)], capture_output=True, text=True)


@pytest.fixture
def natives(tmp_path):
    d = tmp_path / "natives"
    (d / "linux-x86_64" / "lib").mkdir(parents=True)
    shutil.copy(rocksfilter.LIBRARY_PATH, d / "linux-x86_64" / "lib" / "librocksfilter.so")
    if Path(rocksfilter.LIBRARY_PATH).name != "librocksfilter.so" or "x86_64" not in subprocess.run(
        ["file", "-b", rocksfilter.LIBRARY_PATH], capture_output=True, text=True
    ).stdout.replace("x86-64", "x86_64"):
        pytest.skip("the loaded native is not a Linux x86_64 library")
    return d


def test_wheel_builds_reproducibly_and_checks(natives, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    r = run("build_wheels.py", natives, a)
    assert r.returncode == 0, r.stderr
    assert "no linux-aarch64 native" in r.stderr  # a subset is fine, with a warning
    assert run("build_wheels.py", natives, b).returncode == 0
    (wa,), (wb,) = list(a.glob("*.whl")), list(b.glob("*.whl"))
    assert wa.name == wb.name and wa.read_bytes() == wb.read_bytes()
    assert wa.name.startswith("rocksfilter-%s-py3-none-manylinux_2_" % cargo_version())
    r = run("check_wheels.py", a)
    assert r.returncode == 0, r.stdout
    with zipfile.ZipFile(wa) as z:
        names = z.namelist()
        assert "rocksfilter/_native/librocksfilter.so" in names and "rocksfilter/py.typed" in names
        assert z.getinfo("rocksfilter/_native/librocksfilter.so").external_attr >> 16 == 0o100755
    # --require-all: every platform or nothing.
    r = run("build_wheels.py", natives, tmp_path / "c", "--require-all")
    assert r.returncode != 0 and "missing natives for" in r.stderr
    assert not list((tmp_path / "c").glob("*.whl"))
    r = run("check_wheels.py", a, "--require-all")
    assert r.returncode != 0 and "no wheel for darwin-aarch64" in r.stdout


def test_builder_refuses_a_native_in_the_wrong_slot(natives, tmp_path):
    for slot in ("linux-aarch64", "linux-x86_64-musl"):
        d = tmp_path / slot
        (d / slot / "lib").mkdir(parents=True)
        shutil.copy(natives / "linux-x86_64" / "lib" / "librocksfilter.so", d / slot / "lib")
        r = run("build_wheels.py", d, tmp_path / "out")
        assert r.returncode != 0, slot
        assert ("x86_64 under linux-aarch64" in r.stderr) or ("not a musl build" in r.stderr), r.stderr


@pytest.mark.parametrize(
    "tag,message",
    [
        ("manylinux_2_17_aarch64.manylinux2014_aarch64", "ELF machine"),
        ("musllinux_1_2_x86_64", "not a musl build"),
        ("win_amd64", "not rocksfilter.dll"),
        ("macosx_11_0_arm64", "not librocksfilter.dylib"),
    ],
)
def test_checker_catches_a_tag_its_native_does_not_fit(natives, tmp_path, tag, message):
    bw = load("build_wheels")
    version, project = bw.versions()
    tmp_path.joinpath("w").mkdir()
    bw.write_wheel(tmp_path / "w", version, project, tag, natives / "linux-x86_64" / "lib" / "librocksfilter.so", "librocksfilter.so")
    r = run("check_wheels.py", tmp_path / "w")
    assert r.returncode != 0 and message in r.stdout, r.stdout


def test_checker_catches_glibc_above_the_tag(natives, tmp_path):
    bw = load("build_wheels")
    _machine, needs = bw.elf_facts(natives / "linux-x86_64" / "lib" / "librocksfilter.so")
    top = max((tuple(map(int, v[6:].split("."))) for _l, v in needs if v.startswith("GLIBC_")), default=(2, 0))
    if top <= (2, 17):
        pytest.skip("this native (a manylinux2014 build) needs only GLIBC_%d.%d" % top)
    version, project = bw.versions()
    tmp_path.joinpath("w").mkdir()
    bw.write_wheel(tmp_path / "w", version, project, "manylinux_2_17_x86_64.manylinux2014_x86_64",
                   natives / "linux-x86_64" / "lib" / "librocksfilter.so", "librocksfilter.so")
    r = run("check_wheels.py", tmp_path / "w")
    assert r.returncode != 0 and "above GLIBC_2.17" in r.stdout, r.stdout


def test_checker_catches_a_tampered_record(natives, tmp_path):
    assert run("build_wheels.py", natives, tmp_path / "a").returncode == 0
    (whl,) = (tmp_path / "a").glob("*.whl")
    out = io.BytesIO()
    with zipfile.ZipFile(whl) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "rocksfilter/_errors.py":
                data += b"\n# changed\n"
            zout.writestr(info, data)
        zout.writestr("rocksfilter/.mypy_cache/cache.db", b"")
    whl.write_bytes(out.getvalue())
    r = run("check_wheels.py", tmp_path / "a")
    assert r.returncode != 0 and "rocksfilter/_errors.py: RECORD says" in r.stdout, r.stdout
    assert "no part of the package: rocksfilter/.mypy_cache/cache.db" in r.stdout, r.stdout
