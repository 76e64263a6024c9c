"""`autofill forget`: everything autofill holds of a company, or of one of its documents, removed so
that its text cannot be read back from the workspace's files (a contract ending, a GDPR request).

Under the store's lock (store/chroma_store.forget): the chunks, vectors and manifest records; the
keyword index and its token lists; the store's search cache; the database rebuilt and orphaned vector
folders removed (store/reclaim.py); then, still under the lock, what lives beside the store: the
company's run checkpoints in the workspace's reports folder, the model response cache and the
query-vector cache (shared by every company and keyed by hashes, so the company's entries cannot be
told apart: they go whole, and the next run of another company asks again), and, for a whole
company, its answer library (the CLI asks first; `--yes` answers). The outputs (filled workbooks,
review reports) are the user's: they are named, never deleted. While a run, ask or re-answer of the
company holds its turn (companylock.py) nothing is deleted: one line names it (command, PID, since when)."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.settings import Settings


@dataclass
class Removed:
    what: str
    files: int
    size: int  # bytes
    unit: str = "file"  # what `files` counts


@dataclass
class ForgetReport:
    company: str
    doc: str | None
    message: str  # the store's line: "Forgot the evidence store for X (2 documents)."
    removed: list[Removed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(r.size for r in self.removed)

    def text(self) -> str:
        lines = [self.message]
        lines += [f"  removed {r.what}: {_files(r.files, r.unit)}, {human_size(r.size)}" for r in self.removed]
        lines.append(f"  {human_size(self.size)} in all")
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"company": self.company, "doc": self.doc, "result": self.message, "bytes": self.size,
                "removed": [{"what": r.what, "files": r.files, "bytes": r.size} for r in self.removed],
                "notes": self.notes}


def human_size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _files(n: int, unit: str = "file") -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _measure(paths: list[Path]) -> tuple[int, int]:
    files = size = 0
    for path in paths:
        if path.is_file():
            files, size = files + 1, size + path.stat().st_size
        elif path.is_dir():
            for p in path.rglob("*"):
                if p.is_file():
                    files, size = files + 1, size + p.stat().st_size
    return files, size


def _remove(paths: list[Path]) -> None:
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists():
            path.unlink(missing_ok=True)


def _sqlite_files(path: Path) -> list[Path]:
    return [path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))]


def checkpoints(settings: Settings, company: str) -> list[Path]:
    """The company's run checkpoints in the workspace's reports folder (answer/checkpoint.py names them
    `<company>_<questionnaire>_<settings>.jsonl`; another company's name may begin with this one's)."""
    from autofill.answer.checkpoint import safe_name

    folder = settings.reports_dir / ".checkpoints"
    pattern = re.compile(re.escape(safe_name(company)) + r"_[0-9a-f]{12}_[0-9a-f]{12}\.jsonl(\.[^/]*)?$")
    return sorted(p for p in folder.glob("*") if pattern.match(p.name)) if folder.is_dir() else []


def shared_caches(settings: Settings) -> list[tuple[str, list[Path]]]:
    from autofill.search.translation import cache_path as translations
    from autofill.providers.query_cache import cache_path

    return [("the model response cache (all companies)", [settings.cache_dir]),
            ("the query-vector cache (all companies)", _sqlite_files(cache_path(settings.vectordb_dir))),
            ("the translation cache (all companies)", _sqlite_files(translations(settings.vectordb_dir)))]


def outputs(settings: Settings, company: str) -> list[Path]:
    """Outputs in the workspace's reports folder whose names carry the company's (kept: they are the user's)."""
    from autofill.answer.checkpoint import safe_name

    folder = settings.reports_dir
    name = safe_name(company)
    return sorted(p for p in folder.rglob("*") if p.is_file() and name in p.name
                  and ".checkpoints" not in p.parts) if folder.is_dir() else []


def forget(settings: Settings, company: str, doc: str | None = None, library: bool = True) -> ForgetReport:
    """Remove what autofill holds of `company` (or of its document `doc`) and say what and how much.
    `library`: also the company's answer library (whole company only)."""
    from autofill.library.store import delete_library, library_size
    from autofill.store import chroma_store
    from autofill.store.snapshot import search_cache_path

    removed: list[Removed] = []
    notes: list[str] = []

    def rest(store: Any) -> None:
        # Under the store's lock, after its chunks went and before the database is rebuilt.
        groups = [("the company's run checkpoints", checkpoints(settings, company)), *shared_caches(settings)]
        for what, paths in groups:
            files, size = _measure(paths)
            _remove(paths)
            if files:
                removed.append(Removed(what, files, size))
        if doc is None and library:
            entries, size = delete_library(settings, company)
            if size:
                removed.append(Removed(f"the answer library ({entries} entries)", 1, size))

    store = chroma_store.open_store(settings, company)
    collection = store.collection
    store_paths = [store.bm25_dir, store.bm25_tokens.folder] if doc is None else []
    store_files, store_size = _measure(store_paths)
    search_files, search_size = _measure(_sqlite_files(search_cache_path(settings, collection)))
    message, reclaimed = chroma_store.forget_from(store, doc, also=rest)
    if store_files:
        removed.insert(0, Removed("the keyword index and its token lists", store_files, store_size))
    if search_files:
        removed.insert(0, Removed("the store's search cache", search_files, search_size))
    if reclaimed is not None:
        if reclaimed.freed_bytes:
            removed.insert(0, Removed("the deleted chunks, vectors and free pages of chroma.sqlite3", 1,
                                      reclaimed.freed_bytes))
        if reclaimed.folders:
            removed.insert(1, Removed("orphaned vector folders", reclaimed.folders, reclaimed.folder_bytes,
                                      unit="folder"))
        if reclaimed.problem:
            notes.append(f"warning: {reclaimed.problem}")
    elif settings.store.chroma_url:
        notes.append("the Chroma server keeps its own files: its free space is reclaimed by the server")
    if doc is None and not library and library_size(settings, company):
        notes.append(f"kept: the answer library of {company} (--keep-library)")
    kept = outputs(settings, company)
    if kept:
        notes.append(f"kept: {_files(len(kept))} in {settings.reports_dir} named for {company} "
                     "(filled workbooks, review reports: yours to delete)")
    return ForgetReport(company, doc, message, removed, notes)

