"""On-disk cache of query embeddings, so a re-run whose model responses are all cached never loads
the embedding model (or calls an embedding API).

What it caches: the vectors of the texts a run embeds to search with (questions, HyDE passages) and
to match against the answer library, never the chunks an ingest stores. Key: sha256 of (embedder name,
runtime, kind, text), where runtime tells the local model's onnx and torch vectors apart and kind
tells a query (`embed_query`) from a batch text (`embed_documents`), which may differ in the last
bits. Vectors are stored as float64 bytes, so a hit returns exactly the floats first computed.

One SQLite file per workspace (`vectordb/.query-cache/embeddings.sqlite`, WAL): each write is one
transaction, so threads and processes never see half an entry, and a lost race only computes a
vector twice. The wrapped embedder is called only on a miss, and a local model loads lazily on its
first call, so a run whose every query is cached never loads it. A cache that cannot be opened or
written (read-only workspace, damaged file) is skipped with a warning: it must never fail a run."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from array import array
from pathlib import Path
from typing import Any, Sequence

log = logging.getLogger(__name__)

CACHE_VERSION = 1  # bump when the key or the value layout changes
FILE_NAME = "embeddings.sqlite"


def cache_path(workspace_vectordb: Path) -> Path:
    """Where a workspace keeps its query embeddings (next to the stores, like the LLM cache)."""
    return Path(workspace_vectordb) / ".query-cache" / FILE_NAME


def cache_key(embedder: str, runtime: str, kind: str, text: str) -> str:
    material = "\x00".join((str(CACHE_VERSION), embedder, runtime, kind, text))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _pack(vector: Sequence[float]) -> bytes:
    return array("d", (float(x) for x in vector)).tobytes()


def _unpack(blob: bytes) -> list[float]:
    values = array("d")
    values.frombytes(blob)
    return values.tolist()


class VectorCache:
    """key -> vector in one SQLite file; thread-safe (one connection behind a lock) and safe across
    processes (SQLite's own locking, with a generous busy timeout)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._broken:
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        except (OSError, sqlite3.Error) as exc:
            self._give_up(exc)
            return None
        self._conn = conn
        return conn

    def _give_up(self, exc: BaseException) -> None:
        log.warning("query embedding cache %s not used (%s); the model embeds every query", self.path, exc)
        self._broken = True
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        if not keys:
            return {}
        with self._lock:
            conn = self._connect()
            if conn is None:
                return {}
            found: dict[str, list[float]] = {}
            try:
                unique = list(dict.fromkeys(keys))
                for start in range(0, len(unique), 500):  # SQLite's bound-parameter limit
                    part = unique[start:start + 500]
                    rows = conn.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                                        part).fetchall()
                    found.update((k, _unpack(v)) for k, v in rows if v and len(v) % 8 == 0)
            except sqlite3.Error as exc:
                self._give_up(exc)
                return {}
            return found

    def put_many(self, items: dict[str, Sequence[float]]) -> None:
        if not items:
            return
        with self._lock:
            conn = self._connect()
            if conn is None:
                return
            try:
                with conn:  # one transaction: all of these vectors or none
                    conn.execute("BEGIN IMMEDIATE")
                    conn.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
                                     [(k, _pack(v)) for k, v in items.items()])
            except sqlite3.Error as exc:
                self._give_up(exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class CachedQueryEmbedder:
    """An Embedder answering from the cache when it has embedded the exact text before; the wrapped
    embedder (and so its model) is used only for misses. `hits` and `misses` count texts."""

    def __init__(self, embedder: Any, cache: VectorCache, runtime: str = "") -> None:
        self.inner = embedder
        self.cache = cache
        self.name = embedder.name
        self.runtime = runtime
        self.hits = 0
        self.misses = 0
        self._count = threading.Lock()

    def _embed(self, kind: str, texts: Sequence[str], compute) -> list[list[float]]:
        keys = [cache_key(self.name, self.runtime, kind, t) for t in texts]
        found = self.cache.get_many(keys)
        missing = [i for i, k in enumerate(keys) if k not in found]
        with self._count:
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        if missing:
            todo = list(dict.fromkeys(texts[i] for i in missing))
            vectors = compute(todo)
            fresh = {cache_key(self.name, self.runtime, kind, t): list(v) for t, v in zip(todo, vectors)}
            self.cache.put_many(fresh)
            found.update(fresh)
        return [list(found[k]) for k in keys]

    def embed_query(self, text: str) -> list[float]:
        return self._embed("query", [text], lambda todo: [self.inner.embed_query(t) for t in todo])[0]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._embed("document", list(texts), lambda todo: self.inner.embed_documents(todo))

    def load(self) -> Any:
        """Load the wrapped model now (asked for explicitly; a cached run never asks)."""
        load = getattr(self.inner, "load", None)
        return load() if callable(load) else None


def with_query_cache(settings: Any, embedder: Any) -> Any:
    """`embedder` behind the workspace's query embedding cache (`embedding.query_cache`, default on)."""
    if embedder is None or not getattr(settings.embedding, "query_cache", True) or isinstance(embedder, CachedQueryEmbedder):
        return embedder
    runtime = getattr(embedder, "runtime", "") or ""
    if not runtime and str(embedder.name).startswith("local:"):
        runtime = settings.embedding.runtime  # a wrapper (portfolio SerialEmbedder) hides the runtime
    return CachedQueryEmbedder(embedder, VectorCache(cache_path(settings.vectordb_dir)), runtime=runtime)
