#!/usr/bin/env python3
"""Checks the wheels build_wheels.py wrote: each wheel's tag against the
native library it carries, as auditwheel would, with the LLVM tools and
`file` (a second reading, independent of build_wheels.py's own):

    bindings/python/check_wheels.py DIST [--require-all]

For every DIST/*.whl:
  - the archive: only the package's .py files, py.typed, the native and the
    dist-info; RECORD lists every other file with its sha256 and size;
    WHEEL says Root-Is-Purelib: false and lists exactly the file name's tags;
    METADATA names rocksfilter at Cargo.toml's version;
  - one native, rocksfilter/_native/<libfile>, the libfile of the tag's OS,
    exporting every C function the package's _ffi.py binds;
  - manylinux_2_N_<arch> (and its manylinux2014 alias): an ELF shared
    object of that machine whose highest GLIBC_ symbol version is at most
    2.N (GCC_, GLIBCXX_ and CXXABI_ within manylinux2014's too, for 2.17),
    needing only libraries of auditwheel's manylinux2014 list, importing
    none of the symbols that policy forbids (weak references aside, as
    auditwheel does);
  - musllinux_1_2_<arch>: an ELF shared object of that machine asking for no
    glibc symbol version, needing only libc.so (or libz.so.1);
  - win_amd64: a PE32+ x86-64 DLL importing only Windows' own DLLs;
  - macosx_X_Y_<arch>: a Mach-O dylib of that arch whose minimum macOS
    (LC_BUILD_VERSION minos, or LC_VERSION_MIN_MACOSX) is at most X.Y,
    linking only system libraries.
With --require-all, a wheel for each platform make dist builds must be
there (linux-s390x is optional). Exits 1 after listing every failure.
"""

import argparse
import base64
import hashlib
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent.parent

# auditwheel's manylinux2014 (manylinux_2_17) policy: the libraries a wheel
# may need from the system, the highest symbol versions per architecture,
# and the symbols it may not import.
MANYLINUX2014_LIBS = {
    "libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libanl.so.1", "libdl.so.2",
    "librt.so.1", "libc.so.6", "libnsl.so.1", "libutil.so.1", "libpthread.so.0", "libX11.so.6",
    "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6", "libGL.so.1",
    "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0", "libresolv.so.2",
    "libexpat.so.1", "libz.so.1",
}
# The dynamic linker itself, which every glibc shared object may name.
GLIBC_LOADERS = {"ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld64.so.1", "ld64.so.2", "ld-linux.so.2"}
MANYLINUX2014_MAX = {
    "x86_64": {"GLIBC": "2.17", "GCC": "4.8.0", "GLIBCXX": "3.4.19", "CXXABI": "1.3.7"},
    "aarch64": {"GLIBC": "2.18", "GCC": "4.7.0", "GLIBCXX": "3.4.19", "CXXABI": "1.3.7"},
    "s390x": {"GLIBC": "2.17", "GCC": "4.7.0", "GLIBCXX": "3.4.19", "CXXABI": "1.3.7"},
}
MANYLINUX2014_FORBIDDEN = {
    "__cxa_thread_atexit_impl", "__issignaling", "__issignalingf", "__issignalingl",
    "pthread_getattr_default_np", "pthread_setattr_default_np",
}
MUSLLINUX_LIBS = {"libc.so", "libz.so.1"}
WINDOWS_SYSTEM_DLLS = {
    "kernel32.dll", "ntdll.dll", "msvcrt.dll", "ucrtbase.dll", "advapi32.dll", "bcrypt.dll",
    "bcryptprimitives.dll", "userenv.dll", "ws2_32.dll", "secur32.dll", "shell32.dll", "ole32.dll",
    "user32.dll", "crypt32.dll", "ncrypt.dll", "dbghelp.dll", "psapi.dll", "synchronization.dll",
}
ELF_MACHINE = {"x86_64": "Advanced Micro Devices X86-64", "aarch64": "AArch64", "s390x": "IBM S/390"}
FILE_ELF = {
    "x86_64": "ELF 64-bit LSB shared object, x86-64",
    "aarch64": "ELF 64-bit LSB shared object, ARM aarch64",
    "s390x": "ELF 64-bit MSB shared object, IBM S/390",
}
# Platforms make dist builds, by the tag family their wheel carries.
REQUIRED = {
    "linux-x86_64": r"manylinux_2_17_x86_64\.manylinux2014_x86_64",
    "linux-aarch64": r"manylinux_2_17_aarch64\.manylinux2014_aarch64",
    "linux-x86_64-musl": r"musllinux_1_2_x86_64",
    "linux-aarch64-musl": r"musllinux_1_2_aarch64",
    "windows-x86_64": r"win_amd64",
    "darwin-x86_64": r"macosx_\d+_\d+_x86_64",
    "darwin-aarch64": r"macosx_\d+_\d+_arm64",
}


