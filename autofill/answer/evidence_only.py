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

from autofill.records import Answer, Citation, Passage, QuestionRow
from autofill.states import DRAFT_PREFIX, Outcome, status_label
from autofill.store.bm25_index import english_stemmer  # the BM25 index's stemmer: same terms

STATUS = status_label(Outcome.DRAFTED)
PREFIX = DRAFT_PREFIX
MAX_QUOTES = 3
MAX_QUOTE_CHARS = 320
# Question words count fully; form-of-answer and explanation words less: explanations are long and
# full of generic instructions ("Answer Yes if ...") that would otherwise drown the question's terms.
QUESTION_WEIGHT, CONTEXT_WEIGHT = 1.0, 0.4
# Across languages a passage's retrieval rank (the multilingual embedder's judgement) counts about as
# much as one shared rare term: rank 1 gets 2.0, rank 2 1.0.
RANK_WEIGHT_ACROSS = 2.0

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\"“(\[]?[A-Z0-9])")
_STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each either few for from further had has have
having he her here hers how i if in into is it its itself just may me might more most must my no nor not of
off on once only or other our ours out over own same she should so some such than that the their theirs
them then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours company company's state states describe please provide
answer answers question whether e.g. eg etc short explanation yes no
""".split())


def terms(text: str) -> list[str]:
    # Single digits stay: "Scope 1" and "Scope 3" must not look alike.
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and (len(w) > 1 or w.isdigit())]
    return english_stemmer().stemWords(words)


@dataclass
class Unit:
    """A quotable piece of a passage: a sentence, or a table row with its header."""

    text: str
    passage_index: int  # 1-based, into the passages given
    order: int  # position in its passage
    locate_text: str = ""  # what pins it to a page: a table row without its header


def split_units(text: str) -> list[str]:
    return [u for u, _ in _split_units(text)]


def _split_units(text: str) -> list[tuple[str, str]]:
    """Sentences of running text; a Markdown table row becomes "header | row" so that a quoted
    row still says what its numbers are."""
    units: list[tuple[str, str]] = []
    header = ""
    prose: list[str] = []

    def flush() -> None:
        if prose:
            joined = " ".join(prose)
            units.extend((s.strip(), s.strip()) for s in _SENTENCE_END.split(joined) if _quotable(s))
            prose.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            flush()
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
                continue  # the |---|---| separator
            row = " | ".join(c for c in cells)
            if not header:
                header = row
            else:
                units.append((f"{header}: {row}", row))
        else:
            header = ""  # prose ends a table
            if stripped:
                prose.append(stripped)
            else:
                flush()
    flush()
    return units


def _quotable(sentence: str) -> bool:
    """A sentence worth quoting: not a bare heading such as "Energy and water"."""
    s = sentence.strip()
    return len(s) >= 25 and len(s.split()) >= 4


def _shorten(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " ..."


def select_quotes(row: QuestionRow, passages: list[Passage], max_quotes: int = MAX_QUOTES,
                  across_languages: bool = False) -> list[Unit]:
    """The best-matching units, best first. Score: idf-weighted query terms present in the unit
    (idf over the units of these passages), lightly normalised by length, plus a small bonus for the
    passage's retrieval rank so ties go to the better passage. `across_languages` (the question and the
    reports are in different languages): shared words are mostly figures and names, so the retrieval rank
    weighs as much as a shared term and units sharing none are quoted too, best passage first."""
    weights: dict[str, float] = {}
    for term in terms(f"{row.form_of_answer} {row.explanation}"):
        weights[term] = max(weights.get(term, 0.0), CONTEXT_WEIGHT)
    for term in terms(row.question):
        weights[term] = QUESTION_WEIGHT
    units = [Unit(text, i, j, where) for i, p in enumerate(passages, start=1)
             for j, (text, where) in enumerate(_split_units(p.text))]
    if not units or (not weights and not across_languages):
        return []
    # A unit also carries its passage's section path ("Performance > Greenhouse gas emissions"): a
    # table row rarely repeats the words its heading says.
    section_terms = {i: set(terms(p.section)) for i, p in enumerate(passages, start=1)}
    unit_terms = [set(terms(u.text)) | section_terms[u.passage_index] for u in units]
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
        score /= max(1.0, len(ts) / 25) ** 0.5  # very long units (whole paragraphs) do not win by size
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
    return chosen


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
