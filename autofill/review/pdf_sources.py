"""Find the PDF behind each cited file name, for page images and "open at page" links.

Where to look, first hit wins: paths the caller passes (the run pipeline knows them), a `documents`
entry in the Run info sheet (JSON: file name -> path), the evidence store's record of where each
document was ingested from, then a bounded search of the output's folder and the workspace. A file
that cannot be found gets a note naming where it was expected, and the report renders without its
images rather than failing."""

from __future__ import annotations

import json
import os
from autofill.hashing import file_sha256 as _sha256
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping
from autofill.store.reading import open_for_reading

_SKIP_DIRS = {"vectordb", ".git", "node_modules", "__pycache__", ".venv", "venv", ".tox"}
_MAX_DEPTH = 4
_MAX_ENTRIES = 20000


@dataclass
class PdfSource:
    file_name: str
    path: Path | None  # None: not found
    note: str = ""  # why it is missing, or a warning about it (changed since ingest)

    def link(self, page: int) -> str:
        """`file:///abs/path.pdf#page=N`, the form browsers' PDF viewers open at that page."""
        return f"{self.path.resolve().as_uri()}#page={page}" if self.path else ""




def run_info_documents(value: str) -> dict[str, Path]:
    """The Run info `documents` entry: a JSON object of file name -> path (other shapes ignored)."""
    try:
        data = json.loads(value) if value else {}
    except json.JSONDecodeError:
        return {}
    if isinstance(data, list):  # [{"file_name": ..., "path"/"source_path": ...}, ...]
        data = {d.get("file_name") or d.get("file"): d.get("source_path") or d.get("path")
                for d in data if isinstance(d, dict)}
    if not isinstance(data, dict):
        return {}
    return {str(k): Path(str(v)) for k, v in data.items() if k and v}


def store_documents(settings, company: str) -> tuple[dict[str, tuple[Path, str]], str]:
    """file name -> (source path, sha256) from the company's evidence store, plus a note on failure."""
    try:

        store = open_for_reading(settings, company)
        try:
            records = store.documents()  # file name -> DocumentRecord
            if isinstance(records, dict):
                records = list(records.values())
        finally:
            close = getattr(store, "close", None)
            if callable(close):
                close()
    except Exception as exc:  # a missing or locked store must not stop the report
        return {}, f"evidence store for {company!r} unavailable ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    return {r.file_name: (Path(r.source_path), r.sha256) for r in records if r.source_path}, ""


def _walk_for(names: set[str], roots: list[Path]) -> dict[str, Path]:
    """Bounded breadth-first search for files with these exact names under the roots."""
    found: dict[str, Path] = {}
    seen = 0
    queue = [(root, 0) for root in roots if root.is_dir()]
    visited: set[Path] = set()
    while queue and len(found) < len(names) and seen < _MAX_ENTRIES:
        folder, depth = queue.pop(0)
        try:
            real = folder.resolve()
            if real in visited:
                continue
            visited.add(real)
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            try:
                if entry.is_file() and entry.name in names and entry.name not in found:
                    found[entry.name] = Path(entry.path)
                elif (entry.is_dir(follow_symlinks=False) and depth < _MAX_DEPTH
                      and entry.name not in _SKIP_DIRS and not entry.name.startswith(".")):
                    queue.append((Path(entry.path), depth + 1))
            except OSError:
                continue
    return found


def locate_pdfs(settings, file_names: list[str], *, company: str = "",
                pdf_paths: Mapping[str, Path | str] | None = None, run_info_docs: str = "",
                search_roots: list[Path] = ()) -> tuple[dict[str, PdfSource], list[str]]:
    """Where each cited file is, and general notes (such as an unavailable store) for the report."""
    notes: list[str] = []
    sources: dict[str, PdfSource] = {}
    expected: dict[str, Path] = {}  # where a file should have been, for the "not found" note

    explicit = {str(k): Path(v) for k, v in (pdf_paths or {}).items()}
    explicit = {**run_info_documents(run_info_docs), **explicit}
    recorded: dict[str, tuple[Path, str]] = {}
    pending = [n for n in file_names if n]
    if company and any(n not in explicit for n in pending):
        recorded, note = store_documents(settings, company)
        if note:
            notes.append(note)

    workspace = Path(getattr(settings, "workspace", "."))
    for name in pending:
        for candidate, sha in ((explicit.get(name), ""), *([recorded[name]] if name in recorded else [])):
            if candidate is None:
                continue
            if not candidate.is_absolute() and (workspace / candidate).is_file():
                candidate = workspace / candidate  # a path recorded relative to the workspace
            if candidate.is_file():
                note = ""
                if sha and _sha256(candidate) != sha:
                    note = f"{candidate} has changed since it was ingested; pages may not match the evidence"
                sources[name] = PdfSource(name, candidate, note)
                break
            expected.setdefault(name, candidate)
    missing = {n for n in pending if n not in sources}
    if missing:
        found = _walk_for(missing, [Path(r) for r in search_roots])
        for name in missing:
            if name in found:
                sources[name] = PdfSource(name, found[name])
            else:
                where = expected.get(name)
                sources[name] = PdfSource(name, None, f"PDF not found at {where}" if where else
                                          f"PDF not found: {name} is not in the evidence store's records "
                                          "or under the workspace")
    return sources, notes
