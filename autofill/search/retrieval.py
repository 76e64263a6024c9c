"""Candidate retrieval for one question row: dense, BM25 + dense fused by reciprocal rank fusion,
and HyDE (the embedding of a hypothetical report passage instead of the question).

The store is duck-typed (`query(embedding, n)`, `bm25_search(query, n)`, both returning Passages
best first), so tests can run on a real Chroma store built with a fake embedder."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Protocol, Sequence

from autofill.search.query import lexical_query, term_names
from autofill.choices import RETRIEVAL_MODES, RetrievalMode
from autofill.language import ENGLISH
from autofill.records import Passage, QuestionRow, build_query  # noqa: F401 (importable from here as before)
from autofill.search.searches import Index, QueryPart, Search, SearchKind, mode_of, row_searches
from autofill.settings import Settings

# The modes and their feature flags: the table choices.RETRIEVAL_MODES.
MODES = tuple(RETRIEVAL_MODES)
# Passages of one page among a row's candidates (its best): as many different pages as candidates for the
# reranker and the offline top k. Part of the change that took the filings' hit@6 from 0.74 to 0.94; the
# setting that chose another number was retired in issue 44 (settings_files.RETIRED).
PAGE_CHUNKS = 1


class SearchableStore(Protocol):
    def query(self, embedding: Sequence[float], n: int) -> list[Passage]: ...

    def bm25_search(self, query: str, n: int, language: str = "") -> list[Passage]: ...


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> list[float]: ...


def translated_row(row: QuestionRow, translation: str) -> QuestionRow:
    """The row as its English words (translation/translator.py) for keyword search: English instruction words
    dropped and English synonyms added, as an English row's are."""
    return replace(row, question=translation, form_of_answer="", explanation="", language=ENGLISH)


def query_rows(settings: Settings, row: QuestionRow) -> list[QuestionRow]:
    """What each search looks for (`retrieval.query_parts`): the whole row ("row": question, form of answer
    and explanation), the question alone ("question"), or both, each searched by every search of the mode
    and fused ("both", the default). A row that is only its question is searched once."""
    parts = settings.retrieval.query_parts
    question = replace(row, form_of_answer="", explanation="")
    if parts == "row" or not row.question.strip():
        return [row]
    if parts == "question" or build_query(question) == build_query(row):
        return [question]
    return [row, question]


