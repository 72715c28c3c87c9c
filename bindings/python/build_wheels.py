#!/usr/bin/env python3
"""Writes one rocksfilter wheel per platform: the Python package plus that
platform's native library, tagged py3-none-<platform tag>.

    bindings/python/build_wheels.py NATIVES_DIR OUT_DIR [--require-all] [--platform P ...]

NATIVES_DIR is laid out as `make dist` stages its natives (target/dist-stage):
NATIVES_DIR/<platform>/lib/<libfile>, platform one of the PLATFORMS below and
libfile librocksfilter.so, librocksfilter.dylib or rocksfilter.dll. Platforms
without their native are skipped with a warning (so a directory holding only
the host's build makes the host's wheel); --require-all makes that an error
for every platform but linux-s390x, which is optional. Other entries of
NATIVES_DIR are ignored.

Each native is checked to be of its platform's format and machine. A glibc
native that needs more than GLIBC_2.17 (a build for this host rather than
`make dist`'s) gets the manylinux_2_N tag it really needs, with a warning;
with --require-all (the release build) that is an error.

The macOS tags come from the dylib itself: its LC_BUILD_VERSION (or
LC_VERSION_MIN_MACOSX) minimum OS version, read here from the Mach-O load
commands. check_wheels.py checks every tag against its native with the LLVM
tools, as auditwheel would.

Standard library only (Python 3.11+ for tomllib). The wheels are
reproducible: entries sorted, timestamps from SOURCE_DATE_EPOCH (default
1980-01-01), fixed permissions.
"""

import argparse
import base64
import hashlib
import io
import os
import re
import struct
import sys
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

try:
    import tomllib
except ImportError:  # pragma: no cover
    sys.exit("build_wheels.py: needs Python 3.11+ (tomllib)")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PACKAGE = HERE / "src" / "rocksfilter"

# platform -> (libfile, wheel platform tag; None: from the Mach-O header), optional
PLATFORMS: Dict[str, Tuple[str, Optional[str], bool]] = {
    "linux-x86_64": ("librocksfilter.so", "manylinux_2_17_x86_64.manylinux2014_x86_64", False),
    "linux-aarch64": ("librocksfilter.so", "manylinux_2_17_aarch64.manylinux2014_aarch64", False),
    "linux-x86_64-musl": ("librocksfilter.so", "musllinux_1_2_x86_64", False),
    "linux-aarch64-musl": ("librocksfilter.so", "musllinux_1_2_aarch64", False),
    "linux-s390x": ("librocksfilter.so", "manylinux_2_17_s390x.manylinux2014_s390x", True),
    "windows-x86_64": ("rocksfilter.dll", "win_amd64", False),
    "darwin-x86_64": ("librocksfilter.dylib", None, False),
    "darwin-aarch64": ("librocksfilter.dylib", None, False),
}
MACHO_ARCH = {0x01000007: "x86_64", 0x0100000C: "arm64"}
DARWIN_ARCH = {"darwin-x86_64": "x86_64", "darwin-aarch64": "arm64"}
ELF_MACHINE = {62: "x86_64", 183: "aarch64", 22: "s390x"}


def die(msg: str) -> "None":
    sys.exit("build_wheels.py: " + msg)


