"""The report's own map among a row's candidates (`retrieval.content_index`): the pages a company's
reports name in their content index (GRI, ESRS, TCFD; read at ingest by frameworks/content_index.py) for the
datapoint a row asks for first (its `Framework datapoints` cell, frameworks/coverage.py) join the retrieval
candidates before rerank, as one more ranked list fused by RRF with the candidates as retrieved.

Each page the index names gives one passage: the candidate already on that page, else the page's chunk
that shares most words with the row's keyword query. The pool keeps its size (`retrieval.candidates`):
an index page a search ranked nowhere can push the pool's last passage out, and a page both the search
and the index name rises. Rows without datapoints, stores without an index, and the setting off leave the
candidates exactly as retrieved."""

from __future__ import annotations

import re
from typing import Sequence

from autofill.records import Passage, QuestionRow
from autofill.frameworks.coverage import ReportIndex
from autofill.search.query import lexical_query
from autofill.search.retrieval import PAGE_CHUNKS, fuse

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def pointed(settings, collection: str, row: QuestionRow) -> list[tuple[str, int, str]]:
    """(file name, PDF page, requirement id) the company's indexes name for the row's strongest datapoint
    (the cell's first line: a weaker second one, "base year" beside "reduction targets", pointed the
    generated reports' target questions at their pathway pages and cost 3 of 78 hits at 6)."""
    if not row.datapoints.strip():
        return []

    return ReportIndex(settings, collection).pages(row.datapoints.strip().splitlines()[0])


def index_list(store, row: QuestionRow, pages: Sequence[tuple[str, int]],
               candidates: Sequence[Passage]) -> list[Passage]:
    """One passage per page the index names, in the index's order (the row's strongest datapoint first)."""

    have: dict[tuple[str, int], Passage] = {}
    for c in candidates:
        have.setdefault((c.file_name, c.page_start), c)
    missing = [p for p in dict.fromkeys(pages) if p not in have]
    on_pages = store.page_passages(missing) if missing and hasattr(store, "page_passages") else []
    words = _words(lexical_query(row))
    out: dict[str, Passage] = {}
    for f, n in dict.fromkeys(pages):
        p = have.get((f, n))
        if p is None:
            page = [c for c in on_pages if c.file_name == f and c.page_start <= n <= max(c.page_start, c.page_end)]
            p = max(page, key=lambda c: (len(words & _words(c.text)), -c.page_start), default=None)
        if p is not None:
            out.setdefault(p.chunk_id, p)
    return list(out.values())


def with_index_pages(settings, store, row: QuestionRow, candidates: list[Passage]) -> list[Passage]:
    """`candidates` with the pages the report's own index names for the row's datapoints fused in (the
    hook answer/row.py calls between retrieval and rerank)."""
    if not settings.retrieval.content_index or not candidates or not row.datapoints:
        return candidates
    found = pointed(settings, getattr(store, "collection", ""), row)
    extra = index_list(store, row, [(f, n) for f, n, _ in found], candidates) if found else []
    if not extra:
        return candidates

    r = settings.retrieval
    return fuse([candidates, extra], k=r.rrf_k, n=len(candidates), per_page=PAGE_CHUNKS)

