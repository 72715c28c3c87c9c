"""Shared paths and fixtures of the suite.

The suite runs against whatever `import rocksfilter` finds: the wheel
installed in a fresh venv (run-tests.sh), or src/ with ROCKSFILTER_LIBRARY
pointing at a build (PYTHONPATH=src ROCKSFILTER_LIBRARY=... pytest).
"""

import json
import os
import re
from pathlib import Path
from typing import Dict, List, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"


def cargo_version() -> str:
    text = (ROOT / "Cargo.toml").read_text()
    return re.search(r'^\[package\]\s*$.*?^version\s*=\s*"([^"]+)"', text, re.M | re.S).group(1)


class Fixture(NamedTuple):
    path: Path
    row: Dict
    keys: List[bytes]

    @property
    def name(self) -> str:
        return self.row["file"]


def read_keys(path: Path) -> List[bytes]:
    # As tests/sst_fixtures.rs: one hex key per line; a file holding a single
    # newline is one empty key.
    text = path.read_text()
    return [bytes.fromhex(h) for h in text.splitlines() if h or len(text) == 1]


@pytest.fixture(scope="session")
def sst_fixtures() -> List[Fixture]:
    d = os.environ.get("ROCKSFILTER_SST_FIXTURES")
    if not d:
        pytest.skip(
            "ROCKSFILTER_SST_FIXTURES is not set: run bindings/python/run-tests.sh, or "
            "sst_fixtures/generate.sh DIR and set ROCKSFILTER_SST_FIXTURES=DIR"
        )
    d = Path(d)
    manifest = d / "manifest.jsonl"
    if not manifest.is_file():
        pytest.fail("%s is missing: run sst_fixtures/generate.sh %s" % (manifest, d))
    out = []
    for line in manifest.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(Fixture(d / row["file"], row, read_keys(d / row["keys"])))
    assert len(out) >= 100, "expected the full fixture set, found %d" % len(out)
    return out


def absent_keys(keys: List[bytes], n: int) -> List[bytes]:
    """Keys not in `keys` (mostly): present keys with bytes appended, and
    short random ones (tests/sst_fixtures.rs's scheme)."""
    x = 0x9E3779B97F4A7C15
    mask = (1 << 64) - 1
    out = []
    for i in range(n):
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
        le = x.to_bytes(8, "little")
        if i % 2 == 0 and keys:
            out.append(keys[i % len(keys)] + le[: 1 + x % 4])
        else:
            out.append(le[: 1 + x % 8])
    present = set(keys)
    return [k for k in out if k not in present]
