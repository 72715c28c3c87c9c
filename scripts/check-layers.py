#!/usr/bin/env python3
"""The library's modules form no circle: `scripts/check-layers.py`.

Every file under src/ belongs to a module: a top-level file (`src/cache.rs`
is `cache`) or a folder's module and file (`src/sst/ondemand.rs` is
`sst::ondemand`, `src/sst/mod.rs` is `sst`). A file that names
`crate::X::...` or `super::...` depends on that module. The check: the
graph of modules has no cycle, except between a folder's parent module and
its own children (`sst` re-exports what `sst::source` defines; that is one
house). Prints the cycles it finds and exits 1; with --graph, prints the
edges. ARCHITECTURE.md's code map is drawn from the same layers.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "src"


def module_of(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts) or "crate"


def deps(path, mod):
    text = path.read_text()
    # Comments and strings name modules without depending on them.
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    found = set()
    for m in re.finditer(r"\bcrate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", text):
        found.add(m.group(1))
    # `super::x` from a file of folder F names F::x (from F/mod.rs, F's parent's x).
    parent = mod.split("::")[:-1] if not path.name == "mod.rs" else mod.split("::")[:-1]
    for m in re.finditer(r"\bsuper::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", text):
        found.add("::".join(parent + m.group(1).split("::")))
    return found


def main():
    files = sorted(ROOT.rglob("*.rs"))
    mods = {module_of(p) for p in files}

    def resolve(name):
        # The longest known module a path starts with (crate::sst::ondemand::Kept -> sst::ondemand).
        parts = name.split("::")
        for i in range(len(parts), 0, -1):
            cand = "::".join(parts[:i])
            if cand in mods:
                return cand
        return None

    edges = {}
    for p in files:
        m = module_of(p)
        for d in deps(p, m):
            t = resolve(d)
            if t and t != m and not t.startswith(m + "::") and not m.startswith(t + "::"):
                edges.setdefault(m, set()).add(t)
    if "--graph" in sys.argv:
        for m in sorted(edges):
            print(f"{m} -> {', '.join(sorted(edges[m]))}")
    # Cycles: strongly connected components of more than one module.
    index, low, stack, on, comps = {}, {}, [], set(), []

    def strong(v, counter=[0]):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(mods):
        if v not in index:
            strong(v)
    for c in comps:
        inner = [f"{a} -> {b}" for a in c for b in sorted(edges.get(a, ())) if b in c]
        print(f"check-layers: a circle between {', '.join(c)}: {'; '.join(inner)}")
    if comps:
        return 1
    print(f"check-layers: {len(mods)} modules, {sum(len(v) for v in edges.values())} dependencies, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