def rrf(rankings: list[list[str]], k: int = 60, weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(d) = sum over rankings of w / (k + rank of d), rank 1-based, w the
    ranking's weight (default 1 each). Returns (id, score) best first; ties keep the order in which ids
    were first seen, so the result is deterministic. An id repeated within one ranking counts once, at
    its first position, and does not push later ids down."""
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights):
        distinct = list(dict.fromkeys(ranking))
        for rank, item in enumerate(distinct, start=1):
            if item not in first_seen:
                first_seen[item] = len(first_seen)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], first_seen[kv[0]]))


# Scores are compared at this precision. A CPU embedding model does not give bit-identical vectors
# from run to run (BLAS reduction order varies), so near-ties could swap places and change the rerank
# prompt, missing the response cache on an identical re-run; rounded ties break by chunk id instead.
SCORE_DECIMALS = 4
# Extra depth fetched so the cut at n is made after that stable re-sort, not by the raw order.
_SLACK = 10


def _stable(passages: list[Passage], n: int) -> list[Passage]:
    return sorted(passages, key=lambda p: (-round(p.score, SCORE_DECIMALS), p.chunk_id))[:n]


def dense_list(query: Callable[[Sequence[float], int], list[Passage]], embedding: Sequence[float],
               n: int) -> list[Passage]:
    """The `n` best passages by `query(embedding, depth)`, in the stable order (rounded score, chunk id)."""
    return _stable(query(embedding, n + _SLACK), n)


def _dense(store: SearchableStore, embedder: QueryEmbedder, text: str, n: int) -> list[Passage]:
    search_text = getattr(store, "search_text", None)  # a questionnaire's centred search (search/centring.py)
    if search_text is not None:
        return search_text(text, embedder, n)
    return dense_list(store.query, embedder.embed_query(text), n)


def _ranked(passages: list[Passage]) -> list[Passage]:
    return [replace(p, rank=i) for i, p in enumerate(passages, start=1)]


def fuse(lists: list[list[Passage]], k: int, n: int, weights: Sequence[float] | None = None,
         per_page: int = 0) -> list[Passage]:
    """Weighted RRF over lists of Passages; the fused score replaces the per-list scores. `per_page` > 0:
    at most that many passages from any one page (its best), so the `n` cover more pages."""
    by_id: dict[str, Passage] = {}
    for lst in lists:
        for p in lst:
            by_id.setdefault(p.chunk_id, p)
    out: list[Passage] = []
    count: dict[tuple[str, int], int] = {}
    for cid, score in rrf([[p.chunk_id for p in lst] for lst in lists], k=k, weights=weights):
        p = by_id[cid]
        page = (p.file_name, p.page_start)
        if per_page > 0 and count.get(page, 0) >= per_page:
            continue
        count[page] = count.get(page, 0) + 1
        out.append(replace(p, score=score))
        if len(out) == n:
            break
    return _ranked(out)


def keyword_search(store: SearchableStore, text: str, n: int, language: str = "") -> list[Passage]:
    """The store's BM25 search of `text` in the questionnaire's `language` (an English or unknown one asks
    as before languages, so stores and fakes without a language parameter keep working)."""
    if language in ("", "en"):
        return store.bm25_search(text, n)
    return store.bm25_search(text, n, language)


def retrieve(settings: Settings, store: SearchableStore, embedder: QueryEmbedder, row: QuestionRow,
             mode: RetrievalMode | str, hyde_passage: str = "", n: int | None = None,
             extra_queries: Sequence[str] = (), translation: str = "", index: Index = Index.STORE) -> list[Passage]:
    """The top `n` (default `retrieval.candidates`) passages for `row`, best first, rank 1-based: the row's
    searches (`searches_of`, search/searches.py: built once, as data), each run and their lists fused.

    Each query of `query_rows` (the row, the question alone, or both) is searched by the mode's searches:
    dense: its text embedded; hybrid: that plus BM25 of its keyword query (search/query.py: instructions
    dropped, synonyms added per `retrieval.synonyms`); hyde: the HyDE passage embedded in place of the
    first query's text; hyde+hybrid: HyDE dense plus BM25. All lists are fused by weighted RRF (`rrf_k`;
    dense lists weigh 1, BM25 lists `keyword_weight`), at most `PAGE_CHUNKS` passages per page.
    `extra_queries` (multi-query retrieval, search/multiquery.py): each is searched too (dense, plus BM25
    in the hybrid modes, weighted alike) and its lists join the fusion. `translation` (a row across
    languages in its documents' words: translation/translator.py) is searched last, dense and, in the hybrid
    modes, by BM25 as an English row (`translated_row`, with the English names of the row's own terms:
    search/terms.py), weighted as the BM25 lists of all its query parts together; those names (with
    `retrieval.synonyms`) are also searched densely on their own. The row's own words are then not
    searched by BM25, since English documents hold none of them (its names and figures the translation
    keeps). Each list feeding a fusion is twice as deep as the result so that a passage ranked moderately
    by both searches can still surface."""
    searches = searches_of(settings, row, mode, hyde_passage, extra_queries, translation, index)
    r = settings.retrieval
    n = n or r.candidates
    if len(searches) == 1 and searches[0].kind is SearchKind.DENSE:  # one list: no fusion, no page cap
        return _ranked(_dense(store, embedder, searches[0].text, n))
    depth = 2 * n
    lists = [_dense(store, embedder, s.text, depth) if s.kind is SearchKind.DENSE
             else _stable(keyword_search(store, s.text, depth + _SLACK, s.language), depth) for s in searches]
    return fuse(lists, k=r.rrf_k, n=n, weights=[s.weight for s in searches], per_page=PAGE_CHUNKS)


def query_parts_of(settings: Settings, row: QuestionRow) -> list[QueryPart]:
    """The part each of `query_rows` is: the whole row, or the question alone."""
    rows = query_rows(settings, row)
    if len(rows) == 2:
        return [QueryPart.ROW, QueryPart.QUESTION]
    return [QueryPart.ROW if rows[0] is row else QueryPart.QUESTION]


def searches_of(settings: Settings, row: QuestionRow, mode: RetrievalMode | str, hyde_passage: str = "",
                extra_queries: Sequence[str] = (), translation: str = "", index: Index = Index.STORE) -> list[Search]:
    """The row's searches (search/searches.py), with their texts: what `retrieve` runs and fuses."""
    mode = mode_of(mode)
    r = settings.retrieval
    rows = query_rows(settings, row)
    keyword = mode.uses_keyword
    parts = [(part, build_query(q), lexical_query(q, expand=r.synonyms) if keyword else "")
             for part, q in zip(query_parts_of(settings, row), rows)]
    translation = translation.strip()
    english = lexical_query(translated_row(row, translation), expand=r.synonyms, source=row) \
        if translation and keyword else ""
    terms = " ".join(term_names(row)) if translation and r.synonyms else ""
    return row_searches(mode, parts, r.keyword_weight, r.synonyms, hyde_passage=hyde_passage,
                        extra_queries=extra_queries,
                        translation=translation, keyword_translation=english, terms=terms, language=row.language,
                        index=index)