def run(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("check_wheels.py: %s not found (apt-get install llvm file)" % cmd[0])
    except subprocess.CalledProcessError as e:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), e.stderr.strip()))


def vtuple(v: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


class Wheel:
    def __init__(self, path: Path, version: str) -> None:
        self.path = path
        self.version = version
        self.failures: List[str] = []
        self.notes: List[str] = []

    def bad(self, msg: str) -> None:
        self.failures.append(msg)

    def check(self, work: Path) -> None:
        m = re.fullmatch(r"rocksfilter-([^-]+)-py3-none-([^-]+)\.whl", self.path.name)
        if not m:
            self.bad("file name is not rocksfilter-VERSION-py3-none-PLATFORM.whl")
            return
        if m.group(1) != self.version:
            self.bad("version %s in the file name, Cargo.toml says %s" % (m.group(1), self.version))
        self.tags = m.group(2).split(".")
        with zipfile.ZipFile(self.path) as z:
            names = z.namelist()
            data = {n: z.read(n) for n in names}
        self.check_archive(names, data)
        stray = [n for n in names if not re.fullmatch(
            r"rocksfilter/(\w+\.py|py\.typed|_native/[\w.]+)|rocksfilter-[^/]+\.dist-info/(LICENSE|METADATA|WHEEL|RECORD|top_level\.txt)", n)]
        if stray:
            self.bad("files that are no part of the package: %s" % ", ".join(stray[:5]))
        natives = [n for n in names if n.startswith("rocksfilter/_native/")]
        if len(natives) != 1:
            self.bad("expected one native under rocksfilter/_native/, found %s" % natives)
            return
        native = work / Path(natives[0]).name
        native.write_bytes(data[natives[0]])
        self.native_name = Path(natives[0]).name
        ffi = data.get("rocksfilter/_ffi.py", b"").decode("utf-8")
        self.bound = set(re.findall(r'^\s*\("(rocksfilter_\w+)"', ffi, re.M))
        if len(self.bound) < 30:
            self.bad("found only %d bound functions in rocksfilter/_ffi.py" % len(self.bound))
        tag = self.tags[0]
        try:
            if tag.startswith("manylinux_"):
                self.check_manylinux(native)
            elif tag.startswith("musllinux_"):
                self.check_musllinux(native)
            elif tag == "win_amd64":
                self.check_windows(native)
            elif tag.startswith("macosx_"):
                self.check_macos(native)
            else:
                self.bad("unknown platform tag %s" % tag)
        except RuntimeError as e:
            self.bad(str(e))

    def check_archive(self, names: List[str], data: Dict[str, bytes]) -> None:
        dist_info = "rocksfilter-%s.dist-info" % self.version
        if len(set(names)) != len(names):
            self.bad("duplicate entries in the archive")
        record = data.get(dist_info + "/RECORD")
        if record is None:
            self.bad("no %s/RECORD" % dist_info)
            return
        listed = {}
        for line in record.decode("utf-8").splitlines():
            name, digest, size = line.rsplit(",", 2)
            listed[name] = (digest, size)
        for name in names:
            if name == dist_info + "/RECORD":
                continue
            if name not in listed:
                self.bad("%s is not in RECORD" % name)
                continue
            d = hashlib.sha256(data[name]).digest()
            want = "sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode("ascii")
            if listed[name] != (want, str(len(data[name]))):
                self.bad("%s: RECORD says %s, the file is %s,%d" % (name, listed[name], want, len(data[name])))
        for name in set(listed) - set(names):
            self.bad("RECORD lists %s, which the archive lacks" % name)
        wheel = data.get(dist_info + "/WHEEL", b"").decode("utf-8")
        if "Root-Is-Purelib: false" not in wheel.splitlines():
            self.bad("WHEEL does not say Root-Is-Purelib: false")
        wtags = [line[5:] for line in wheel.splitlines() if line.startswith("Tag: ")]
        if wtags != ["py3-none-%s" % t for t in self.tags]:
            self.bad("WHEEL tags %s differ from the file name's %s" % (wtags, self.tags))
        meta = data.get(dist_info + "/METADATA", b"").decode("utf-8").split("\n\n")[0].splitlines()
        for want in ("Name: rocksfilter", "Version: %s" % self.version, "License: Apache-2.0"):
            if want not in meta:
                self.bad("METADATA lacks '%s'" % want)
        if "rocksfilter/py.typed" not in names:
            self.bad("no rocksfilter/py.typed")

    def want_file(self, native: Path, prefix: str) -> None:
        kind = run("file", "-b", str(native)).strip()
        if not kind.startswith(prefix):
            self.bad("%s is '%s', expected '%s...'" % (self.native_name, kind, prefix))

    def missing_exports(self, exports: Set[str]) -> None:
        missing = sorted(self.bound - exports)
        if missing:
            self.bad("%s does not export %s" % (self.native_name, ", ".join(missing)))

    def elf(self, native: Path, arch: str) -> Tuple[List[str], Dict[str, List[str]], Set[str]]:
        """NEEDED libraries, symbol versions by prefix, and imported symbols."""
        if self.native_name != "librocksfilter.so":
            self.bad("a Linux wheel's native is %s, not librocksfilter.so" % self.native_name)
        self.want_file(native, FILE_ELF[arch])
        header = run("llvm-readelf", "-h", str(native))
        m = re.search(r"Machine:\s*(.+)", header)
        if not m or m.group(1).strip() != ELF_MACHINE[arch]:
            self.bad("ELF machine is %r, expected %r" % (m and m.group(1).strip(), ELF_MACHINE[arch]))
        dynamic = run("llvm-readelf", "-d", str(native))
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
        symbols = run("llvm-objdump", "-T", str(native))
        versions: Dict[str, List[str]] = {}
        for prefix, v in re.findall(r"\b(GLIBC|GCC|GLIBCXX|CXXABI)_(\d+(?:\.\d+)*)\b", symbols):
            versions.setdefault(prefix, []).append(v)
        # Imported symbols: undefined and not weak (a weak reference, such as
        # Rust's to __cxa_thread_atexit_impl, is optional: auditwheel skips it).
        imported = set()
        for line in run("llvm-readelf", "--dyn-syms", "--wide", str(native)).splitlines():
            f = line.split()
            if len(f) >= 8 and f[6] == "UND" and f[4] != "WEAK":
                imported.add(f[7].split("@")[0])
        exports = set(run("llvm-nm", "-D", "--defined-only", "--format=just-symbols", str(native)).split())
        self.missing_exports(exports)
        return needed, versions, imported

    def check_manylinux(self, native: Path) -> None:
        m = re.fullmatch(r"manylinux_2_(\d+)_(x86_64|aarch64|s390x)", self.tags[0])
        if not m:
            self.bad("unexpected manylinux tag %s" % self.tags[0])
            return
        glibc_minor, arch = int(m.group(1)), m.group(2)
        if glibc_minor <= 17 and self.tags != ["manylinux_2_%d_%s" % (glibc_minor, arch), "manylinux2014_%s" % arch]:
            self.bad("tags %s: expected manylinux_2_17_%s.manylinux2014_%s" % (self.tags, arch, arch))
        needed, versions, imported = self.elf(native, arch)
        extra = [n for n in needed if n not in MANYLINUX2014_LIBS and n not in GLIBC_LOADERS]
        if extra:
            self.bad("needs libraries outside the manylinux2014 list: %s" % ", ".join(extra))
        limits = dict(MANYLINUX2014_MAX[arch]) if glibc_minor == 17 else {}
        limits["GLIBC"] = "2.%d" % glibc_minor
        tops = {}
        for prefix, vs in versions.items():
            top = max(vs, key=vtuple)
            tops[prefix] = top
            if prefix in limits and vtuple(top) > vtuple(limits[prefix]):
                self.bad("asks for %s_%s, above %s_%s (the tag's)" % (prefix, top, prefix, limits[prefix]))
        forbidden = sorted(imported & MANYLINUX2014_FORBIDDEN)
        if forbidden:
            self.bad("imports symbols manylinux2014 forbids: %s" % ", ".join(forbidden))
        self.notes.append("ELF %s, needs %s; highest %s" % (
            arch, " ".join(needed), " ".join("%s_%s" % kv for kv in sorted(tops.items()))))

    def check_musllinux(self, native: Path) -> None:
        m = re.fullmatch(r"musllinux_1_2_(x86_64|aarch64)", self.tags[0])
        if not m or len(self.tags) != 1:
            self.bad("unexpected musllinux tags %s" % self.tags)
            return
        needed, versions, _ = self.elf(native, m.group(1))
        if versions.get("GLIBC"):
            self.bad("asks for glibc symbol versions (GLIBC_%s): not a musl build" % max(versions["GLIBC"], key=vtuple))
        extra = [n for n in needed if n not in MUSLLINUX_LIBS]
        if extra:
            self.bad("needs libraries outside the musllinux list: %s" % ", ".join(extra))
        self.notes.append("ELF %s, needs %s; no glibc symbol versions" % (m.group(1), " ".join(needed)))

    def check_windows(self, native: Path) -> None:
        if self.native_name != "rocksfilter.dll":
            self.bad("a Windows wheel's native is %s, not rocksfilter.dll" % self.native_name)
        self.want_file(native, "PE32+ executable (DLL)")
        head = run("llvm-objdump", "-f", str(native))
        if "file format coff-x86-64" not in head:
            self.bad("PE machine is not x86-64: %s" % head.strip())
        private = run("llvm-objdump", "-p", str(native))
        dlls = re.findall(r"DLL Name: (\S+)", private)
        extra = [d for d in dlls if d.lower() not in WINDOWS_SYSTEM_DLLS and not d.lower().startswith("api-ms-win-")]
        if extra:
            self.bad("imports DLLs that are not Windows' own: %s" % ", ".join(extra))
        exports, table = set(), False
        for line in private.splitlines():
            if line.startswith("Export Table:"):
                table = True
            elif table and not line.strip():
                table = False
            elif table:
                m = re.match(r"\s+\d+\s+0x[0-9a-f]+\s+(\S+)$", line)
                if m:
                    exports.add(m.group(1))
        self.missing_exports(exports)
        self.notes.append("PE32+ x86-64, imports %s" % " ".join(dlls))

    def check_macos(self, native: Path) -> None:
        m = re.fullmatch(r"macosx_(\d+)_(\d+)_(x86_64|arm64)", self.tags[0])
        if not m or len(self.tags) != 1:
            self.bad("unexpected macOS tags %s" % self.tags)
            return
        tag_version, arch = (int(m.group(1)), int(m.group(2))), m.group(3)
        if self.native_name != "librocksfilter.dylib":
            self.bad("a macOS wheel's native is %s, not librocksfilter.dylib" % self.native_name)
        self.want_file(native, "Mach-O 64-bit %s dynamically linked shared library" % arch)
        headers = run("llvm-objdump", "--macho", "--private-headers", str(native))
        minos: Optional[str] = None
        m = re.search(r"cmd LC_BUILD_VERSION.*?\n\s*platform (\S+)\n.*?minos (\S+)", headers, re.S)
        if m:
            if m.group(1) not in ("macos", "1"):
                self.bad("LC_BUILD_VERSION platform is %s, not macos" % m.group(1))
            minos = m.group(2)
        else:
            m = re.search(r"cmd LC_VERSION_MIN_MACOSX.*?\n\s*version (\S+)", headers, re.S)
            minos = m.group(1) if m else None
        if minos is None:
            self.bad("no LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX: unknown minimum macOS")
        elif vtuple(minos)[:2] > tag_version:
            self.bad("the dylib needs macOS %s, above the tag's %d.%d" % (minos, *tag_version))
        used = run("llvm-objdump", "--macho", "--dylibs-used", str(native)).splitlines()[1:]
        libs = [u.strip().split(" (")[0] for u in used if u.strip()]
        extra = [lib for lib in libs if not lib.startswith(("/usr/lib/", "/System/Library/")) and lib != "@rpath/librocksfilter.dylib"]
        if extra:
            self.bad("links libraries that are not macOS's own: %s" % ", ".join(extra))
        exports = {s[1:] if s.startswith("_") else s
                   for s in run("llvm-nm", "-gU", "--format=just-symbols", str(native)).split()}
        self.missing_exports(exports)
        self.notes.append("Mach-O %s, minos %s, links %s" % (arch, minos, " ".join(Path(x).name for x in libs)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dist", type=Path)
    ap.add_argument("--require-all", action="store_true", help="a wheel for every platform make dist builds")
    args = ap.parse_args()
    cargo = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'^\[package\]\s*$.*?^version\s*=\s*"([^"]+)"', cargo, re.M | re.S).group(1)
    wheels = sorted(args.dist.glob("*.whl"))
    if not wheels:
        print("check_wheels.py: no wheels in %s" % args.dist)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(wheels):
            w = Wheel(path, version)
            work = Path(tmp) / str(i)
            work.mkdir()
            w.check(work)
            status = "ok" if not w.failures else "FAIL"
            print("%-4s %s: %s" % (status, path.name, "; ".join(w.notes)))
            for f in w.failures:
                print("     FAIL: %s" % f)
            failures += len(w.failures)
    if args.require_all:
        names = [w.name for w in wheels]
        for platform, pattern in REQUIRED.items():
            if not any(re.fullmatch(r"rocksfilter-[^-]+-py3-none-%s\.whl" % pattern, n) for n in names):
                print("FAIL no wheel for %s (py3-none-%s)" % (platform, pattern.replace("\\", "")))
                failures += 1
    if failures:
        print("check_wheels.py: %d checks failed" % failures)
        return 1
    print("check_wheels.py: %d wheels, every check passed" % len(wheels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
