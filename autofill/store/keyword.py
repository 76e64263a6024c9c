"""Keyword search over a company's evidence store: the BM25 index beside the Chroma collections, kept as
token lists per stored document version (store/bm25_index.py) and rebuilt once per ingest or forget.

`KeywordSearch` is a part of CompanyStore (store/chroma_store.py), split off along its one seam: it uses
the store's settings, collection name, chunk collection, manifest (`documents`, `_is_current`) and
`get_passages`, and the `_bm25` / `_bm25_guard` attributes the store sets up."""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import Any, Iterator, Sequence

from autofill.language import ENGLISH
from autofill.records import Chunk, DocumentRecord, Passage
from autofill.store import derived
from autofill.store.bm25_index import BM25Index, TokenCache, bm25_text, build_from_cache, tokenize


class KeywordSearch:
    settings: Any
    collection: str
    _chunks: Any
    _bm25: BM25Index | None
    _bm25_guard: Any

    def bm25_search(self, query: str, n: int, language: str = "") -> list[Passage]:
        """The `n` best chunks for `query` by BM25 (score = BM25 score, rank 1..n). `language`: the
        query's ("" English); it is stemmed in that and in each of the documents' languages too."""
        documents = sorted({r.language or ENGLISH for r in self.documents().values()})
        hits = self._bm25_index().search(query, n, [language or ENGLISH, *documents])
        passages = {p.chunk_id: p for p in self.get_passages([cid for cid, _ in hits])}
        out = []
        for cid, score in hits:
            if cid in passages:
                p = passages[cid]
                p.score, p.rank = score, len(out) + 1
                out.append(p)
        return out

    @property
    def bm25_dir(self) -> Path:
        return derived.keyword_index(self.settings.vectordb_dir, self.collection)

    def _signature(self) -> str:
        docs = sorted((r.file_name, r.sha256) for r in self.documents().values())
        return hashlib.sha256(repr(docs).encode()).hexdigest()

    def _bm25_index(self) -> BM25Index:
        signature = self._signature()
        with self._bm25_guard:
            if self._bm25 is not None and self._bm25.signature == signature:
                return self._bm25
            index = BM25Index.load(self.bm25_dir)
            if index is None or index.signature != signature:
                # Missing or stale (an interrupted ingest, or another machine wrote to a Chroma server).
                index = self._build_bm25(signature)
                with contextlib.suppress(OSError):
                    index.save(self.bm25_dir)
            self._bm25 = index
            return index

    @property
    def bm25_tokens(self) -> TokenCache:
        """Token lists per stored document version, so a rebuild never re-tokenises an unchanged one."""
        return TokenCache(derived.token_lists(self.settings.vectordb_dir, self.collection))

    def _keep_tokens(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        tokens = tokenize([bm25_text(c.section, c.text, c.context) for c in chunks], record.language)
        self.bm25_tokens.save(TokenCache.key(record.file_name, record.sha256, record.chunking, record.language),
                              [c.id for c in chunks], tokens)

    def _build_bm25(self, signature: str, prune: bool = False) -> BM25Index:
        """The index over the current chunks, from cached token lists (bm25_index.build_from_cache)."""
        return build_from_cache(list(self.documents().values()), self.bm25_tokens, self._bm25_rows, signature,
                                prune=prune)

    def _bm25_rows(self, missing: list[DocumentRecord], every: bool) -> Iterator[tuple[str, int, str, str]]:
        """(file name, chunk index, chunk id, indexed text) of the current chunks of `missing` documents
        (`every`: they are all the store's documents, so no filter is needed)."""
        current = {(r.file_name, r.sha256) for r in missing}
        names = [r.file_name for r in missing]
        where = None if every else {"file_name": names[0]} if len(names) == 1 else {"file_name": {"$in": names}}
        got = self._chunks.get(where=where, include=["documents", "metadatas"])
        for cid, text, meta in zip(got["ids"], got["documents"], got["metadatas"]):
            if self._is_current(meta, current):
                yield (meta["file_name"], int(meta.get("chunk_index", 0)), cid,
                       bm25_text(meta.get("section", ""), text, meta.get("context") or ""))

    def rebuild_bm25(self) -> None:
        """Rebuild the keyword index once per ingest (or forget), from cached tokens where it can."""
        index = self._build_bm25(self._signature(), prune=True)
        index.save(self.bm25_dir)
        self._bm25 = index
