"""On-disk cache of query embeddings, so a re-run whose model responses are all cached never loads
the embedding model (or calls an embedding API).

What it caches: the vectors of the texts a run embeds to search with (questions, HyDE passages) and
to match against the answer library, never the chunks an ingest stores. Key: sha256 of (embedder name,
runtime, kind, text), where runtime tells the local model's onnx and torch vectors apart and kind
tells a query (`embed_query`) from a batch text (`embed_documents`), which may differ in the last
bits. Vectors are stored as float64 bytes, so a hit returns exactly the floats first computed.

One SQLite file per workspace (`vectordb/.query-cache/embeddings.sqlite`; sqlite_cache.BlobCache:
safe across threads and processes, skipped with a warning when unusable, never failing a run). The
wrapped embedder is called only on a miss, and a local model loads lazily on its first call, so a run
whose every query is cached never loads it."""

from __future__ import annotations

import hashlib
import threading
from array import array
from pathlib import Path
from typing import Any, Sequence

from autofill.sqlite_cache import BlobCache

CACHE_VERSION = 1  # bump when the key or the value layout changes


FOLDER = ".query-cache"  # shared with the search and translation caches (store/derived.QUERY_CACHE)


def cache_path(workspace_vectordb: Path) -> Path:
    """Where a workspace keeps its query embeddings (next to the stores, like the LLM cache; store/derived.py
    lists it among the derived files)."""
    return Path(workspace_vectordb) / FOLDER / "embeddings.sqlite"


def cache_key(embedder: str, runtime: str, kind: str, text: str) -> str:
    material = "\x00".join((str(CACHE_VERSION), embedder, runtime, kind, text))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _pack(vector: Sequence[float]) -> bytes:
    return array("d", (float(x) for x in vector)).tobytes()


def _unpack(blob: bytes) -> list[float]:
    values = array("d")
    values.frombytes(blob)
    return values.tolist()


class VectorCache(BlobCache):
    """key -> vector (float64 bytes) in one SQLite file (sqlite_cache.BlobCache)."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path, "query embedding cache")

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        return {k: _unpack(v) for k, v in self.get_blobs(keys).items() if v and len(v) % 8 == 0}

    def put_many(self, items: dict[str, Sequence[float]]) -> None:
        self.put_blobs({k: _pack(v) for k, v in items.items()})


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
