"""Which parts of a cited passage carry the answer, so the review report marks those sentences or
table rows and not the whole chunk; and the retrieval score as a relevance a reviewer can read.

A passage is cut into units: each Markdown table row, and each sentence of other lines. A unit is
picked when it holds the figures the answer states (compared without thousands separators: "1,120" =
"1120"; longer figures weigh more; page references and file names in the answer are ignored), or, failing figures, when it shares most of the answer's content words; for an
evidence-only draft the quoted sentences themselves are picked, and a table row quoted with its labels
("Scope 1 and 2 (Mt CO2e), 2023: 32.6") picks the row it was read from. Pure functions, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass

from autofill.ingest.chunking import split_sentences
from autofill.quotes import pieces
from autofill.quotes import figures

MAX_UNITS = 4  # more than this and the highlight is the chunk again
MIN_SHARED_WORDS = 3
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[a-z][a-z\-]{3,}")
_QUOTE = re.compile(r"\u201c([^\u201d]{12,})\u201d|\"([^\"]{12,})\"")
_STOP = frozenset("""this that with from have been were which their there these those they them than then
will would could should about into over under also such only more most other some what when where while
your ours ourselves company report year years page pages answer yes""".split())


@dataclass(frozen=True)
class Unit:
    text: str
    is_row: bool  # a table row (kept whole, highlighted cell by cell)


def units(passage: str) -> list[Unit]:
    """Table rows and sentences of a passage, in order; table rules and header separators dropped."""
    out: list[Unit] = []
    for line in (passage or "").splitlines():
        line = line.strip()
        if not line or set(line) <= set("|-: "):
            continue
        if line.count("|") >= 2:
            out.append(Unit(line, True))
        else:
            out.extend(Unit(s, False) for s in split_sentences(line))
    return out


def numbers(text: str) -> set[str]:
    """Figures in a text, normalised: "1,120" -> "1120", "30.0" -> "30"; years count too."""
    out = set()
    for m in _NUMBER.finditer(text or ""):
        n = m.group().rstrip(",").replace(",", "")
        if "." in n:
            n = n.rstrip("0").rstrip(".")
        if n:
            out.add(n)
    return out


def words(text: str) -> set[str]:
    """Content words, crudely stemmed (plural s dropped), stop words left out."""
    return {w.rstrip("s") for w in _WORD.findall((text or "").lower()) if w not in _STOP}


def quotes(answer: str) -> list[str]:
    """Quoted sentences in an answer (the evidence-only draft quotes its evidence in curly quotes);
    a trailing ellipsis of a shortened quote is dropped."""
    out = []
    for m in _QUOTE.finditer(answer or ""):
        q = (m.group(1) or m.group(2)).strip().rstrip("\u2026").rstrip(".").strip()
        if q:
            out.append(q)
    return out


_CITATION = re.compile(r"\([^()]*\bpp?\.\s*\d+[^()]*(?:\([^()]*\)[^()]*)*\)"  # "(Report 2024.pdf p. 2)"
                       r"|\S*\.pdf\b|\b(?:pp?\.|pages?)\s*\d+(?:\s*[-\u2013]\s*\d+)?|\(printed [^)]*\)",
                       re.IGNORECASE)


def strip_citations(text: str) -> str:
    """The answer without its page references and file names, whose numbers are not the answer's."""
    return _CITATION.sub(" ", text or "")


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def select_highlights(passage: str, answer: str, reasoning: str = "") -> list[str]:
    """The sentences and table rows of `passage` that carry `answer` (quotes first, then figures,
    then wording; `reasoning` adds figures and words when the answer itself is a bare "Yes").
    Empty when nothing in the passage can be tied to the answer: the caller shows the whole passage."""
    parts = units(passage)
    if not parts:
        return []
    quoted = [_norm(q) for q in quotes(answer)]
    if quoted:
        labelled = _labelled_rows(passage)
        picked = [u.text for u in parts if any(_quoted_in(q, _norm(u.text)) for q in quoted)
                  or (u.is_row and _row_quoted(labelled.get(u.text), quotes(answer)))]
        if picked:
            return picked[:MAX_UNITS]
    said = strip_citations(f"{answer}\n{reasoning}")
    figures = numbers(said)
    if figures:
        # Longer figures weigh more: "2050" or "1,120" identifies a sentence, a "1" (Scope 1) hardly.
        scored = [(sum(len(n) for n in numbers(u.text) & figures), u) for u in parts]
        best = max(s for s, _ in scored)
        if best:
            return [u.text for s, u in scored if s == best][:MAX_UNITS]
    wording = words(said)
    if not wording:
        return []
    scored = [(len(words(u.text) & wording), u) for u in parts]
    best = max(s for s, _ in scored)
    if best < MIN_SHARED_WORDS:
        return []
    return [u.text for s, u in scored if s >= max(MIN_SHARED_WORDS, best - 1)][:MAX_UNITS]


def _labelled_rows(passage: str) -> dict:
    """Each table line of the passage -> its row read with labels (quotes.py)."""

    return {p.row.line: p.row for p in pieces(passage) if p.row is not None}


def _row_quoted(row, said: list[str]) -> bool:
    """A quote of a table row as the draft writes it ("Scope 1 and 2 (Mt CO2e), 2023: 32.6") picks the
    row it was read from: it opens with the row's label and its figures are the row's."""

    if row is None or not row.label:
        return False
    label, cells = _norm(row.label), figures(row.line)
    return any(_norm(q).startswith(label) and figures(q) and figures(q) <= cells | figures(row.label) for q in said)


def _quoted_in(quote: str, unit: str) -> bool:
    """A quote picks a unit when either holds the other (a quote may be a shortened sentence, or run
    over two sentences), or when they share a long opening."""
    if not quote or not unit:
        return False
    return quote in unit or (len(unit) >= 20 and unit in quote) or unit[:60] == quote[:60]


def relevance(scores: list[str | float]) -> list[int | None]:
    """Retrieval scores as 0-100 relative to the best passage of the same question (the best is 100),
    so a reviewer reads "85" instead of an RRF 0.0161 or a cosine 0.43. None where a score is missing
    or not a number; all None when no score is positive."""
    values: list[float | None] = []
    for s in scores:
        try:
            values.append(float(s))
        except (TypeError, ValueError):
            values.append(None)
    top = max((v for v in values if v is not None), default=0.0)
    if top <= 0:
        return [None] * len(values)
    return [None if v is None else max(0, round(100 * v / top)) for v in values]


def text_runs(text: str, marks: list[str]) -> list[tuple[str, bool]]:
    """`text` as (piece, marked) runs with every occurrence of each mark marked, for the report's
    passage text; [(text, False)] when no mark occurs."""
    spans: list[tuple[int, int]] = []
    for mark in marks:
        start = text.find(mark) if mark else -1
        while start >= 0:
            spans.append((start, start + len(mark)))
            start = text.find(mark, start + len(mark))
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    runs: list[tuple[str, bool]] = []
    at = 0
    for a, b in merged:
        if a > at:
            runs.append((text[at:a], False))
        runs.append((text[a:b], True))
        at = b
    if at < len(text) or not runs:
        runs.append((text[at:], False))
    return runs