def elf_facts(path: Path) -> Tuple[str, List[Tuple[str, str]]]:
    """A 64-bit ELF file's machine and the versions it needs, as
    (library, version) pairs from its .gnu.version_r (SHT_GNU_verneed)."""
    b = path.read_bytes()
    if b[:4] != b"\x7fELF" or b[4] != 2:
        die("%s: not a 64-bit ELF file" % path)
    e = "<" if b[5] == 1 else ">"
    (machine,) = struct.unpack_from(e + "H", b, 0x12)
    (shoff,) = struct.unpack_from(e + "Q", b, 0x28)
    shentsize, shnum = struct.unpack_from(e + "HH", b, 0x3A)
    sections = [struct.unpack_from(e + "IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    needs: List[Tuple[str, str]] = []
    for _name, sh_type, _f, _a, offset, _size, link, info, _al, _es in sections:
        if sh_type != 0x6FFFFFFE:  # SHT_GNU_verneed
            continue
        strtab = sections[link][4]

        def cstr(at: int) -> str:
            return b[strtab + at : b.index(b"\0", strtab + at)].decode("ascii", "replace")

        at = offset
        for _ in range(info):
            _ver, cnt, vn_file, vn_aux, vn_next = struct.unpack_from(e + "HHIII", b, at)
            aux = at + vn_aux
            for _ in range(cnt):
                _hash, _flags, _other, vna_name, vna_next = struct.unpack_from(e + "IHHII", b, aux)
                needs.append((cstr(vn_file), cstr(vna_name)))
                aux += vna_next
            at += vn_next
    return ELF_MACHINE.get(machine, "machine %d" % machine), needs


def linux_tag(path: Path, platform: str, tag: str, strict: bool) -> str:
    """The tag for a Linux native: the platform's, after checking its machine
    and libc; a glibc build above GLIBC_2.17 (a host build) gets the
    manylinux_2_N tag it really needs, or fails with `strict`."""
    arch = platform.split("-")[1]
    machine, needs = elf_facts(path)
    if machine != arch:
        die("%s: an ELF file for %s under %s" % (path, machine, platform))
    glibc = sorted(tuple(int(x) for x in v[6:].split(".")) for _lib, v in needs if re.fullmatch(r"GLIBC_\d+(\.\d+)*", v))
    if platform.endswith("-musl"):
        if glibc:
            die("%s: asks for glibc symbols (GLIBC_%s): not a musl build" % (path, ".".join(map(str, glibc[-1]))))
        return tag
    top = glibc[-1] if glibc else (2, 17)
    if top <= (2, 17):
        return tag
    honest = "manylinux_%d_%d_%s" % (top[0], top[1], arch)
    msg = "%s needs GLIBC_%d.%d, above manylinux2014's 2.17" % (path, top[0], top[1])
    if strict:
        die(msg)
    print("build_wheels.py: warning: %s: tagged %s (a build for this host, not for distribution)" % (msg, honest),
          file=sys.stderr)
    return honest


def check_pe(path: Path) -> None:
    b = path.read_bytes()
    if b[:2] != b"MZ":
        die("%s: not a PE file" % path)
    (pe,) = struct.unpack_from("<I", b, 0x3C)
    if b[pe : pe + 4] != b"PE\0\0" or struct.unpack_from("<H", b, pe + 4)[0] != 0x8664:
        die("%s: not an x86-64 PE file" % path)


def macos_min_version(path: Path) -> Tuple[Tuple[int, int], str]:
    """(major, minor) of a thin 64-bit Mach-O's minimum macOS, and its arch."""
    b = path.read_bytes()
    if len(b) < 32:
        die("%s: too short for a Mach-O file" % path)
    magic, cputype, _sub, _ftype, ncmds, _size, _flags, _res = struct.unpack_from("<IiiIIIII", b, 0)
    if magic != 0xFEEDFACF:
        die("%s: not a little-endian 64-bit Mach-O file (magic %#x)" % (path, magic))
    arch = MACHO_ARCH.get(cputype & 0xFFFFFFFF)
    if arch is None:
        die("%s: unknown Mach-O CPU type %#x" % (path, cputype))
    off = 32
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", b, off)
        if cmd == 0x32:  # LC_BUILD_VERSION: platform, minos, sdk, ntools
            platform, minos = struct.unpack_from("<II", b, off + 8)
            if platform != 1:  # PLATFORM_MACOS
                die("%s: LC_BUILD_VERSION platform %d is not macOS" % (path, platform))
            return (minos >> 16, (minos >> 8) & 0xFF), arch
        if cmd == 0x24:  # LC_VERSION_MIN_MACOSX: version, sdk
            (version,) = struct.unpack_from("<I", b, off + 8)
            return (version >> 16, (version >> 8) & 0xFF), arch
        off += cmdsize
    die("%s: no LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX: cannot tell its minimum macOS" % path)
    raise AssertionError


def macos_tag(path: Path, platform: str) -> str:
    (major, minor), arch = macos_min_version(path)
    if arch != DARWIN_ARCH[platform]:
        die("%s: a %s Mach-O file under %s" % (path, arch, platform))
    # From macOS 11 on, installers (pip's `packaging`) accept only X_0 tags:
    # a minimum of 11.3 can only be claimed as 12_0.
    if major >= 11 and minor > 0:
        major, minor = major + 1, 0
    return "macosx_%d_%d_%s" % (major, minor, arch)


def versions() -> Tuple[str, dict]:
    cargo = (ROOT / "Cargo.toml").read_text()
    m = re.search(r'^\[package\]\s*$.*?^version\s*=\s*"([^"]+)"', cargo, re.M | re.S)
    if not m:
        die("no [package] version in %s" % (ROOT / "Cargo.toml"))
    cargo_version = m.group(1)
    project = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]
    init = (PACKAGE / "__init__.py").read_text()
    m = re.search(r'^__version__ = "([^"]+)"', init, re.M)
    found = {
        "Cargo.toml": cargo_version,
        "pyproject.toml": project["version"],
        "rocksfilter/__init__.py": m.group(1) if m else "(none)",
    }
    if len(set(found.values())) != 1:
        die("versions differ: %s" % ", ".join("%s %s" % kv for kv in found.items()))
    return cargo_version, project


def metadata(version: str, project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        "Name: %s" % project["name"],
        "Version: %s" % version,
        "Summary: %s" % project["description"],
        "License: %s" % project["license"]["text"],
        "Requires-Python: %s" % project["requires-python"],
    ]
    if project.get("keywords"):
        lines.append("Keywords: %s" % ",".join(project["keywords"]))
    lines += ["Classifier: %s" % c for c in project.get("classifiers", [])]
    for extra, reqs in sorted(project.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: %s" % extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs]
    lines.append("Description-Content-Type: text/markdown")
    readme = (HERE / project["readme"]).read_text()
    return "\n".join(lines) + "\n\n" + readme


def package_files() -> List[Tuple[str, bytes]]:
    """(path in the wheel, bytes) of the Python package: its .py files and
    py.typed, nothing else (no natives, caches or hidden files)."""
    out = []
    for p in sorted(PACKAGE.rglob("*")):
        rel = p.relative_to(PACKAGE)
        if not p.is_file() or any(part.startswith((".", "__pycache__")) or part == "_native" for part in rel.parts):
            continue
        if p.suffix == ".py" or p.name == "py.typed":
            out.append(("rocksfilter/" + rel.as_posix(), p.read_bytes()))
    if not any(name == "rocksfilter/py.typed" for name, _ in out):
        die("src/rocksfilter/py.typed is missing")
    return out


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def write_wheel(out_dir: Path, version: str, project: dict, tag: str, native: Path, libfile: str) -> Path:
    name = project["name"]
    dist_info = "%s-%s.dist-info" % (name, version)
    wheel_tags = ["py3-none-%s" % t for t in tag.split(".")]
    wheel_file = "".join(
        [
            "Wheel-Version: 1.0\n",
            "Generator: rocksfilter build_wheels.py\n",
            "Root-Is-Purelib: false\n",
        ]
        + ["Tag: %s\n" % t for t in wheel_tags]
    )
    files: List[Tuple[str, bytes, int]] = [(n, d, 0o644) for n, d in package_files()]
    files.append(("rocksfilter/_native/%s" % libfile, native.read_bytes(), 0o755))
    files.append(("%s/LICENSE" % dist_info, (ROOT / "LICENSE").read_bytes(), 0o644))
    files.append(("%s/METADATA" % dist_info, metadata(version, project).encode("utf-8"), 0o644))
    files.append(("%s/WHEEL" % dist_info, wheel_file.encode("utf-8"), 0o644))
    files.append(("%s/top_level.txt" % dist_info, b"rocksfilter\n", 0o644))
    files.sort(key=lambda f: f[0])
    record = "".join("%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, d, _ in files)
    record += "%s/RECORD,,\n" % dist_info
    files.append(("%s/RECORD" % dist_info, record.encode("utf-8"), 0o644))

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    date_time = time.gmtime(max(epoch, 315532800))[:6]
    path = out_dir / ("%s-%s-py3-none-%s.whl" % (name, version, tag))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, d, mode in files:
            info = zipfile.ZipInfo(n, date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3  # unix: the permissions above apply
            z.writestr(info, d, compresslevel=9)
    path.write_bytes(buf.getvalue())
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("natives", type=Path, help="NATIVES_DIR/<platform>/lib/<libfile>")
    ap.add_argument("out", type=Path, help="where the wheels go")
    ap.add_argument("--require-all", action="store_true", help="fail unless every platform (linux-s390x aside) has its native")
    ap.add_argument("--platform", action="append", choices=sorted(PLATFORMS), help="only these platforms (repeatable)")
    args = ap.parse_args()
    if not args.natives.is_dir():
        die("%s is not a directory" % args.natives)
    version, project = versions()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = args.platform or list(PLATFORMS)
    present = []
    for platform in wanted:
        libfile, _tag, optional = PLATFORMS[platform]
        native = args.natives / platform / "lib" / libfile
        if native.is_file():
            present.append(platform)
        else:
            print("build_wheels.py: warning: no %s native (%s): no wheel for it%s"
                  % (platform, native, " (optional)" if optional else ""), file=sys.stderr)
    required = [p for p in wanted if p not in present and not PLATFORMS[p][2]]
    if args.require_all and required:
        die("--require-all: missing natives for %s" % ", ".join(required))
    if not present:
        die("no native found under %s: no wheel written" % args.natives)
    written = []
    for platform in present:
        libfile, tag, _optional = PLATFORMS[platform]
        native = args.natives / platform / "lib" / libfile
        if platform.startswith("darwin-"):
            tag = macos_tag(native, platform)
        elif platform.startswith("linux-"):
            tag = linux_tag(native, platform, tag, strict=args.require_all)
        else:
            check_pe(native)
        path = write_wheel(args.out, version, project, tag, native, libfile)
        written.append(path)
        print("%-20s %-60s %9d bytes" % (platform, path.name, path.stat().st_size))
    print("build_wheels.py: %d wheel(s) in %s" % (len(written), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
