"""What a run reads from a company's store without opening Chroma: the store's snapshot and its searches.

Importing chromadb costs 1.6 s of CPU (2-3.5 s of wall time on this 2-core machine), most of a re-run
whose model replies and query vectors are all cached. So a run reads the store through `ReadStore`:

- The snapshot, `vectordb/<collection>.snapshot.json`, holds what a run needs besides searches: the
  store's company, embedder and manifest (its DocumentRecords), under a random `generation`. A writer
  deletes it when it takes the store's lock and writes a new one, with a new generation, when its write
  has finished (CompanyStore.writing); an interrupted write leaves none, so readers fall back to Chroma
  until the next write completes. Stores in a Chroma server (another machine may write them) and stores
  not written since this existed have none: they are read through Chroma as before.
- Search results (dense queries by their exact vector, keyword searches by their query, passages by
  id) are kept in `vectordb/.query-cache/searches-<collection>.sqlite` under the generation they were
  read in; a new generation empties the file. A search is answered from there, and Chroma is opened
  only for one not seen before, so a fully cached re-run never imports it.

A result is kept only if the snapshot's generation is still the current one after the search, so a
write that lands during a run never files new results under an old generation."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
import uuid
from array import array
from pathlib import Path
from typing import Any, Callable, Sequence

from autofill.errors import StoreMismatchError
from autofill.records import DocumentRecord, Passage
from autofill.settings import Settings
from autofill.sqlite_cache import BlobCache
from autofill.store import chroma_client as cc
from autofill.store import derived

log = logging.getLogger(__name__)

SNAPSHOT_VERSION = 1
# Bump when what a search returns changes for the same store (query depth, filtering, BM25 scoring,
# the Passage fields: 2 added has_table, which cached results of version 1 lack).
SEARCH_VERSION = 2
_GENERATION_KEY = "\x00generation"
_DOC_FIELDS = {f.name for f in dataclasses.fields(DocumentRecord)}
_PASSAGE_FIELDS = {f.name for f in dataclasses.fields(Passage)}


@dataclasses.dataclass(frozen=True)
class Snapshot:
    generation: str
    company: str
    collection: str
    embedder: str
    embedder_runtime: str
    last_ingest: str
    documents: dict[str, DocumentRecord]


def snapshot_path(settings: Settings, collection: str) -> Path:
    return derived.snapshot(settings.vectordb_dir, collection)


def _usable(settings: Settings) -> bool:
    """Snapshots are for embedded stores only: a Chroma server may be written from another machine."""
    return not settings.store.chroma_url


def drop_snapshot(settings: Settings, collection: str) -> None:
    """Called by a writer holding the store's lock, before it changes anything."""
    snapshot_path(settings, collection).unlink(missing_ok=True)


def write_snapshot(settings: Settings, store: Any) -> None:
    """Called by a writer holding the store's lock, after its write has completed: the store as it is
    now under a new generation. Any failure leaves no snapshot (readers then use Chroma)."""
    if not _usable(settings):
        return
    path = snapshot_path(settings, store.collection)
    try:
        data = {
            "version": SNAPSHOT_VERSION, "generation": uuid.uuid4().hex, "company": store.company,
            "collection": store.collection, "embedder": store.embedder_name,
            "embedder_runtime": store.embedder_runtime, "last_ingest": store.last_ingest(),
            "documents": [dataclasses.asdict(r) for r in store.documents().values()],
        }
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except Exception as exc:  # noqa: BLE001 - an optimisation: never fail the write that just completed
        log.debug("store snapshot not written (%s: %s)", type(exc).__name__, exc)
        drop_snapshot(settings, store.collection)


def read_snapshot(settings: Settings, company: str) -> Snapshot | None:
    """The company's snapshot, or None (server mode, none written yet, a write in progress, unreadable)."""
    if not _usable(settings) or not (settings.vectordb_dir / "chroma.sqlite3").exists():
        return None
    collection = cc.collection_name(company)
    try:
        data = json.loads(snapshot_path(settings, collection).read_text(encoding="utf-8"))
        if data.get("version") != SNAPSHOT_VERSION or data.get("collection") != collection:
            return None
        documents = [DocumentRecord(**{k: v for k, v in d.items() if k in _DOC_FIELDS}) for d in data["documents"]]
        return Snapshot(generation=str(data["generation"]), company=str(data["company"]), collection=collection,
                        embedder=str(data["embedder"]), embedder_runtime=str(data.get("embedder_runtime", "")),
                        last_ingest=str(data.get("last_ingest", "")),
                        documents={r.file_name: r for r in sorted(documents, key=lambda r: r.file_name)})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def heal_snapshot(settings: Settings, store: Any) -> bool:
    """After `read_snapshot` found none: when a snapshot file is there all the same, it is damaged (cut
    short, not JSON, of another version): said once, naming it, and written again from the store (under
    the store's write lock, `store.rewrite_snapshot`), so the runs after this one read it instead of
    opening Chroma. True when it was rebuilt."""
    if not _usable(settings):
        return False
    path = snapshot_path(settings, store.collection)
    if not path.is_file():
        return False  # none yet, or a write in progress (it drops the file): nothing damaged
    log.warning("the store's snapshot %s was damaged; rebuilding it from the store", path)
    try:
        store.rewrite_snapshot()
    except Exception as exc:  # noqa: BLE001 - an optimisation: the run reads Chroma either way
        log.debug("store snapshot not rebuilt (%s: %s)", type(exc).__name__, exc)
        return False
    return True


