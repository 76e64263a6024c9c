"""`autofill forget`: everything autofill holds of a company, or of one of its documents, removed so
that its text cannot be read back from the workspace's files (a contract ending, a GDPR request).

Under the store's lock (CompanyStore.writing): the chunks, vectors and manifest records
(store/deleting.delete_from); then every file the store derives, walked from its one list
(store/derived.ENTRIES: the multilingual vectors, the content index, the keyword index and its token
lists, the search cache, the run checkpoints, the model response, query-vector and translation caches,
shared by every company and keyed by hashes, so they go whole and the next run of another company asks
again, and, for a whole company, its answer library: the CLI asks first, `--yes` answers); then the
database rebuilt and orphaned vector folders removed (store/reclaim.py). The report names each entry
removed with its size. The outputs (filled workbooks, review reports) are the user's: they are named,
never deleted. While a run, ask or re-answer of the company holds its turn (companylock.py) nothing is
deleted: one line names it (command, PID, since when)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.answer.checkpoint import safe_name
from autofill.frameworks.content_index import drop_document
from autofill.library.store import library_size
from autofill.settings import Settings
from autofill.store import chroma_store, deleting, derived, reclaim
from autofill.store.derived import Derived, OnForget, Owner


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


def owner(settings: Settings, store: Any) -> Owner:
    return Owner(settings, store.company, store.collection, safe_name(store.company))


def outputs(settings: Settings, company: str) -> list[Path]:
    """Outputs in the workspace's reports folder whose names carry the company's (kept: they are the user's)."""
    folder = settings.reports_dir
    name = safe_name(company)
    return sorted(p for p in folder.rglob("*") if p.is_file() and name in p.name
                  and derived.CHECKPOINTS not in p.parts) if folder.is_dir() else []


def _forget_entry(item: Derived, who: Owner, doc: str | None, library: bool) -> Removed | None:
    """One derived file or folder forgotten as its entry says; what went and its size (None: nothing)."""
    paths = item.locate(who)
    files, size = _measure(paths)
    if not files:
        return None
    action = item.on_forget
    what = item.what
    if action in (OnForget.KEPT, OnForget.RENEWED):
        return None
    if action is OnForget.WITH_STORE and doc is not None:
        return None  # rebuilt from the store's other documents (store/deleting.delete_from)
    if action is OnForget.LIBRARY:
        if doc is not None or not library:
            return None
        what = f"{what} ({library_size(who.settings, who.company)} entries)"
    if action is OnForget.DOCUMENT_ENTRY and doc is not None:
        if not drop_document(who.settings, who.collection, doc):
            return None
        left_files, left = _measure(paths)
        return Removed(f"{what} ({doc}'s entry)", 1, max(size - left, 0), unit="entry")
    _remove(paths)
    return Removed(what, files, size)


def forget(settings: Settings, company: str, doc: str | None = None, library: bool = True) -> ForgetReport:
    """Remove what autofill holds of `company` (or of its document `doc`) and say what and how much:
    under the store's lock, its chunks (store/deleting.delete_from), then every file the store
    derives (store/derived.ENTRIES, each as its entry says), then the database reclaimed.
    `library`: also the company's answer library (whole company only)."""
    removed: list[Removed] = []
    notes: list[str] = []
    store = chroma_store.open_store(settings, company)
    deleting.check_document(store, doc)
    who = owner(settings, store)
    reclaimed = None
    with store.writing("forget", wait_s=0):  # refused at once while a run, ask or re-answer reads it
        message, deleted = deleting.delete_from(store, doc)
        for item in derived.ENTRIES:
            gone = _forget_entry(item, who, doc, library)
            if gone is not None:
                removed.append(gone)
        if not settings.store.chroma_url:
            reclaimed = reclaim.reclaim(settings.vectordb_dir, deleted)
    # The lock files stay: deleting one under a waiting process would let two writers in.
    if reclaimed is not None:
        if reclaimed.folders:
            removed.insert(0, Removed("orphaned vector folders", reclaimed.folders, reclaimed.folder_bytes,
                                      unit="folder"))
        if reclaimed.freed_bytes:
            removed.insert(0, Removed("the deleted chunks, vectors and free pages of chroma.sqlite3", 1,
                                      reclaimed.freed_bytes))
        if reclaimed.problem:
            notes.append(f"warning: {reclaimed.problem}")
    else:
        notes.append("the Chroma server keeps its own files: its free space is reclaimed by the server")
    if doc is None and not library and library_size(settings, company):
        notes.append(f"kept: the answer library of {company} (--keep-library)")
    kept = outputs(settings, company)
    if kept:
        notes.append(f"kept: {_files(len(kept))} in {settings.reports_dir} named for {company} "
                     "(filled workbooks, review reports: yours to delete)")
    return ForgetReport(company, doc, message, removed, notes)
