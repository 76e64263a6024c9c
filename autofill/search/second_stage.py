"""The second stage: the first stage's candidates (search/retrieval.py, one passage per page) put in a
better order, offline, before the LLM reranker sees them (its window) or, without one, before the
evidence-only draft takes its top k.

Each signal scores every candidate; the candidates are then ordered by reciprocal rank fusion of the
signals' orders (`retrieval.rrf_k`, the first stage's own constant: no constant is fitted here), the
first stage's order among them when the choice says so. Which signals a choice fuses is its row in
choices.SECOND_STAGES; the signals are:

- `colbert`: late interaction (providers/colbert.py), MaxSim of the question's search words (its BM25
  query: instructions dropped, report-side synonyms added) against each passage's tokens;
- `pages`: what a candidate's whole page says, not only its best passage: the share of the question's
  terms (idf-weighted over the candidate pages, the question's words counting fully and the rest of the
  row's less, as the evidence-only draft weighs them) that appear anywhere on the page, since gold
  answers and reviewers are page-level;
- `cross-encoder`: the offline cross-encoder's logit for the row and the passage (providers/cross_encoder.py);
  `cross-encoder-search` and `cross-encoder-question` give it the question's search words (as ColBERT's)
  or the question's own text instead of the whole row.

Candidates keep their set (recall@30 does not move); ties keep the first stage's order. Passages that
hold a table keep the first stage's places (`keep_table_places`): the signals' models read prose, and
ranked prose that names a table's terms above the table that holds the figures (every second stage lost
the filings' MRR before this, none does with it). The figures that chose the default: README, "How good
and how fast" (benchmarks/second_stage.py)."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Sequence

from autofill.search.overlap import term_weights, terms
from autofill.search.query import lexical_query
from autofill.search.retrieval import build_query, rrf
from autofill.choices import SecondStageChoice
from autofill.providers.base import RankQuery
from autofill.records import Passage, QuestionRow
from autofill.settings import Settings

FIRST = "first"  # the first stage's own order, as a signal
# The languages the signals' models read (answerai-colbert-small-v1 and the cross-encoder: English). A row
# in another language, or against documents in one, keeps the first stage's order.
LANGUAGES = ("en",)


def reads(languages: Sequence[str]) -> bool:
    """Whether the signals' models read every one of these languages (unknown ones, "", count as read)."""
    return all(not code or code in LANGUAGES for code in languages)


def scores_of(scorer: Any, text: str, candidates: Sequence[Passage]) -> list[float]:
    """Each candidate's score from `scorer`'s ranking (the one scoring interface, providers/base.Scorer)
    for the query `text`, in the candidates' order."""
    scores = [0.0] * len(candidates)
    for item in scorer.rank(RankQuery(text), candidates):
        scores[item.index] = float(item.score or 0.0)
    return scores


def search_words(row: QuestionRow) -> str:
    """The question's search words: the first stage's BM25 query of the question alone (search/query.py:
    instruction words dropped, the report-side synonyms of its terms added), so "capital expenditure"
    also looks for "purchases of property, plant and equipment"."""
    return lexical_query(replace(row, form_of_answer="", explanation="")) or build_query(row)


def colbert_scores(store: Any, row: QuestionRow, candidates: Sequence[Passage]) -> list[float]:
    """MaxSim of the question's search words against each candidate."""
    from autofill.providers.colbert import shared_scorer

    return scores_of(shared_scorer(), search_words(row), candidates)


def colbert_question_scores(store: Any, row: QuestionRow, candidates: Sequence[Passage]) -> list[float]:
    """MaxSim of the question's own text (measured against `colbert_scores`: it lost on the filings)."""
    from autofill.providers.colbert import shared_scorer

    return scores_of(shared_scorer(), row.question.strip() or build_query(row), candidates)


def coverage(weights: dict[str, float], pages: Sequence[set[str]]) -> list[float]:
    """For each page's term set, the idf-weighted share of `weights`' terms it holds (idf over `pages`)."""
    n = len(pages)
    df = {t: sum(1 for ts in pages if t in ts) for t in weights}
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in weights}
    total = sum(weights[t] * idf[t] for t in weights) or 1.0
    return [sum(weights[t] * idf[t] for t in weights if t in ts) / total for ts in pages]


