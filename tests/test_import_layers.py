"""The package's import graph, read from the source (every `import` and `from ... import`, at module level
and inside functions alike: a lazy import that closes a loop is still a loop), has no cycle, and the
layers run one way: the bottom modules import nothing above them, sub-commands never import cli.py."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import autofill
from tests.test_code_shape import _code_shape

PACKAGE = Path(autofill.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest known module `name` names (`autofill.a.b.func` -> `autofill.a.b`)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package modules `name` imports anywhere in its file (function bodies included). Importing
    `autofill.a.b` also runs the package `autofill.a` (its __init__), unless `name` is inside it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets.add(base)
            targets.update(f"{base}.{a.name}" for a in node.names)
    out: set[str] = set()
    for target in targets:
        if not target.startswith("autofill"):
            continue
        resolved = _resolve(target, known)
        if resolved is None:
            continue
        out.add(resolved)
        parts = resolved.split(".")
        for i in range(2, len(parts)):  # parent packages, outside our own
            parent = ".".join(parts[:i])
            if parent in known and not name.startswith(parent + ".") and name != parent:
                out.add(parent)
    out.discard(name)
    return out


@functools.lru_cache(maxsize=1)
def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module, each sorted (benchmarks/code_shape.py's Tarjan)."""
    return _code_shape().components(set(graph), graph)


def a_path(graph: dict[str, set[str]], component: list[str]) -> str:
    """One loop through the component, for the failure message: a -> b -> ... -> a."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in graph[path[-1]] if w in members)
        back = [w for w in nxt if w in seen]
        fresh = [w for w in nxt if w not in seen]
        if fresh:
            path.append(fresh[0])
            seen.add(fresh[0])
            continue
        path.append(back[0])
        return " -> ".join(path[path.index(back[0]):])


def test_the_graph_is_read_from_the_source():
    graph = import_graph()
    # A module-level import and a function-level one are both seen.
    assert "autofill.settings" in graph["autofill.answer.pipeline"]
    assert "autofill.providers.factory" in graph["autofill.answer.opening"]  # imported inside a function
    assert "autofill.checks" in graph["autofill.answer.trust"] or "autofill.checks.row" in graph["autofill.answer.trust"]


def test_cycles_are_found_through_lazy_imports():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert a_path(graph, ["a", "b", "c"]) == "a -> b -> c -> a"


def test_no_import_cycle_in_the_package():
    graph = import_graph()
    loops = [f"{a_path(graph, c)}  (one loop of: {', '.join(c)})" for c in cycles(graph)]
    assert not loops, "import cycles (module-level or inside functions):\n" + "\n".join(loops)


# Modules at the bottom: they import nothing of the package but each other (and errors/records for types).
BOTTOM = ("autofill.errors", "autofill.replies", "autofill.states", "autofill.delimit", "autofill.hashing",
          "autofill.reporting", "autofill.redact")
# (importer prefix, imported prefix) pairs that would run up the layers.
UPWARD = [
    ("autofill.checks", "autofill.evaluate"),
    ("autofill.checks", "autofill.answer"),
    ("autofill.workbook", "autofill.answer"),
    ("autofill.workbook", "autofill.review"),
    ("autofill.library", "autofill.answer.evidence_only"),
    ("autofill.store", "autofill.answer"),
    ("autofill.providers", "autofill.answer"),
    ("autofill.ingest", "autofill.answer"),
    ("autofill.records", "autofill.answer"),
    # the search chain (issue 44): searches, fused and reordered, know nothing of a row's answer, the run or the
    # workbook; only rerank's `Call` type and evidence_only's word weights are borrowed from answer/
    ("autofill.search", "autofill.answer.row"),
    ("autofill.search", "autofill.answer.opening"),
    ("autofill.search", "autofill.answer.pipeline"),
    ("autofill.search", "autofill.answer.generate"),
    ("autofill.search", "autofill.workbook"),
    ("autofill.store", "autofill.search"),
    ("autofill.providers", "autofill.search"),
    ("autofill.ingest", "autofill.search"),
    ("autofill.checks", "autofill.search"),
    ("autofill.workbook", "autofill.search"),
    # query translation sits below both the search chain and the frameworks, which use it (issue 44)
    ("autofill.translation", "autofill.search"),
    ("autofill.translation", "autofill.frameworks"),
    ("autofill.translation", "autofill.answer"),
    ("autofill.translation", "autofill.workbook"),
]


@pytest.mark.parametrize("importer,imported", UPWARD)
def test_layers_run_one_way(importer, imported):
    graph = import_graph()
    bad = sorted(f"{m} -> {t}" for m, targets in graph.items() if m == importer or m.startswith(importer + ".")
                 for t in targets if t == imported or t.startswith(imported + "."))
    assert not bad, "imports running up the layers:\n" + "\n".join(bad)


def test_only_the_entry_point_imports_the_cli():
    graph = import_graph()
    bad = sorted(m for m, targets in graph.items() if "autofill.cli" in targets and m != "autofill.__main__")
    assert not bad, f"sub-commands import their helpers from cli.py: {bad}"


def test_the_bottom_imports_nothing_above_it():
    graph = import_graph()
    allowed = set(BOTTOM) | {"autofill.records"}
    bad = sorted(f"{m} -> {t}" for m in BOTTOM if m in graph for t in graph[m] if t not in allowed)
    assert not bad, bad
