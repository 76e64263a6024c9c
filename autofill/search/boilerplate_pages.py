"""The company's boilerplate pages (search/boilerplate.py) computed once and kept beside the store, and the
hook that ranks them last among a row's candidates (`retrieval.boilerplate_last`).

The scores live in `vectordb/.boilerplate/<collection>.json` (store/derived.py `boilerplate`: `forget`
removes it), with the SHA-256 of every document they were read from: a store whose documents changed gets
them read again, silently (as does a new version of the detector); a damaged file (not JSON, cut short, another shape) is said once, naming it,
and rebuilt. Old stores need nothing: the first row of a run reads the store's pages (one read per
document, or the run's search cache) and writes the file."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, Sequence

from autofill.records import Passage, QuestionRow
from autofill.search.boilerplate import Kind, PageScore, PageText, asked_kinds, rank_last, score_pages
from autofill.search import boilerplate
from autofill.store import derived
from autofill.fileio import atomic_write_bytes

log = logging.getLogger(__name__)

VERSION = 1


def detector() -> str:
    """A fingerprint of the detector's code (search/boilerplate.py): scores kept by another version are
    computed again."""
    import hashlib
    from pathlib import Path


    return hashlib.sha256(Path(boilerplate.__file__).read_bytes()).hexdigest()[:16]


_MEMO: dict[str, tuple[dict[str, str], dict[tuple[str, int], PageScore]]] = {}
_GUARD = threading.Lock()


def _path(settings, collection: str):

    return derived.boilerplate(settings.vectordb_dir, collection)


def _documents(store) -> dict[str, str]:
    """What the scores were read from: each document's SHA-256, and the detector's fingerprint."""
    return {**{name: record.sha256 for name, record in store.documents().items()}, "\x00detector": detector()}


def _read(store) -> list[PageText]:
    """Every page's text as the store holds it (its chunks joined in order, each under its first page)."""
    records = store.documents()
    wanted = [(name, n) for name, r in sorted(records.items()) for n in range(1, max(0, int(r.pages)) + 1)]
    passages = store.page_passages(wanted) if wanted and hasattr(store, "page_passages") else []
    texts: dict[tuple[str, int], list[str]] = {}
    for p in sorted(passages, key=lambda p: (p.file_name, p.page_start, p.chunk_id)):
        texts.setdefault((p.file_name, p.page_start), []).append(p.text or "")
    return [PageText(f, n, "\n".join(parts), int(records[f].pages) if f in records else 0)
            for (f, n), parts in sorted(texts.items())]


def _encode(documents: dict[str, str], scores: Sequence[PageScore]) -> bytes:
    return json.dumps({"version": VERSION, "documents": documents,
                       "pages": [[s.file_name, s.page, s.score, [k.value for k in s.kinds], list(s.reasons)]
                                 for s in scores]}, indent=0).encode("utf-8")


def _decode(data: Any) -> tuple[dict[str, str], dict[tuple[str, int], PageScore]]:
    """The file's documents and scores; ValueError when it is not what `_encode` writes."""
    if not (isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("documents"), dict)
            and isinstance(data.get("pages"), list)):
        raise ValueError("not a boilerplate file")
    out: dict[tuple[str, int], PageScore] = {}
    for item in data["pages"]:
        f, n, score, kinds, reasons = item
        if not (isinstance(f, str) and type(n) is int and isinstance(score, (int, float))):
            raise ValueError("a page entry of another shape")
        out[(f, n)] = PageScore(f, n, float(score), tuple(Kind(k) for k in kinds), tuple(str(r) for r in reasons))
    return {str(k): str(v) for k, v in data["documents"].items()}, out


def page_scores(settings, store) -> dict[tuple[str, int], PageScore]:
    """(file name, PDF page) -> PageScore for every page of the company's current documents."""

    collection = getattr(store, "collection", "") or ""
    documents = _documents(store)
    path = _path(settings, collection)
    with _GUARD:
        memo = _MEMO.get(str(path))
        if memo is not None and memo[0] == documents and path.is_file():
            return memo[1]
        if path.is_file():
            try:
                kept, scores = _decode(json.loads(path.read_text(encoding="utf-8")))
                if kept == documents:
                    _MEMO[str(path)] = (documents, scores)
                    return scores
            except (OSError, ValueError, TypeError, KeyError) as exc:
                log.warning("the boilerplate pages file %s was damaged (%s: %s); rebuilding it from the store",
                            path, type(exc).__name__, str(exc)[:100])
        scores_list = score_pages(_read(store))
        scores = {(s.file_name, s.page): s for s in scores_list}
        try:
            atomic_write_bytes(path, _encode(documents, scores_list))
        except OSError as exc:  # an aid to ranking: a row is never failed for it
            log.warning("the boilerplate pages file %s could not be written (%s)", path, exc)
        _MEMO[str(path)] = (documents, scores)
        n = sum(1 for s in scores_list if s.boilerplate)
        log.info("%d of %d pages of %s's reports are boilerplate (covers, contents, disclaimers, glossaries, "
                 "indexes)", n, len(scores_list), getattr(store, "company", "") or collection)
        return scores


def with_boilerplate_last(settings, store, row: QuestionRow, candidates: list[Passage]) -> list[Passage]:
    """The hook answer/row.py calls after the content index's pages join a row's candidates: passages on
    boilerplate pages the row does not ask about left out while any other passage remains (an offline draft
    quotes the passages sharing most words with the question, wherever they rank: ranked last, an inside
    cover naming every topic would still be quoted from a short report's pool); ranked last otherwise."""
    if not getattr(settings.retrieval, "boilerplate_last", False) or not candidates \
            or not hasattr(store, "documents") or not hasattr(store, "page_passages"):
        return candidates  # the setting off, or a store that cannot list its pages (an in-memory one)
    try:
        scores = page_scores(settings, store)
    except Exception as exc:  # noqa: BLE001 - an aid to ranking: the row is searched as before
        log.warning("boilerplate pages could not be read (%s: %s); rows are ranked without them",
                    type(exc).__name__, exc)
        return candidates
    asked = asked_kinds(row.question)
    out = rank_last(candidates, scores, asked, keep=1)
    return [p if p.rank == i else _reranked(p, i) for i, p in enumerate(out, start=1)]


def _reranked(p: Passage, rank: int) -> Passage:
    from dataclasses import replace

    return replace(p, rank=rank)
