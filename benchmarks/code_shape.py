"""The shape of the code, counted from the source with `ast` (the package is never imported, so the
figures do not depend on what is installed):

  modules          every .py file under autofill/
  long modules     those over 400 lines (physical lines), longest first
  imports inside functions
                   `import` / `from ... import` statements nested in a function (at any depth), split
                   into the package's own modules (autofill.*, relative imports), the heavy third-party
                   modules (HEAVY: kept lazy for the cold start of `autofill --help` / `inspect` and, for
                   the SDKs and native libraries worker threads may import, for the one import lock of
                   autofill/imports.py), and other third-party or standard-library modules
  imports that climb back up between folders
                   The package is cut into units: each sub-package (folder) autofill/<a>/ is one unit,
                   each module directly under autofill/ is a unit of its own. An import in a file of unit
                   a of a module of unit b is an edge a -> b (every import counts: at module level, inside
                   a function, or under `if TYPE_CHECKING:`; hiding an import in a function does not
                   remove the dependency). Units that depend on each other through a chain of edges both
                   ways form a cycle (a strongly connected component of more than one unit). An import
                   climbs back up when its edge a -> b lies in such a cycle and is one of the edges that
                   must go for the units to form layers: within each cycle the edge with the fewest
                   imports is taken out, repeatedly, until no cycle is left (a greedy minimum feedback arc
                   set); the imports of the edges taken out are the ones that climb. Goal: 0, i.e. no
                   cycle between units at all.
  retrieval settings
                   the fields of the RetrievalSettings dataclass in autofill/settings.py (or wherever the
                   class is defined in the package)

    python benchmarks/code_shape.py [--root autofill] [--json]

Exit code 0 always; `tests/test_code_shape.py` asserts the cycles stay at zero."""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "autofill"
LONG = 400

# Third-party modules an import of which costs noticeable start-up time or memory, or that threads import
# through autofill/imports.py: these stay inside functions (or behind imports.load) on purpose.
HEAVY = frozenset({
    "chromadb", "openai", "cohere", "torch", "onnxruntime", "tokenizers", "httpx", "fitz", "pymupdf",
    "pymupdf4llm", "openpyxl", "numpy", "scipy", "matplotlib", "ray", "uvicorn", "starlette", "playwright",
    "bm25s", "Stemmer", "xlwings", "formualizer", "transformers", "sentence_transformers", "pandas",
    "jinja2", "pydantic", "rapidocr_onnxruntime", "rapidocr", "PIL", "sklearn", "huggingface_hub",
    "lingua", "py3langid", "yaml", "pytesseract", "lxml", "multipart", "python_multipart",
})


@dataclass
class Import:
    path: str  # file, relative to the repository root
    line: int
    target: str  # absolute dotted module name ("autofill.store.chroma_store", "chromadb")
    in_function: bool
    type_checking: bool


@dataclass
class Shape:
    modules: int = 0
    lines: dict[str, int] = field(default_factory=dict)
    imports: list[Import] = field(default_factory=list)
    retrieval_settings: int = 0


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(node: ast.ImportFrom, current: str, is_package: bool) -> list[str]:
    """The absolute modules a `from ... import ...` names (a name imported from a package may be a
    sub-module: `from autofill.store import chroma_store` is an import of autofill.store.chroma_store when
    that file exists; the caller checks)."""
    if node.level:
        base = current.split(".")
        if not is_package:
            base = base[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base)
        source = f"{prefix}.{node.module}" if node.module else prefix
    else:
        source = node.module or ""
    return [source] + [f"{source}.{alias.name}" for alias in node.names]


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(tree: ast.Module, current: str, is_package: bool, rel: str, known: set[str]) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            func = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            tc = type_checking or (isinstance(child, ast.If) and _type_checking(child.test))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(rel, child.lineno, alias.name, in_function, type_checking))
            elif isinstance(child, ast.ImportFrom):
                source, *names = resolve(child, current, is_package)
                subs = [name for name in names if name in known]
                # `from pkg import a, b` of sub-modules is one import of each; of names it is one import
                for target in subs or [source]:
                    found.append(Import(rel, child.lineno, target, in_function, type_checking))
            visit(child, func, tc)

    visit(tree, False, False)
    return found


def retrieval_fields(tree: ast.Module) -> int | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "RetrievalSettings":
            return sum(isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                       for item in node.body)
    return None


def measure(package_dir: Path) -> Shape:
    files = sorted(p for p in package_dir.rglob("*.py") if "__pycache__" not in p.parts)
    known = {module_name(p, package_dir) for p in files}
    shape = Shape(modules=len(files))
    for path in files:
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(package_dir.parent))
        shape.lines[rel] = len(text.splitlines())
        tree = ast.parse(text, filename=rel)
        shape.imports += imports_of(tree, module_name(path, package_dir), path.name == "__init__.py", rel, known)
        count = retrieval_fields(tree)
        if count is not None:
            shape.retrieval_settings = count
    return shape


