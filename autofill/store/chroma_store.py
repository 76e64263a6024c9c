"""One evidence store per company: a Chroma collection of chunks plus a companion manifest collection.

Layout (identical in embedded and server mode, so both behave the same):
  <collection>        chunks with our own embeddings (cosine space); metadata on each chunk: company,
                      file_name, doc_sha256, page_start, page_end, section, chunk_index, has_table,
                      content_hash, ocr (text read by OCR), page_label (printed number of
                      page_start) and page_labels ("|"-joined, one per page). Collection
                      metadata: company (display name), embedder, created_at, last_ingest.
  <collection>.docs   the manifest: one record per document (id = file name, metadata = DocumentRecord;
                      its warnings list as a JSON string).

Consistency: the manifest is the truth. Readers only see chunks whose doc_sha256 is the manifest's hash for
their document, so replacing a document writes the new chunks first (invisible), then flips the manifest
record (one atomic upsert), then deletes the old chunks. A crash at any point leaves either the old or the new
version visible, never a mix; leftovers are swept at the start of the next write after an interrupted one
(the `write_open` collection marker says so, so a clean store is never scanned whole). Reads never filter
on document hashes (that cost grew with the store); they check the metadata Chroma returns against the
manifest. Writers hold a file lock (`vectordb/<collection>.lock`) because Chroma is not safe for
concurrent writing processes."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Sequence

from autofill.companylock import EXCLUSIVE, CompanyTurn
from autofill.errors import InputError
from autofill.providers.factory import embedder_name
from autofill.records import Chunk, DocumentRecord, Passage, StoreInfo
from autofill.redact import safe_url
from autofill.settings import Settings
from autofill.store import chroma_client as cc
from autofill.store.bm25_index import BM25Index
from autofill.store.chroma_meta import chunk_meta, passage_from, record_from_meta, record_meta, now_iso
from autofill.store.keyword import KeywordSearch
from autofill.store import derived
from autofill.store.snapshot import check_embedder, drop_snapshot, write_snapshot

_locks: dict[str, Any] = {}
_locks_guard = threading.Lock()
# Extra nearest neighbours a dense query asks for beyond n, to make up for chunks outside the manifest.
_QUERY_SLACK = 8
# Collection metadata key set while a document is being written and cleared when the write completes:
# a crash leaves it set, and only then does the next writer sweep every chunk's metadata for leftovers.
_WRITE_OPEN = "write_open"


class CompanyStore(KeywordSearch):
    """A company's evidence store. Create through `open_store`. Keyword search (BM25) is in
    store/keyword.py."""

    def __init__(self, settings: Settings, client: Any, chunks_col: Any, docs_col: Any):
        self.settings = settings
        self._client = client
        self._chunks = chunks_col
        self._docs = docs_col
        meta = chunks_col.metadata or {}
        self.collection: str = chunks_col.name
        self.company: str = str(meta.get("company", ""))
        self.embedder_name: str = str(meta.get("embedder", ""))
        # How the local model ran when the store was built: "onnx" or "torch"; stores from before the
        # ONNX runtime have none and were built with torch (same model, vectors within 0.999 cosine).
        self.embedder_runtime: str = str(meta.get("embedder_runtime", "torch" if self.embedder_name.startswith("local:") else ""))
        self.created_at: str = str(meta.get("created_at", ""))
        self._lock: Any = None
        self._bm25: BM25Index | None = None
        self._bm25_guard = threading.Lock()  # answer workers search from several threads at once

    # ------------------------------------------------------------------------------ reading

    def documents(self) -> dict[str, DocumentRecord]:
        got = self._docs.get(include=["metadatas"])
        records = [record_from_meta(m) for m in got["metadatas"] or []]
        return {r.file_name: r for r in sorted(records, key=lambda r: r.file_name)}

    def last_ingest(self) -> str:
        return str(self._collection_meta().get("last_ingest", ""))

    def info(self) -> StoreInfo:
        return StoreInfo(
            company=self.company,
            collection=self.collection,
            embedder=self.embedder_name,
            embedder_runtime=self.embedder_runtime,
            documents=list(self.documents().values()),
            last_ingest=self.last_ingest(),
        )

    def _current(self) -> set[tuple[str, str]]:
        """(file name, hash) of the manifest's current document versions: the chunks readers may see."""
        return {(r.file_name, r.sha256) for r in self.documents().values()}

    @staticmethod
    def _is_current(meta: dict[str, Any] | None, current: set[tuple[str, str]]) -> bool:
        meta = meta or {}
        return (meta.get("file_name"), meta.get("doc_sha256")) in current

    def chunk_count(self) -> int:
        """Chunks readers can see (a full metadata scan: for reports and tests, not the query path)."""
        current = self._current()
        if not current:
            return 0
        metas = self._chunks.get(include=["metadatas"])["metadatas"] or []
        return sum(1 for m in metas if self._is_current(m, current))

    def check_embedder(self, name: str) -> None:
        """Refuse to add to or query this store with vectors from another embedder than it was built with."""
        check_embedder(self.company, self.embedder_name, name)

    def query(self, embedding: Sequence[float], n: int) -> list[Passage]:
        """The `n` nearest chunks of current document versions by cosine similarity (score = similarity,
        rank 1..n). No where-filter on document hashes: Chroma evaluates such a filter against every
        chunk's metadata, so query time grew with the store (90 ms instead of 7 ms at 17.5k chunks).
        Instead a little extra depth is asked for and chunks outside the manifest (only ever present
        between a crashed write and the next one's sweep, or during a replace) are dropped here; in the
        rare case too few remain, the depth doubles."""
        current = self._current()
        if not current or n <= 0:
            return []
        total = self._chunks.count()
        depth = min(total, n + max(_QUERY_SLACK, n // 4))
        while True:
            res = self._chunks.query(query_embeddings=[list(embedding)], n_results=depth,
                                     include=["documents", "metadatas", "distances"])
            rows = [(cid, text, meta, dist) for cid, text, meta, dist in
                    zip(res["ids"][0], res["documents"][0], res["metadatas"][0], res["distances"][0])
                    if self._is_current(meta, current)]
            if len(rows) >= n or depth >= total:
                break
            depth = min(total, depth * 2)
        return [passage_from(cid, text, meta, score=1.0 - float(dist), rank=i)
                for i, (cid, text, meta, dist) in enumerate(rows[:n], start=1)]

    def get_passages(self, ids: Sequence[str]) -> list[Passage]:
        """Passages for chunk ids, in the order asked; ids not (or no longer) current are left out. Fetched
        by id, then checked against the manifest (no where-filter: see `query`)."""
        if not ids:
            return []
        current = self._current()
        got = self._chunks.get(ids=list(dict.fromkeys(ids)), include=["documents", "metadatas"])
        found = {cid: passage_from(cid, text, meta) for cid, text, meta in
                 zip(got["ids"], got["documents"], got["metadatas"]) if self._is_current(meta, current)}
        return [found[i] for i in ids if i in found]

    def embed_texts(self) -> dict[str, str]:
        """Every current chunk's id and the text its vector was made from (records.Chunk.embed_text), for
        an index of other vectors (store/multilingual.py). A full scan, made once per run that needs it."""
        current = self._current()
        got = self._chunks.get(include=["documents", "metadatas"])
        return {cid: "\n".join(part for part in (str(meta.get("section") or ""), str(meta.get("context") or ""),
                                                 text or "") if part)
                for cid, text, meta in zip(got["ids"], got["documents"], got["metadatas"])
                if self._is_current(meta, current)}

    def page_passages(self, pages: Sequence[tuple[str, int]]) -> list[Passage]:
        """The current chunks covering each (file name, page), in the order asked (a chunk once): what a
        Sources cell cites, for checking an answer that was not retrieved in this run (a reused library
        answer, a hand-edited row)."""
        if not pages:
            return []
        current = self._current()
        out: dict[str, Passage] = {}
        for name in dict.fromkeys(f for f, _ in pages):
            got = self._chunks.get(where={"file_name": name}, include=["documents", "metadatas"])
            chunks = [passage_from(cid, text, meta) for cid, text, meta in
                      zip(got["ids"], got["documents"], got["metadatas"]) if self._is_current(meta, current)]
            chunks.sort(key=lambda c: (c.page_start, c.chunk_id))
            for f, n in pages:
                if f == name:
                    out.update((c.chunk_id, c) for c in chunks if c.page_start <= n <= max(c.page_start, c.page_end))
        return list(out.values())

    # ------------------------------------------------------------------------------ writing

    @contextlib.contextmanager
    def writing(self, label: str = "ingest", wait_s: float | None = None) -> Iterator["CompanyStore"]:
        """Hold the company's turn exclusively (companylock.py: no run, ask or re-answer reads it meanwhile;
        `label` and `wait_s` as CompanyTurn's: forget waits 0 s) and the store's file lock (both re-entrant
        in this process), sweep leftovers of a crashed write, and replace the store's snapshot
        (store/snapshot.py) when the outermost write completes."""
        with CompanyTurn(self.settings, self.company or self.collection, EXCLUSIVE, label, wait_s=wait_s,
                         collection=self.collection):
            with self._writing() as store:
                yield store

    @contextlib.contextmanager
    def _writing(self) -> Iterator["CompanyStore"]:
        from filelock import FileLock, Timeout

        if self._lock is None:
            self.settings.vectordb_dir.mkdir(parents=True, exist_ok=True)
            path = str(derived.store_lock(self.settings.vectordb_dir, self.collection).resolve())
            # One lock object per path in this process, so nested writers re-enter instead of deadlocking.
            with _locks_guard:
                self._lock = _locks.setdefault(path, FileLock(path))
        try:
            self._lock.acquire(timeout=self.settings.store.lock_timeout_s)
        except Timeout:
            raise InputError(
                f"the evidence store for {self.company!r} is being written by another process "
                f"(lock {self._lock.lock_file}); try again when it has finished"
            ) from None
        try:
            if self._lock.lock_counter == 1:
                # Runs read the store's snapshot instead of Chroma (store/snapshot.py): gone while it changes.
                drop_snapshot(self.settings, self.collection)
                if self._collection_meta().get(_WRITE_OPEN, "unknown"):
                    # An earlier write was interrupted (or the store predates the marker): sweep once.
                    self._sweep()
                    self._mark_write_open(False)
            yield self
            if self._lock.lock_counter == 1:  # the whole write completed: a new snapshot generation
                write_snapshot(self.settings, self)
        finally:
            self._lock.release()

    def rewrite_snapshot(self) -> None:
        """A new snapshot of the store as it is (store/snapshot.heal_snapshot, for a damaged one): under the
        store's write lock, not the company's turn (the reader asking holds that shared already)."""
        with self._writing():
            pass

    def _sweep(self) -> None:
        """Delete chunks no manifest record points at: the new chunks of a replace that crashed before its
        manifest flip, or the old chunks of one that crashed after it."""
        current = {(r.file_name, r.sha256) for r in self.documents().values()}
        got = self._chunks.get(include=["metadatas"])
        stale = [cid for cid, meta in zip(got["ids"], got["metadatas"])
                 if (meta.get("file_name"), meta.get("doc_sha256")) not in current]
        self._delete_ids(stale)

    def _collection_meta(self) -> dict[str, Any]:
        """The chunk collection's metadata as stored now (another process may have changed it)."""
        col = self._client.get_collection(self.collection, embedding_function=cc.refusing_embedding_function())
        return dict(col.metadata or {})

    def _mark_write_open(self, open_: bool) -> None:
        meta = self._collection_meta()
        meta[_WRITE_OPEN] = now_iso() if open_ else ""
        self._chunks.modify(metadata=meta)

    def _delete_ids(self, ids: list[str]) -> None:
        size = self._client.get_max_batch_size()
        for part in cc.batched(ids, size):
            self._chunks.delete(ids=ids[part])

    def replace_document(self, record: DocumentRecord, chunks: Sequence[Chunk],
                         embeddings: Sequence[Sequence[float]]) -> None:
        """Add or replace one document: new chunks first, then the manifest flip, then old chunks go."""
        if len(chunks) != len(embeddings):
            raise ValueError("one embedding per chunk is needed")
        if any(c.file_name != record.file_name or c.doc_sha256 != record.sha256 for c in chunks):
            raise ValueError("chunks belong to another document than the record")
        with self.writing():
            self._mark_write_open(True)
            size = self._client.get_max_batch_size()
            ids = [c.id for c in chunks]
            for part in cc.batched(ids, size):
                self._chunks.upsert(
                    ids=ids[part],
                    embeddings=[list(e) for e in embeddings[part]],
                    documents=[c.text for c in chunks[part]],
                    metadatas=[chunk_meta(c) for c in chunks[part]],
                )
            self._docs.upsert(ids=[record.file_name], embeddings=[[1.0]],
                              metadatas=[record_meta(record)])
            self._keep_tokens(record, chunks)  # for the keyword index, rebuilt once the ingest ends
            # Everything else filed under this name goes: older versions, and surplus chunks of a re-ingest
            # of the same bytes with other chunking settings.
            keep = set(ids)
            old = self._chunks.get(where={"file_name": record.file_name}, include=[])["ids"]
            self._delete_ids([i for i in old if i not in keep])
            self._mark_write_open(False)

    def delete_document(self, file_name: str) -> bool:
        """Forget one document: manifest record first (its chunks vanish for readers), then its chunks."""
        with self.writing():
            if file_name not in self.documents():
                return False
            self._mark_write_open(True)
            self._docs.delete(ids=[file_name])
            ids = self._chunks.get(where={"file_name": file_name}, include=[])["ids"]
            self._delete_ids(ids)
            self._mark_write_open(False)
            return True

    def touch(self) -> None:
        """Record the time of the latest ingest in the collection metadata."""
        meta = self._collection_meta()
        meta["last_ingest"] = now_iso()
        self._chunks.modify(metadata=meta)


# ---------------------------------------------------------------------------------- entry points


def _no_local_db(settings: Settings) -> bool:
    """Embedded mode without a database yet: answer "no store" without creating one."""
    return not settings.store.chroma_url and not (settings.vectordb_dir / "chroma.sqlite3").exists()


def _open(settings: Settings, company: str) -> CompanyStore | None:
    if _no_local_db(settings):
        cc.collection_name(company)  # still reject an empty name
        return None
    client = cc.make_client(settings)
    name = cc.collection_name(company)
    chunks = cc.get_collection(client, name)
    if chunks is None:
        return None
    cc.ensure_search_ef(chunks)
    docs = cc.get_collection(client, name + cc.DOCS_SUFFIX)
    if docs is None:  # crashed between creating the two collections
        docs = cc.create_collection(client, name + cc.DOCS_SUFFIX, {cc.MARKER: "docs"})
    return CompanyStore(settings, client, chunks, docs)


def store_location(settings: Settings) -> str:
    """Where stores are looked for, for "not found" messages: the folder, or the Chroma server."""
    if settings.store.chroma_url:
        return f"the Chroma server at {safe_url(settings.store.chroma_url)}"
    return str(settings.vectordb_dir)


def _missing(settings: Settings, company: str) -> InputError:
    near = [s.company for s in list_stores(settings) if s.company.lower() == company.strip().lower()]
    hint = f" (did you mean {near[0]!r}? company names are case-sensitive)" if near else ""
    # Naming the folder tells a user run from the wrong place to cd or pass --workspace, rather than
    # re-ingest everything into a second workspace.
    return InputError(f"no evidence store for company {company!r} in {store_location(settings)}{hint}; "
                      f"use --workspace DIR (or AUTOFILL_WORKSPACE) if it lives elsewhere, or run: "
                      f"autofill ingest --company {company!r} REPORT.pdf")


def find_store(settings: Settings, company: str) -> CompanyStore | None:
    """The company's store, or None when it has none. For callers that create a missing store anyway
    (ingest): open_store's not-found error lists every other store to suggest a name, work they discard."""
    return _open(settings, company)


def open_store(settings: Settings, company: str, create: bool = False, embedder: str | None = None) -> CompanyStore:
    """The company's store. With create=True a missing one is made, recording `embedder` (the name of the
    embedder that will fill it; default: the one the settings choose)."""
    store = _open(settings, company)
    if store is not None:
        return store
    if not create:
        raise _missing(settings, company)
    if embedder is None:
        embedder = embedder_name(settings)

    client = cc.make_client(settings)
    name = cc.collection_name(company)
    stamp = now_iso()
    # The manifest collection first: a chunk collection is only listed as a store once it can be read.
    docs = cc.create_collection(client, name + cc.DOCS_SUFFIX, {cc.MARKER: "docs"})
    chunks = cc.create_collection(client, name, {
        cc.MARKER: "chunks", "company": company.strip(), "embedder": embedder,
        "created_at": stamp, "last_ingest": "", _WRITE_OPEN: "",
        "embedder_runtime": settings.embedding.runtime if embedder.startswith("local:") else "",
    })
    return CompanyStore(settings, client, chunks, docs)


def list_stores(settings: Settings) -> list[StoreInfo]:
    if _no_local_db(settings):
        return []  # do not create a database just to list nothing
    client = cc.make_client(settings)
    out = []
    for col in client.list_collections():
        if (col.metadata or {}).get(cc.MARKER) == "chunks":
            store = _open(settings, str(col.metadata["company"]))
            if store is not None and store.collection == col.name:
                out.append(store.info())
    return sorted(out, key=lambda s: (s.company.lower(), s.company))
