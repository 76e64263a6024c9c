"""Size of the default install: the dependency closure of `pip install .` (no extras), measured from the
installed distributions' file lists (importlib.metadata), so it needs no network and no fresh venv.

    python benchmarks/install_size.py [--top 25] [--without chromadb,matplotlib]

Prints each distribution in the closure with its size on disk, who pulls it in, the total (target
under 600 MB), and, for each name given to --without, what the closure would weigh without it (the
distributions only it needs). A fresh venv adds pip/setuptools (~15 MB) and the interpreter's own
files are not counted. Distributions in the closure that are not installed here are listed."""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def default_requirements() -> list[str]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0] for r in project["dependencies"]]


def requires(dist: metadata.Distribution) -> list[str]:
    """Names a distribution needs without extras (markers for extras left out; others evaluated)."""
    from packaging.requirements import Requirement

    out = []
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is not None:
            try:
                if not req.marker.evaluate({"extra": ""}):
                    continue
            except Exception:  # noqa: BLE001 - an unusual marker: count it in
                pass
        out.append(req.name)
    return out


def size_of(dist: metadata.Distribution) -> int:
    total = 0
    for f in dist.files or []:
        try:
            total += Path(dist.locate_file(f)).stat().st_size
        except OSError:
            pass
    return total


def closure(roots: list[str], skip: set[str] = frozenset()) -> tuple[dict[str, metadata.Distribution], dict[str, str], list[str]]:
    found: dict[str, metadata.Distribution] = {}
    parent: dict[str, str] = {}
    missing: list[str] = []
    todo = [(r, "autofill") for r in roots]
    while todo:
        name, by = todo.pop()
        key = canon(name)
        if key in found or key in skip or key in missing:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(key)
            continue
        found[key] = dist
        parent[key] = by
        todo.extend((r, key) for r in requires(dist))
    return found, parent, missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--without", default="chromadb,matplotlib,cohere,scipy",
                    help="comma-separated direct dependencies to price (what only they bring)")
    args = ap.parse_args()
    roots = default_requirements()
    found, parent, missing = closure(roots)
    sizes = {k: size_of(d) for k, d in found.items()}
    total = sum(sizes.values())
    print(f"default install: {len(found)} distributions, {total / 1e6:.0f} MB (target under 600 MB); "
          f"Python {sys.version.split()[0]}")
    for key, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {size / 1e6:7.1f} MB  {found[key].metadata['Name']} {found[key].version}  (via {parent[key]})")
    if missing:
        print(f"  not installed here: {', '.join(sorted(missing))}")
    for name in [n.strip() for n in args.without.split(",") if n.strip()]:
        rest, _, _ = closure([r for r in roots if canon(r) != canon(name)])
        only = sorted(set(found) - set(rest), key=lambda k: -sizes[k])
        freed = sum(sizes[k] for k in only)
        print(f"without {name}: {(total - freed) / 1e6:.0f} MB ({freed / 1e6:.0f} MB less: "
              + ", ".join(f"{found[k].metadata['Name']} {sizes[k] / 1e6:.0f}" for k in only[:12])
              + (" ..." if len(only) > 12 else "") + ")")


if __name__ == "__main__":
    main()
