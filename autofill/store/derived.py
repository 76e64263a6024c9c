"""Every file and folder autofill derives from a company's reports, declared once (issue 44).

Each entry says what it is, where it lives (its path function: every module that reads or writes it
asks here), whether it belongs to one company or is shared by all (shared caches are keyed by hashes,
so a company's entries cannot be told apart: `forget` removes them whole), and what `autofill forget`
does with it. `forget.py` walks `ENTRIES`; nothing else decides what forgetting a company removes.

Paths only: this module imports nothing of the package but the settings and the two lower modules that
name their own files (companylock.py its turn locks, providers/query_cache.py the query-vector cache), so
that neither climbs back up into store/ (bottom layer of store/)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable

from autofill import companylock
from autofill.providers import query_cache
from autofill.settings import Settings

QUERY_CACHE = query_cache.FOLDER
CHECKPOINTS = ".checkpoints"


class Scope(Enum):
    COMPANY = "company"  # one company's: named by its collection (or its name)
    SHARED = "shared"  # every company's entries in one place, keyed by hashes


class OnForget(Enum):
    REMOVE = "removed"  # forgetting the company or one of its documents removes it
    WITH_STORE = "removed with the whole store"  # one document forgotten: rebuilt from the rest by the store
    DOCUMENT_ENTRY = "removed, or its document's entry"  # one document forgotten: that entry only
    LIBRARY = "removed with the whole company unless kept"  # the answer library (--keep-library)
    RENEWED = "renewed by the store's write"  # dropped when a write starts, written when it completes
    KEPT = "kept"  # lock files: deleting one under a waiting process would let two writers in


# ---------------------------------------------------------------- path functions (one per derived file)

def multilingual_index(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / ".multilingual" / f"{collection}.npz"


def content_index(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / ".content-index" / f"{collection}.json"


def boilerplate(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / ".boilerplate" / f"{collection}.json"


def keyword_index(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / "bm25" / collection


def token_lists(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / "bm25" / f"{collection}.tokens"


def snapshot(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / f"{collection}.snapshot.json"


def search_cache(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / QUERY_CACHE / f"searches-{collection}.sqlite"


def response_cache(vectordb: Path) -> Path:
    return Path(vectordb) / ".llm-cache"


def query_vectors(vectordb: Path) -> Path:
    return query_cache.cache_path(vectordb)


def translations(vectordb: Path) -> Path:
    return Path(vectordb) / QUERY_CACHE / "translations.sqlite"


def library(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / "library" / f"{collection}.sqlite3"


def turn_lock(vectordb: Path, collection: str) -> Path:
    return companylock.lock_path(vectordb, collection)


def store_lock(vectordb: Path, collection: str) -> Path:
    return Path(vectordb) / f"{collection}.lock"


def checkpoint_folder(reports_dir: Path) -> Path:
    return Path(reports_dir) / CHECKPOINTS


def checkpoint_name(company_name: str, questionnaire_sha: str, settings_fp: str) -> str:
    """`company_name`: the company as a file name (answer/checkpoint.safe_name)."""
    return f"{company_name}_{questionnaire_sha[:12]}_{settings_fp[:12]}.jsonl"


def checkpoints(reports_dir: Path, company_name: str) -> list[Path]:
    """The company's run checkpoints (another company's name may begin with this one's)."""
    folder = checkpoint_folder(reports_dir)
    pattern = re.compile(re.escape(company_name) + r"_[0-9a-f]{12}_[0-9a-f]{12}\.jsonl(\.[^/]*)?$")
    return sorted(p for p in folder.glob("*") if pattern.match(p.name)) if folder.is_dir() else []


def sqlite_files(path: Path) -> list[Path]:
    """A SQLite file with its journals."""
    return [path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))]


# ---------------------------------------------------------------- the registry

@dataclass(frozen=True)
class Owner:
    """Whose derived files: the workspace's settings, the company and its store's collection name."""
    settings: Settings
    company: str
    collection: str
    company_name: str  # the company as a file name (checkpoints)

    @property
    def vectordb(self) -> Path:
        return self.settings.vectordb_dir


@dataclass(frozen=True)
class Derived:
    name: str
    what: str  # as the forget report names it
    scope: Scope
    on_forget: OnForget
    locate: Callable[[Owner], list[Path]]  # every path it may occupy (journals included)


ENTRIES: tuple[Derived, ...] = (
    Derived("multilingual", "the multilingual vectors", Scope.COMPANY, OnForget.REMOVE,
            lambda o: [multilingual_index(o.vectordb, o.collection)]),
    Derived("content_index", "the content index", Scope.COMPANY, OnForget.DOCUMENT_ENTRY,
            lambda o: [content_index(o.vectordb, o.collection)]),
    Derived("boilerplate", "the boilerplate pages' scores", Scope.COMPANY, OnForget.REMOVE,
            lambda o: [boilerplate(o.vectordb, o.collection)]),
    Derived("keyword_index", "the keyword index and its token lists", Scope.COMPANY, OnForget.WITH_STORE,
            lambda o: [keyword_index(o.vectordb, o.collection), token_lists(o.vectordb, o.collection)]),
    Derived("snapshot", "the store's snapshot", Scope.COMPANY, OnForget.RENEWED,
            lambda o: [snapshot(o.vectordb, o.collection)]),
    Derived("search_cache", "the store's search cache", Scope.COMPANY, OnForget.REMOVE,
            lambda o: sqlite_files(search_cache(o.vectordb, o.collection))),
    Derived("checkpoints", "the company's run checkpoints", Scope.COMPANY, OnForget.REMOVE,
            lambda o: checkpoints(o.settings.reports_dir, o.company_name)),
    Derived("response_cache", "the model response cache (all companies)", Scope.SHARED, OnForget.REMOVE,
            lambda o: [o.settings.cache_dir]),
    Derived("query_vectors", "the query-vector cache (all companies)", Scope.SHARED, OnForget.REMOVE,
            lambda o: sqlite_files(query_vectors(o.vectordb))),
    Derived("translations", "the translation cache (all companies)", Scope.SHARED, OnForget.REMOVE,
            lambda o: sqlite_files(translations(o.vectordb))),
    Derived("library", "the answer library", Scope.COMPANY, OnForget.LIBRARY,
            lambda o: sqlite_files(library(o.vectordb, o.collection))),
    Derived("locks", "the company's turn and write locks", Scope.COMPANY, OnForget.KEPT,
            lambda o: [turn_lock(o.vectordb, o.collection), store_lock(o.vectordb, o.collection)]),
)


def entry(name: str) -> Derived:
    return next(e for e in ENTRIES if e.name == name)
