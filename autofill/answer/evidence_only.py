"""The offline draft when no LLM is configured: not an answer, but the sentences (or table rows)
from the retrieved passages that best match the question, each quoted with its file and page,
so a reviewer starts from evidence instead of a blank cell. Nothing here pretends a model answered:
the Status says "Evidence only (no LLM configured)", the quotes go in the Reasoning (headed "Evidence
found (not an answer)") and the Answer stays empty, drop-down or free text: the Answer column is what
goes back to the customer, and a quote must never be mistaken for an answer there."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

from autofill.quotes import TableRow, figures, pieces, question_years, stated_in_words
from autofill.records import Answer, Citation, Passage, QuestionRow
from autofill.states import DRAFT_PREFIX, Outcome, status_label
from autofill.search.overlap import term_weights, terms  # noqa: F401 - terms: as callers import it

STATUS = status_label(Outcome.DRAFTED)
PREFIX = DRAFT_PREFIX
MAX_QUOTES = 3
MAX_QUOTE_CHARS = 320
# Across languages a passage's retrieval rank (the multilingual embedder's judgement) counts about as
# much as one shared rare term: rank 1 gets 2.0, rank 2 1.0.
RANK_WEIGHT_ACROSS = 2.0
# A unit naming the question's year, or holding a figure the question asks for, gains about half a rare
# term; the share of the question's terms its passage covers adds up to one.
YEAR_BONUS, FIGURE_BONUS, COVERAGE_WEIGHT = 1.0, 0.5, 1.0
_FIGURE_WORDS = re.compile(r"\b(?:how (?:much|many)|number|amount|total|figure|value|percentage|share|rate|"
                           r"emissions|tco2|mwh|gj|volume|quantity|intensity|\(?%\)?)\b")
# A footnote ("54 'Operational GHG emissions' means ...", "(3) BHP uses ...") defines a term, and a sentence
# a chunk boundary cut ("per cent of our total ...") lacks its start; a whole sentence of the body is the
# better quote.
_FOOTNOTE = re.compile(r"^(?:\(\d{1,2}\)|\d{1,2})\s+[\"'\u2018\u201cA-Z]")
FOOTNOTE_PENALTY = 1.0
_ASSURANCE = re.compile(r"\bassur(?:ance|ed)\b|\bindependent (?:auditor|limited)", re.IGNORECASE)

@dataclass
class Unit:
    """A quotable piece of a passage: a sentence, or a table row read with its labels (quotes.py)."""

    text: str
    passage_index: int  # 1-based, into the passages given
    order: int  # position in its passage
    locate_text: str = ""  # what pins it to a page: the table row as the chunk holds it
    row: TableRow | None = None


def split_units(text: str) -> list[str]:
    return [p.text for p in pieces(text)]


def _shorten(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " ..."


def _units(passages: list[Passage], want: set[str]) -> list[Unit]:
    out = []
    for i, p in enumerate(passages, start=1):
        for j, piece in enumerate(pieces(p.text)):
            text = piece.row.quote(want) if piece.row is not None else piece.text
            out.append(Unit(text, i, j, piece.locate_text, piece.row))
    return out


def select_quotes(row: QuestionRow, passages: list[Passage], max_quotes: int = MAX_QUOTES,
                  across_languages: bool = False) -> list[Unit]:
    """The best-matching units, best first: sentences and table rows (with their labels), never a bare
    heading. Score: idf-weighted query terms present in the unit (idf over the units of these passages;
    a table row also counts its caption, its table's corner cell and the passage's section path), lightly
    normalised by length; a unit stating a year the question names, or a figure when the question asks
    for one, gains; the share of the question's terms its whole passage covers (not how often it mentions
    them) and the passage's retrieval rank break ties. When the best is a table row whose figure a sentence
    of the evidence states in words (on the same page, or an assurance statement), that sentence is quoted
    first. `across_languages` (the question and the reports are in different languages): shared words are
    mostly figures and names, so the retrieval rank weighs as much as a shared term and units sharing none
    are quoted too, best passage first."""
    weights = term_weights(row)
    years = question_years(row.question)
    units = _units(passages, years)
    if not units or (not weights and not across_languages):
        return []
    section_terms = {i: set(terms(p.section)) for i, p in enumerate(passages, start=1)}
    unit_terms = [set(terms(u.text if u.row is None else f"{u.row.text} {u.row.context}"))
                  | section_terms[u.passage_index] for u in units]
    passage_terms = {i: set(terms(p.text)) | section_terms[i] for i, p in enumerate(passages, start=1)}
    total = sum(weights.values()) or 1.0
    coverage = {i: sum(weights[t] for t in ts & weights.keys()) / total for i, ts in passage_terms.items()}
    wants_figure = _asks_for_figure(row)
    df: dict[str, int] = {}
    for ts in unit_terms:
        for t in ts & weights.keys():
            df[t] = df.get(t, 0) + 1
    n = len(units)
    scored = []
    for u, ts in zip(units, unit_terms):
        hit = ts & weights.keys()
        if not hit and not across_languages:
            continue
        score = sum(weights[t] * math.log(1 + n / df[t]) for t in hit)
        # Very long units (whole paragraphs) do not win by size; a table row's size is its label's (its
        # headers and values are the table's, not words it adds).
        size = len(ts) if u.row is None else len(set(terms(u.row.label)) | section_terms[u.passage_index])
        score /= max(1.0, size / 25) ** 0.5
        if years and years & question_years(u.text):
            score += YEAR_BONUS
        if wants_figure and figures(u.text):
            score += FIGURE_BONUS
        if u.row is None and (_FOOTNOTE.match(u.text) or u.text[:1].islower()):  # a footnote, or a sentence cut
            score -= FOOTNOTE_PENALTY
        score += COVERAGE_WEIGHT * coverage[u.passage_index]
        score += (RANK_WEIGHT_ACROSS if across_languages else 0.05) / u.passage_index
        scored.append((score, u))
    scored.sort(key=lambda su: (-su[0], su[1].passage_index, su[1].order))
    chosen: list[Unit] = []
    seen: set[str] = set()
    for _, u in scored:
        key = " ".join(terms(u.text))
        if key in seen:
            continue
        seen.add(key)
        chosen.append(u)
        if len(chosen) == max_quotes:
            break
    return _words_first(chosen, units, passages, max_quotes)


def _asks_for_figure(row: QuestionRow) -> bool:
    text = f"{row.question} {row.form_of_answer}".lower()
    return bool(_FIGURE_WORDS.search(text))


def _words_first(chosen: list[Unit], units: list[Unit], passages: list[Passage], max_quotes: int) -> list[Unit]:
    """A sentence stating the best table row's figure in words, quoted before the row: one on the row's
    page, or in an assurance statement among the evidence."""
    if not chosen or chosen[0].row is None:
        return chosen
    best = chosen[0]
    page = passages[best.passage_index - 1]
    row = best.row
    kept = TableRow(row.line, row.label, tuple(v for v in row.values if v[1] in best.text), row.context)
    candidates = [u for u in units if u.row is None and (
        _same_page(passages[u.passage_index - 1], page) or _ASSURANCE.search(passages[u.passage_index - 1].text))]
    sentence = stated_in_words(kept, [u.text for u in candidates])
    if not sentence:
        return chosen
    unit = next(u for u in candidates if u.text == sentence)
    rest = [u for u in chosen if u.text != sentence]
    return ([unit] + rest)[:max_quotes]


def _same_page(a: Passage, b: Passage) -> bool:
    return a.file_name == b.file_name and a.page_start <= b.page_end and b.page_start <= a.page_end


def evidence_answer(row: QuestionRow, passages: list[Passage],
                    locate: Callable[[Passage, str], int] | None = None, across_languages: bool = False) -> Answer:
    """The evidence-only draft for `row` from `passages` (rank order): an empty answer, the reasoning
    quotes the best sentences with their pages; citations are those pages, cited_passages index `passages`.
    `locate(passage, text)` finds the page of a quote inside a passage that spans pages;
    `across_languages`: see select_quotes."""
    quotes = select_quotes(row, passages, across_languages=across_languages)
    citations: list[Citation] = []
    cited: list[int] = []
    lines = []
    for u in quotes:
        p = passages[u.passage_index - 1]
        page = locate(p, u.locate_text or u.text) if locate is not None else p.page_start
        c = p.citation(page)
        lines.append(f"\u201c{_shorten(u.text)}\u201d ({c.label()})")
        if c not in citations:
            citations.append(c)
        if u.passage_index not in cited:
            cited.append(u.passage_index)
    if not lines:
        return Answer(answer="", status=STATUS, flags=["no retrieved passage matched the question's terms"],
                      reasoning="No language model is configured, so no answer was drafted, and no passage "
                                "in the evidence store matched the question's terms. A reviewer must answer it.")
    note = ("No language model is configured, so no answer was drafted: the quotes are the sentences of the "
            "retrieved passages that best match the question. A reviewer must read them (and the Evidence "
            "sheet) and write the answer.")
    return Answer(answer="", reasoning=PREFIX + "; ".join(lines) + "\n\n" + note, citations=citations,
                  cited_passages=cited, confidence="", status=STATUS)