def page_scores(store: Any, row: QuestionRow, candidates: Sequence[Passage]) -> list[float]:
    """How much of the row's terms each candidate's whole page holds (all its passages and their
    section paths), relative to the other candidates' pages."""
    weights = term_weights(row)
    if not weights:
        return [0.0] * len(candidates)
    wanted = list(dict.fromkeys((p.file_name, page) for p in candidates
                                for page in range(p.page_start, p.page_end + 1)))
    on_page: dict[tuple[str, int], set[str]] = {key: set() for key in wanted}
    fetch = getattr(store, "page_passages", None)
    found = fetch(wanted) if fetch is not None else []
    for p in [*found, *candidates]:
        words = set(terms(f"{p.section}\n{p.text}"))
        for page in range(p.page_start, p.page_end + 1):
            if (p.file_name, page) in on_page:
                on_page[(p.file_name, page)] |= words
    per_candidate = [set().union(*(on_page[(p.file_name, page)] for page in range(p.page_start, p.page_end + 1)))
                     for p in candidates]
    return coverage(weights, per_candidate)


# What the cross-encoder reads as its query, per signal: the whole row (question, form of answer,
# explanation), the question's search words (as ColBERT's), or the question's own text.
CROSS_ENCODER_QUERIES: dict[str, Callable[[QuestionRow], str]] = {
    "cross-encoder": build_query,
    "cross-encoder-search": search_words,
    "cross-encoder-question": lambda row: row.question.strip() or build_query(row),
}


def cross_encoder_scores(store: Any, row: QuestionRow, candidates: Sequence[Passage],
                         query: Callable[[QuestionRow], str] = build_query) -> list[float]:
    """The offline cross-encoder's logit for `query(row)` and each candidate."""
    from autofill.providers.cross_encoder import shared_reranker

    return scores_of(shared_reranker(), query(row), candidates)


SIGNALS: dict[str, Callable[[Any, QuestionRow, Sequence[Passage]], list[float]]] = {
    "colbert": colbert_scores,
    "colbert-question": colbert_question_scores,
    "pages": page_scores,
    **{name: partial(cross_encoder_scores, query=query) for name, query in CROSS_ENCODER_QUERIES.items()},
}


def order_by(scores: Sequence[float]) -> list[int]:
    """Candidate indexes by score, best first; ties keep the first stage's order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def keep_table_places(order: Sequence[int], tables: Sequence[bool]) -> list[int]:
    """`order` (candidate indexes, best first) with every table candidate back at its first-stage place
    (its index) and the other candidates filling the remaining places in `order`'s order."""
    prose = iter([i for i in order if not tables[i]])
    return [i if tables[i] else next(prose) for i in range(len(tables))]


def fuse_orders(candidates: Sequence[Passage], orders: Sequence[Sequence[int]], k: int) -> list[Passage]:
    """The candidates by RRF over `orders` (lists of candidate indexes, best first), tables kept in their
    places (`keep_table_places`), rank renumbered and the fused score kept."""
    fused = dict(rrf([[str(i) for i in order] for order in orders], k=k))
    order = keep_table_places([int(i) for i in fused], [p.has_table for p in candidates])
    return [replace(candidates[i], score=fused[str(i)], rank=r) for r, i in enumerate(order, start=1)]


def second_stage(settings: Settings, choice: SecondStageChoice, store: Any, row: QuestionRow,
                 candidates: list[Passage], documents: Sequence[str] = ()) -> list[Passage]:
    """`candidates` reordered by the signals `choice` fuses (the first stage's order among them when
    it lists FIRST), the first `retrieval.second_stage_depth` of them only (the rest keep their places and
    ranks); as they are for a choice with no signal, fewer than two candidates, or a row whose language
    or documents' (`documents`) the models do not read (`reads`)."""
    signals = [s for s in choice.signals if s != FIRST]
    if not signals or len(candidates) < 2 or not reads((row.language, *documents)):
        return candidates
    depth = settings.retrieval.second_stage_depth or len(candidates)
    head, rest = candidates[:depth], candidates[depth:]  # only the first `depth` are read and reordered
    orders = [list(range(len(head)))] if FIRST in choice.signals else []
    orders += [order_by(SIGNALS[name](store, row, head)) for name in signals]
    return fuse_orders(head, orders, settings.retrieval.rrf_k) + rest
