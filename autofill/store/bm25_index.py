"""Keyword search (BM25, bm25s with PyStemmer stemming) over one company's chunks.

Each document is tokenised in its own language (DocumentRecord.language, detected at ingest:
autofill/language.py): that language's stop words dropped and its Snowball stemmer applied; English, as
before, for a document whose language is unknown. A query is stemmed in the questionnaire's language and
in each language of the store's documents, so a German question still meets the English stems of the
names, figures and loan words it shares with an English report (and each document's own stems).

The index lives next to the store in `vectordb/bm25/<collection>/`: the bm25s arrays plus `chunks.json`
(chunk ids in index order, and the signature of the documents it was built from). It is rebuilt once
per ingest (and after a `forget`) and written to a temporary folder that is renamed into place, so a
reader never loads a half-written index; the temporary folders of runs killed mid-save are swept on the
next save (autofill/tempdirs.py). In server mode the chunks come from the Chroma server, and a
signature that no longer matches the store's documents (another machine ingested) triggers a rebuild.

Rebuilding does not tokenise unchanged documents again: each document version's tokens are kept in
`vectordb/bm25/<collection>.tokens/<key>.json` (key: file name, file hash, chunking fingerprint), written
when the document is stored, so a rebuild reads token lists instead of every chunk's text from Chroma
and stems only documents it has never seen (a store from before the cache, or written elsewhere).
bm25s has no incremental update (its scores depend on corpus-wide statistics), so the index arrays are
still built over all chunks; that part is cheap next to reading and stemming
(benchmarks/bm25_update.py)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from autofill.fileio import atomic_write_bytes
from autofill.languages import ENGLISH, REGISTRY as LANGUAGES  # each language's stemmer and stop words
from autofill.tempdirs import make_temp_dir, sweep, temp_name

log = logging.getLogger(__name__)

META_FILE = "chunks.json"
# Bump when what is tokenised (bm25_text) or how (stopwords, stemmer) changes: old token files are then
# ignored and pruned.
TOKENS_VERSION = 1
_stemmer_lock = threading.Lock()
_stemmers: dict[str, Any] = {}


def stemmer(language: str = ENGLISH) -> Any:
    """One PyStemmer stemmer per language and process; None for a language PyStemmer has none for."""
    algorithm = LANGUAGES[language].stemmer if language in LANGUAGES else LANGUAGES[ENGLISH].stemmer
    if not algorithm:
        return None
    with _stemmer_lock:
        if algorithm not in _stemmers:
            import Stemmer

            _stemmers[algorithm] = Stemmer.Stemmer(algorithm)
        return _stemmers[algorithm]


def english_stemmer() -> Any:
    """The English stemmer (evidence quotes and the answer library share the index's)."""
    return stemmer(ENGLISH)


def _stopwords(language: str) -> Any:
    """The bm25s stop-word list of `language` ("en" for English and unknown, as before; None: none)."""
    lang = LANGUAGES.get(language)
    if lang is None or lang.code == ENGLISH:
        return "en"
    if not lang.stopwords:
        return None
    import bm25s.stopwords

    return list(getattr(bm25s.stopwords, lang.stopwords))


@functools.lru_cache(maxsize=None)
def stop_words(language: str) -> frozenset[str]:
    """The stop words the index drops for `language`, as a set (translation/translator.py drops them too)."""
    import bm25s.stopwords

    words = _stopwords(language)
    words = bm25s.stopwords.STOPWORDS_EN if words == "en" else words or ()
    return frozenset(w.lower() for w in words)


def _tokenize(texts: Sequence[str], return_ids: bool, language: str = "") -> Any:
    import bm25s

    return bm25s.tokenize(list(texts), stopwords=_stopwords(language), stemmer=stemmer(language or ENGLISH),
                          return_ids=return_ids, show_progress=False)


def bm25_text(section: str, text: str | None, context: str = "") -> str:
    """What a chunk is indexed by: the section path (and a contextualised chunk's context line) carries
    words a question may use that the passage itself lacks."""
    return f"{section}\n{context}\n{text or ''}" if context else f"{section}\n{text or ''}"


def tokenize(texts: Sequence[str], language: str = "") -> list[list[str]]:
    """Stemmed, stopword-free tokens of each text in `language` (what the index is built from)."""
    return [list(t) for t in _tokenize(texts, return_ids=False, language=language)] if texts else []


_WORDS = re.compile(r"(?u)\b\w\w+\b")  # bm25s's token pattern


def query_tokens(query: str, languages: Sequence[str] = ()) -> list[str]:
    """The tokens of a query: stemmed in the first of `languages` (the questionnaire's; English when
    none), then the stems each other language adds (the store's documents' languages), each new stem once;
    the query language's stop words are no content in any language ("pour", "la" stay out of the English
    pass of a French question). With English alone these are exactly the tokens of before."""
    wanted = list(dict.fromkeys(code or ENGLISH for code in languages)) or [ENGLISH]
    out = tokenize([query], wanted[0])[0]
    seen = set(out)
    if len(wanted) > 1:
        import bm25s.stopwords

        stop = _stopwords(wanted[0])
        stop = set(bm25s.stopwords.STOPWORDS_EN if stop == "en" else stop or ())
        query = " ".join(w for w in _WORDS.findall(query) if w.lower() not in stop)
    for code in wanted[1:]:
        for token in tokenize([query], code)[0]:
            if token not in seen:
                seen.add(token)
                out.append(token)
    return out


class TokenCache:
    """Token lists of stored document versions, one JSON file each, so a rebuild of the index never
    re-tokenises a document it has seen. Files are written atomically; a damaged or missing one is a
    miss (the document's chunks are read and tokenised again)."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    @staticmethod
    def key(file_name: str, sha256: str, chunking: str, language: str = "") -> str:
        parts = [str(TOKENS_VERSION), file_name, sha256, chunking]
        if language and language != ENGLISH:  # English ones keep their keys from before languages
            parts.append(language)
        material = "\x00".join(parts)
        return hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self, key: str, chunks: int) -> tuple[list[str], list[list[str]]] | None:
        """(chunk ids, token lists) of a document version; None unless exactly `chunks` are cached."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
            ids, tokens = list(entry["ids"]), list(entry["tokens"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if len(ids) != chunks or len(tokens) != chunks:
            return None
        return ids, tokens

    def save(self, key: str, ids: Sequence[str], tokens: Sequence[Sequence[str]]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            blob = json.dumps({"ids": list(ids), "tokens": [list(t) for t in tokens]}, ensure_ascii=False,
                              separators=(",", ":"))
            atomic_write_bytes(self._path(key), blob.encode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - a cache: the index is still right without it
            log.debug("could not keep BM25 tokens %s: %s", key, exc)

    def prune(self, keep: set[str]) -> None:
        """Remove token files of document versions no longer in the store."""
        try:
            entries = list(self.folder.iterdir())
        except OSError:
            return
        for path in entries:
            if path.suffix == ".json" and path.stem not in keep:
                path.unlink(missing_ok=True)


def build_from_cache(documents: Sequence[Any], cache: TokenCache, fetch: Callable[..., Iterable[tuple[str, int, str, str]]],
                     signature: str = "", prune: bool = False) -> "BM25Index":
    """The index over `documents` (DocumentRecords, the store's manifest) from their cached token lists.
    Documents without any are read through `fetch(missing_records, every)` -> (file name, chunk index,
    chunk id, text) rows, tokenised and cached. Order: by file name, then chunk index (as `build` had
    it). `prune`: drop token files of versions no longer in `documents` (writers only)."""
    docs = sorted(documents, key=lambda r: r.file_name)
    keys = {r.file_name: TokenCache.key(r.file_name, r.sha256, r.chunking, r.language) for r in docs}
    found = {r.file_name: cache.load(keys[r.file_name], r.chunks) for r in docs}
    missing = [r for r in docs if found[r.file_name] is None]
    if missing:
        rows: dict[str, list[tuple[int, str, str]]] = {r.file_name: [] for r in missing}
        for name, index, cid, text in fetch(missing, len(missing) == len(docs)):
            rows[name].append((index, cid, text))
        for r in missing:
            part = sorted(rows[r.file_name])
            ids, tokens = [cid for _, cid, _ in part], tokenize([t for _, _, t in part], r.language)
            found[r.file_name] = ids, tokens
            if len(part) == r.chunks:
                cache.save(keys[r.file_name], ids, tokens)
    all_ids: list[str] = []
    all_tokens: list[list[str]] = []
    for r in docs:
        ids, tokens = found[r.file_name]  # type: ignore[misc]
        all_ids.extend(ids)
        all_tokens.extend(tokens)
    if prune:
        cache.prune(set(keys.values()))
    return BM25Index.from_tokens(all_ids, all_tokens, signature)


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

    @classmethod
    def from_tokens(cls, ids: Sequence[str], tokens: Sequence[Sequence[str]], signature: str = "") -> "BM25Index":
        """The index over already tokenised chunks (TokenCache): the same scores as `build` on their texts."""
        import bm25s

        if len(ids) != len(tokens):
            raise ValueError("ids and tokens differ in length")
        retriever = None
        if ids:
            retriever = bm25s.BM25()
            retriever.index([list(t) for t in tokens], show_progress=False)
        return cls(list(ids), retriever, signature)

    def save(self, folder: Path) -> None:
        """Write the index to `folder`, replacing any previous one atomically (write aside, then rename)."""
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

    def search(self, query: str, n: int, languages: Sequence[str] = ()) -> list[tuple[str, float]]:
        """The best `n` chunks for `query` as (chunk_id, BM25 score), best first; chunks sharing no
        (stemmed, non-stopword) term with the query are left out. `languages`: the query's, then the
        documents' (query_tokens); English when none."""
        if self._retriever is None or n <= 0:
            return []
        tokens = query_tokens(query, languages)
        if not tokens:
            return []
        k = min(n, len(self.ids))
        docs, scores = self._retriever.retrieve([tokens], k=k, show_progress=False, n_threads=1)
        out = []
        for idx, score in zip(docs[0], scores[0]):
            if float(score) > 0.0:
                out.append((self.ids[int(idx)], float(score)))
        return out
