"""Keyword search (BM25, bm25s with PyStemmer English stemming) over one company's chunks.

The index lives next to the store in `vectordb/bm25/<collection>/`: the bm25s arrays plus `chunks.json`
(chunk ids in index order, and the signature of the documents it was built from). It is rebuilt from all
of the company's chunks after every ingest and written to a temporary folder that is renamed into place,
so a reader never loads a half-written index; the temporary folders of runs killed mid-save are swept on
the next save (autofill/tempdirs.py). In server mode the chunks come from the Chroma server, and a
signature that no longer matches the store's documents (another machine ingested) triggers a rebuild."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any, Sequence

META_FILE = "chunks.json"
_stemmer_lock = threading.Lock()
_stemmer: Any = None


def english_stemmer() -> Any:
    """One PyStemmer English stemmer per process (the BM25 index and evidence quotes share it)."""
    global _stemmer
    with _stemmer_lock:
        if _stemmer is None:
            import Stemmer

            _stemmer = Stemmer.Stemmer("english")
        return _stemmer


def _tokenize(texts: Sequence[str], return_ids: bool) -> Any:
    import bm25s

    return bm25s.tokenize(list(texts), stopwords="en", stemmer=english_stemmer(), return_ids=return_ids, show_progress=False)


class BM25Index:
    """An immutable BM25 index over (chunk_id, text) pairs. `signature` names the documents it covers."""

    def __init__(self, ids: list[str], retriever: Any, signature: str = ""):
        self.ids = ids
        self.signature = signature
        self._retriever = retriever

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str], signature: str = "") -> "BM25Index":
        import bm25s

        if len(ids) != len(texts):
            raise ValueError("ids and texts differ in length")
        retriever = None
        if ids:
            retriever = bm25s.BM25()
            retriever.index(_tokenize(texts, return_ids=True), show_progress=False)
        return cls(list(ids), retriever, signature)

    def save(self, folder: Path) -> None:
        """Write the index to `folder`, replacing any previous one atomically (write aside, then rename)."""
        from autofill.tempdirs import make_temp_dir, sweep, temp_name

        folder = Path(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        # Half-written indexes of runs killed mid-save go first (everything hidden here is ours).
        sweep(folder.parent, legacy=lambda name: True)
        tmp = make_temp_dir(folder.parent, folder.name)
        try:
            if self._retriever is not None:
                self._retriever.save(str(tmp), show_progress=False)
            (tmp / META_FILE).write_text(
                json.dumps({"ids": self.ids, "signature": self.signature}), encoding="utf-8"
            )
            old = None
            if folder.exists():
                old = temp_name(folder.parent, folder.name, "old")
                shutil.rmtree(old, ignore_errors=True)
                os.replace(folder, old)
            os.replace(tmp, folder)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> "BM25Index | None":
        """The saved index in `folder`, or None when there is none (or it is unreadable: rebuild then)."""
        import bm25s

        folder = Path(folder)
        try:
            meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
            ids = list(meta["ids"])
            retriever = bm25s.BM25.load(str(folder), show_progress=False) if ids else None
        except (OSError, ValueError, KeyError):
            return None
        return cls(ids, retriever, str(meta.get("signature", "")))

    def search(self, query: str, n: int) -> list[tuple[str, float]]:
        """The best `n` chunks for `query` as (chunk_id, BM25 score), best first; chunks sharing no
        (stemmed, non-stopword) term with the query are left out."""
        if self._retriever is None or n <= 0:
            return []
        tokens = _tokenize([query], return_ids=False)
        if not tokens or not tokens[0]:
            return []
        k = min(n, len(self.ids))
        docs, scores = self._retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        out = []
        for idx, score in zip(docs[0], scores[0]):
            if float(score) > 0.0:
                out.append((self.ids[int(idx)], float(score)))
        return out
