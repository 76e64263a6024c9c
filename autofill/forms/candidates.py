"""Offline candidate values of a numeric datapoint: the figures the retrieved tables and sentences hold in
the datapoint's dimension, each with its unit, its year, the quote that holds it and where it is. Pure.

Without a model nothing is answered: a reviewer gets, per datapoint, the passages found and these
candidates as drafts in the Evidence sheet, best first, never written into the form. A candidate is a
figure in a table row or a sentence of a passage whose unit is the form's dimension (a table cell takes
the unit of its column header, "Scope 1 (kt)"), converted into the form's unit; its year is the one its
column header or its sentence states. Candidates are ordered by how many of the label's words the row
or sentence (with the table's header) shares, then by the reporting year, then by retrieval rank."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from autofill.checks.numbers import Quantity, extract_years
from autofill.forms.units import Unit, in_unit, quantities, unit_in_label
from autofill.records import Passage

_WORD = re.compile(r"[a-z][a-z0-9]+")
_STOP = {"the", "and", "of", "in", "for", "to", "a", "an", "by", "from", "on", "at", "or", "total", "gross", "amount",
         "reporting", "period", "value", "number", "its", "with", "per", "all", "this", "that", "which"}
_SCOPE = re.compile(r"\bscope\s*(\d)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])|\n+")


@dataclass(frozen=True)
class Candidate:
    value: float  # in the form's unit
    written: str  # the figure as the passage writes it ("16.2 Mt CO2-e", "1,120" under "Scope 1 (kt)")
    year: int | None  # the year its column header or sentence states
    quote: str  # the table row (with its header) or the sentence that holds it
    file_name: str
    page: int
    rank: int  # the passage's retrieval rank
    score: float  # share of the label's words the quote holds (0-1)


def words(text: str) -> set[str]:
    """The telling words of a text; a scope keeps its number ("scope1"), so Scope 1 and 2 rows differ."""
    text = _SCOPE.sub(lambda m: f"scope{m.group(1)}", str(text).lower())
    return {w[:6] for w in _WORD.findall(text) if w not in _STOP}  # a crude stem: employees / employed


def candidates(label: str, unit: Unit | None, passages: Sequence[Passage], reporting_year: int | None = None,
               limit: int = 5) -> list[Candidate]:
    """The best `limit` candidates for a datapoint labelled `label` in `unit` among `passages` (in rank
    order); without a unit (a count), the bare figures of rows and sentences sharing a word of the label."""
    want = words(label)
    found: dict[tuple[float, str, int], Candidate] = {}
    for i, p in enumerate(passages, start=1):
        for quote, context, figures in _statements(p.text, unit):
            years = [y for y, _ in extract_years(context)]
            share = len(want & words(context)) / len(want) if want else 0.0
            if unit is None and not share:
                continue  # a bare count is a candidate only where the label's words are
            for value, written, year in figures:
                year = year if year is not None else (years[0] if len(set(years)) == 1 else None)
                c = Candidate(value, written, year, quote, p.file_name, p.page_start, p.rank or i, round(share, 3))
                found.setdefault((round(value, 6), p.file_name, p.page_start), c)
    ordered = sorted(found.values(), key=lambda c: (-c.score, c.year != reporting_year if reporting_year else False,
                                                    c.rank))
    return ordered[:limit]


def _statements(text: str, unit: Unit | None):
    """(quote, context words are counted in, [(value, written, year)]) per table row and sentence."""
    lines = str(text or "").splitlines()
    table: list[str] = []
    prose: list[str] = []
    for line in lines + [""]:
        if line.lstrip().startswith("|"):
            table.append(line)
            continue
        if table:
            yield from _table(table, unit)
            table = []
        prose.append(line)
    header = ""  # the last line naming a unit in brackets: a table whose rows came out as lines
    for sentence in _SENTENCE.split("\n".join(prose)):
        found = quantities(sentence)
        figures = [(v, q.text, None) for q in found if (v := _in(q, unit)) is not None]
        if not figures and header and unit is not None and found and all(q.dim == "plain" for q in found):
            figures = _under_header(found, header, unit)
            if figures:
                yield f"{header.strip()}\n{sentence.strip()}", header + " " + sentence, figures
                continue
        if unit_in_label(sentence) is not None and not figures:
            header = sentence
        if figures:
            yield sentence.strip(), sentence, figures


def _under_header(found: list[Quantity], header: str, unit: Unit) -> list[tuple[float, str, int | None]]:
    """Bare figures of a line under a header line ("Emissions FY2024 (t CO2e) FY2023 (t CO2e)"): in the
    header's unit, the k-th figure in the k-th column's year when the header names one per figure."""
    column_unit = unit_in_label(header)
    if column_unit is None or column_unit.dim != unit.dim:
        return []
    years = [y for y, _ in extract_years(header)]
    figures = [q for q in found if q.raw >= 1 or q.decimals]
    per_column = len(years) == len(figures)
    return [(q.value * column_unit.factor / unit.factor, f"{q.text} ({column_unit.symbol})",
             years[k] if per_column else None) for k, q in enumerate(figures)]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table(lines: list[str], unit: Unit | None):
    rows = [_cells(line) for line in lines if not re.fullmatch(r"[\s|:-]+", line)]
    if not rows:
        return
    header, body = (rows[0], rows[1:]) if len(rows) > 1 else ([], rows)
    for row in body:
        figures = []
        for j, cell in enumerate(row):
            head = header[j] if j < len(header) else ""
            column_unit = unit_in_label(head) or unit_in_label(f"({head})")
            head_years = [y for y, _ in extract_years(head)]
            for q in quantities(cell):
                value = _value(q, column_unit, unit)
                if value is not None:
                    figures.append((value, f"{q.text} ({head})" if head else q.text,
                                    head_years[0] if len(head_years) == 1 else None))
        if figures:
            quote = " | ".join(row)
            context = " ".join(header) + " " + quote
            yield (f"{' | '.join(header)}\n{quote}" if header else quote), context, figures


def _in(q: Quantity, unit: Unit | None) -> float | None:
    """A figure in the form's unit; with no unit (a count), a bare figure as it is."""
    if unit is None:
        return q.value if q.dim == "plain" else None
    return in_unit(q, unit)


def _value(q: Quantity, column_unit: Unit | None, unit: Unit | None) -> float | None:
    if unit is None:
        return q.value if q.dim == "plain" and column_unit is None else None
    if q.dim != "plain":
        return in_unit(q, unit)
    if column_unit is not None and column_unit.dim == unit.dim:
        return q.value * column_unit.factor / unit.factor
    return None
