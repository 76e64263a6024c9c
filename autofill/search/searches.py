"""A row's searches as data (issue 44): the first stage's list of searches, each a kind of search over an
index for a part of the row with its weight in the fusion, built once per row by `row_searches` and run
by retrieval.retrieve in that order. `declared_searches` gives the same list for a run's settings (a row
in its reports' language, and one across languages), which `autofill config` and the Run info sheet
print one line a search (`lines`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Sequence

from autofill.choices import RETRIEVAL_MODES, RetrievalMode


class SearchKind(str, Enum):
    DENSE = "dense"  # the text embedded, nearest passages
    KEYWORD = "keyword"  # BM25 of the text's keyword query (search/query.py)


class Index(str, Enum):
    STORE = "store"  # the company's store: its embedder's vectors, its BM25 index
    MULTILINGUAL = "multilingual"  # the store's multilingual index (store/multilingual.py), dense only
    CENTRED = "multilingual centred"  # that index, searched as is and centred on the questionnaire (centring.py)


class QueryPart(str, Enum):
    ROW = "row"  # question, form of answer and explanation
    QUESTION = "question"  # the question alone (`retrieval.query_parts`)
    HYDE = "hyde"  # the hypothetical passage, in place of the first part's text (search/hyde.py)
    EXTRA = "extra query"  # multi-query's rewrites (search/multiquery.py)
    TRANSLATION = "translation"  # the row in its documents' words (translation/translator.py)
    TERMS = "terms"  # the English names of the row's own terms (search/terms.py)


@dataclass(frozen=True)
class Search:
    """One search of the first stage. `text` and `language` are the row's (empty in a declared list)."""

    kind: SearchKind
    index: Index
    query_part: QueryPart
    weight: float
    text: str = ""
    language: str = ""  # the keyword query's language ("": English)

    def line(self) -> str:
        return f"{self.kind.value} {self.index.value} {self.query_part.value} weight {self.weight:g}"


def mode_of(mode: RetrievalMode | str) -> RetrievalMode:
    if isinstance(mode, str):
        if mode not in RETRIEVAL_MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}")
        return RETRIEVAL_MODES[mode]
    return mode


def row_searches(mode: RetrievalMode | str, parts: Sequence[tuple[QueryPart, str, str]], keyword_weight: float,
                 synonyms: bool, hyde_passage: str = "", extra_queries: Sequence[str] = (), translation: str = "",
                 keyword_translation: str = "", terms: str = "", language: str = "",
                 index: Index = Index.STORE) -> list[Search]:
    """The row's searches in the order retrieve fuses them. `parts`: (part, dense text, keyword query) of
    each part the row is searched as (retrieval.query_rows); `translation` and `keyword_translation`: the
    row in its documents' words and that as an English keyword query; `terms`: the English names of the
    row's terms (searched only beside a translation, with `retrieval.synonyms`). Dense searches use
    `index`; keyword searches are the store's BM25 (the multilingual index has none of its own)."""
    mode = mode_of(mode)
    out = [Search(SearchKind.DENSE, index, part, 1.0, text) for part, text, _ in parts]
    if mode.uses_hyde and hyde_passage.strip() and out:
        out[0] = Search(SearchKind.DENSE, index, QueryPart.HYDE, 1.0, hyde_passage)
    translation = translation.strip()
    if mode.uses_keyword and not translation:
        out += [Search(SearchKind.KEYWORD, Index.STORE, part, keyword_weight, keyword, language)
                for part, _, keyword in parts]
    for q in (q for q in extra_queries if q.strip()):
        out.append(Search(SearchKind.DENSE, index, QueryPart.EXTRA, 1.0, q))
        if mode.uses_keyword:
            out.append(Search(SearchKind.KEYWORD, Index.STORE, QueryPart.EXTRA, keyword_weight, q, language))
    if translation:
        out.append(Search(SearchKind.DENSE, index, QueryPart.TRANSLATION, 1.0, translation))
        if terms and synonyms:  # what the row asks for in the reports' own words, as a passage would say it
            out.append(Search(SearchKind.DENSE, index, QueryPart.TERMS, 1.0, terms))
        if mode.uses_keyword:
            # It stands in for the keyword search of each part the row is searched as, so that keywords weigh
            # against the dense lists as they do for a row in its reports' language.
            out.append(Search(SearchKind.KEYWORD, Index.STORE, QueryPart.TRANSLATION,
                              keyword_weight * len(parts), keyword_translation))
    return out


def declared_searches(mode: RetrievalMode | str, query_parts: str, keyword_weight: float, synonyms: bool,
                      hyde: bool = False, extra_queries: int = 0, index: Index = Index.STORE,
                      translated: bool = False) -> list[Search]:
    """The searches of a row that has more than its question under a run's settings (`query_parts`
    "both": the row and the question alone): `hyde` (a model writes the passage), `extra_queries`
    (multi-query's most), `index` (the multilingual index for a row across languages), `translated` (and
    searched as its translation, with the English names of its terms when it names known ones)."""
    names = {"row": [QueryPart.ROW], "question": [QueryPart.QUESTION]}
    parts = [(p, "", "") for p in names.get(query_parts, [QueryPart.ROW, QueryPart.QUESTION])]
    return row_searches(mode, parts, keyword_weight, synonyms, hyde_passage="hyde" if hyde else "",
                        extra_queries=["extra"] * extra_queries, translation="translation" if translated else "",
                        terms="terms", index=index)


def lines(searches: Sequence[Search]) -> list[str]:
    """One line a search, numbered in the fusion's order."""
    return [f"{i}. {s.line()}" for i, s in enumerate(searches, start=1)]