def _current_generation(settings: Settings, collection: str) -> str:
    try:
        return str(json.loads(snapshot_path(settings, collection).read_text(encoding="utf-8"))["generation"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def search_cache_path(settings: Settings, collection: str) -> Path:
    return derived.search_cache(settings.vectordb_dir, collection)


class SearchCache:
    """Search results of one store generation, in one SQLite file per store (sqlite_cache.BlobCache)."""

    def __init__(self, settings: Settings, snapshot: Snapshot) -> None:
        self.settings = settings
        self.snapshot = snapshot
        path = search_cache_path(settings, snapshot.collection)
        self.blobs = BlobCache(path, "search cache")
        self._first = threading.Lock()
        self._fresh_known: bool | None = None  # read on first use: a reader that never searches opens nothing

    @property
    def _fresh(self) -> bool:
        """Whether the file still holds another generation's results (or none)."""
        if self._fresh_known is None:
            stored = self.blobs.get_blobs([_GENERATION_KEY]).get(_GENERATION_KEY)
            self._fresh_known = stored != self.snapshot.generation.encode()
        return self._fresh_known

    def key(self, kind: str, payload: bytes) -> str:
        material = b"\x00".join([str(SEARCH_VERSION).encode(), self.snapshot.generation.encode(), kind.encode(),
                                 payload])
        return hashlib.sha256(material).hexdigest()

    def get(self, key: str) -> list[Passage] | None:
        if self._fresh:
            return None
        blob = self.blobs.get_blobs([key]).get(key)
        if blob is None:
            return None
        try:
            return [Passage(**{k: v for k, v in p.items() if k in _PASSAGE_FIELDS}) for p in json.loads(blob)]
        except (ValueError, TypeError):
            return None

    def put(self, key: str, passages: Sequence[Passage]) -> None:
        if _current_generation(self.settings, self.snapshot.collection) != self.snapshot.generation:
            return  # the store was written since the run read the snapshot: these results may be newer
        blob = json.dumps([dataclasses.asdict(p) for p in passages], ensure_ascii=False).encode("utf-8")
        with self._first:  # rows search from many threads: only the first put of a generation clears
            items = {key: blob}
            if self._fresh:  # the first result of this generation: drop the previous generation's
                items[_GENERATION_KEY] = self.snapshot.generation.encode()
            self.blobs.put_blobs(items, clear=self._fresh)
            self._fresh_known = False


class ReadStore:
    """A company's store as a run reads it: identity and manifest from the snapshot, searches from the
    search cache, Chroma opened once, lazily, for a search not seen before (`opener`)."""

    def __init__(self, settings: Settings, snapshot: Snapshot, opener: Callable[[], Any]) -> None:
        self.settings = settings
        self.snapshot = snapshot
        self.company = snapshot.company
        self.collection = snapshot.collection
        self.embedder_name = snapshot.embedder
        self.embedder_runtime = snapshot.embedder_runtime
        self.cache = SearchCache(settings, snapshot)
        self._opener = opener
        self._store: Any = None
        self._guard = threading.Lock()
        self.opened = False  # whether Chroma had to be opened (tests and benchmarks read this)

    def _chroma(self) -> Any:
        with self._guard:
            if self._store is None:
                self._store = self._opener()
                self.opened = True
            return self._store

    def warm(self) -> None:
        """Open Chroma now, e.g. in a thread while model calls are in flight, so the first search that
        misses the cache does not wait for its import."""
        self._chroma()

    def documents(self) -> dict[str, DocumentRecord]:
        return dict(self.snapshot.documents)

    def last_ingest(self) -> str:
        return self.snapshot.last_ingest

    def check_embedder(self, name: str) -> None:
        check_embedder(self.company, self.embedder_name, name)

    def _cached(self, kind: str, payload: bytes, search: Callable[[Any], list[Passage]]) -> list[Passage]:
        key = self.cache.key(kind, payload)
        found = self.cache.get(key)
        if found is None:
            found = search(self._chroma())
            self.cache.put(key, found)
        return found

    def query(self, embedding: Sequence[float], n: int) -> list[Passage]:
        if n <= 0:
            return []
        payload = array("d", (float(x) for x in embedding)).tobytes() + f"|{n}".encode()
        return self._cached("query", payload, lambda s: s.query(embedding, n))

    def bm25_search(self, query: str, n: int, language: str = "") -> list[Passage]:
        if not language:  # the key of before languages
            return self._cached("bm25", f"{n}|{query}".encode("utf-8"), lambda s: s.bm25_search(query, n))
        return self._cached("bm25", f"{n}|{language}|{query}".encode("utf-8"),
                            lambda s: s.bm25_search(query, n, language))

    def get_passages(self, ids: Sequence[str]) -> list[Passage]:
        if not ids:
            return []
        return self._cached("ids", "\x00".join(ids).encode("utf-8"), lambda s: s.get_passages(ids))

    def embed_texts(self) -> dict[str, str]:
        return self._chroma().embed_texts()

    def page_passages(self, pages: Sequence[tuple[str, int]]) -> list[Passage]:
        if not pages:
            return []
        payload = "\x00".join(f"{f}\x01{n}" for f, n in pages).encode("utf-8")
        return self._cached("pages", payload, lambda s: s.page_passages(pages))


def check_embedder(company: str, built_with: str, name: str) -> None:
    """Refuse to add to or query a store with vectors from another embedder than it was built with."""
    if name != built_with:
        raise StoreMismatchError(
            f"the evidence store for {company!r} was built with embedder {built_with}, "
            f"not {name}; leave out --embedder and --embedding-model (and embedding.provider / "
            f"embedding.model in settings or AUTOFILL_EMBEDDING__*) to keep the store's embedder, or "
            f"rebuild the store with `autofill forget --company {company!r}` and ingest again"
        )