def unit_of_module(module: str) -> str | None:
    """The unit a module of the package belongs to: `autofill.<a>` for a folder or a top-level module,
    None outside the package (and for the package's own __init__)."""
    parts = module.split(".")
    if parts[0] != PACKAGE or len(parts) < 2:
        return None
    return f"{PACKAGE}.{parts[1]}"


def unit_of_file(rel: str) -> str | None:
    parts = Path(rel).with_suffix("").parts
    if len(parts) < 2 or parts[1] == "__init__" or parts[1] == "__main__":
        return None
    return f"{PACKAGE}.{parts[1]}"


def edges(shape: Shape) -> dict[tuple[str, str], list[Import]]:
    found: dict[tuple[str, str], list[Import]] = defaultdict(list)
    for imp in shape.imports:
        a, b = unit_of_file(imp.path), unit_of_module(imp.target)
        if a and b and a != b:
            found[(a, b)].append(imp)
    return found


def components(nodes: set[str], graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    result.append(sorted(members))
    return result


def climbing(found: dict[tuple[str, str], list[Import]]) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """The cycles between units (as they are) and the edges taken out to leave none (see the docstring)."""
    graph: dict[str, set[str]] = defaultdict(set)
    nodes: set[str] = set()
    for a, b in found:
        graph[a].add(b)
        nodes |= {a, b}
    cycles = components(nodes, graph)
    removed: list[tuple[str, str]] = []
    while True:
        current = components(nodes, graph)
        if not current:
            break
        inside = [(a, b) for members in current for a in members for b in graph[a] if b in members]
        weakest = min(inside, key=lambda e: (len(found[e]), e))
        graph[weakest[0]].discard(weakest[1])
        removed.append(weakest)
    return cycles, removed


def summary(shape: Shape) -> dict:
    in_function = [imp for imp in shape.imports if imp.in_function]
    own = [imp for imp in in_function if imp.target.split(".")[0] == PACKAGE]
    heavy = [imp for imp in in_function if imp.target.split(".")[0] in HEAVY]
    other = [imp for imp in in_function if imp not in own and imp not in heavy]
    found = edges(shape)
    cycles, removed = climbing(found)
    long = sorted(((n, p) for p, n in shape.lines.items() if n > LONG), reverse=True)
    heavy_by_module: dict[str, int] = defaultdict(int)
    for imp in heavy:
        heavy_by_module[imp.target.split(".")[0]] += 1
    return {
        "modules": shape.modules,
        "lines": sum(shape.lines.values()),
        "long_modules": [{"path": p, "lines": n} for n, p in long],
        "imports_inside_functions": len(in_function),
        "inside_functions_own": len(own),
        "inside_functions_heavy": len(heavy),
        "inside_functions_heavy_by_module": dict(sorted(heavy_by_module.items(), key=lambda kv: -kv[1])),
        "inside_functions_other": len(other),
        "cycles": cycles,
        "units_in_cycles": sum(len(c) for c in cycles),
        "imports_that_climb": sum(len(found[e]) for e in removed),
        "climbing_edges": [
            {"from": a, "to": b, "imports": [f"{imp.path}:{imp.line} {imp.target}" for imp in found[(a, b)]]}
            for a, b in removed],
        "retrieval_settings": shape.retrieval_settings,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(ROOT / PACKAGE), help="the package folder (default: autofill/)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--own", action="store_true", help="list the package's own imports inside functions")
    args = parser.parse_args(argv)
    shape = measure(Path(args.root))
    figures = summary(shape)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"modules: {figures['modules']} ({figures['lines']} lines)")
    print(f"modules over {LONG} lines: {len(figures['long_modules'])}")
    for item in figures["long_modules"]:
        print(f"  {item['lines']:5d}  {item['path']}")
    print(f"imports inside functions: {figures['imports_inside_functions']} "
          f"(the package's own {figures['inside_functions_own']}, heavy third-party "
          f"{figures['inside_functions_heavy']}, other {figures['inside_functions_other']})")
    print("  heavy: " + ", ".join(f"{k} {v}" for k, v in figures["inside_functions_heavy_by_module"].items()))
    print(f"imports that climb back up between folders: {figures['imports_that_climb']} "
          f"({len(figures['cycles'])} cycle(s) tying {figures['units_in_cycles']} units)")
    for members in figures["cycles"]:
        print("  cycle: " + ", ".join(m.removeprefix(PACKAGE + ".") for m in members))
    for edge in figures["climbing_edges"]:
        print(f"  climbs: {edge['from']} -> {edge['to']}")
        for where in edge["imports"]:
            print(f"      {where}")
    print(f"retrieval settings: {figures['retrieval_settings']}")
    if args.own:
        for imp in shape.imports:
            if imp.in_function and imp.target.split(".")[0] == PACKAGE:
                print(f"  own in function: {imp.path}:{imp.line} {imp.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
