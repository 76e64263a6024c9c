"""Figures and years of an answer against the passages it cites. Pure functions.

A figure is supported when a cited passage states the same quantity after normalising format, scale
and unit (1,234,000 t = 1.234 million tonnes = 1.234 Mt), to the precision the answer or the passage
writes it ("16.2 Mt" covers 16.15 to 16.25 Mt). A figure with a unit also matches a bare numeral (a
table cell whose unit sits in its header); signs are ignored ("-12%" and "fell 12%" agree). A figure
missing from the cited passages but present in another retrieved passage is named with that passage:
the citation, not the figure, is what is wrong. Years are checked on their own: a year the answer
states must appear in a cited passage, the cited file's name or its reporting period."""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from autofill.checks.numbers import Quantity, extract_number_words, extract_quantities, extract_years
from autofill.records import CheckResult, Passage, Severity

RELATIVE_SLACK = 1e-3  # 0.1 %: float noise and unit conversions
HEDGED_SLACK = 0.05  # "roughly 10 Mt", "~75%": the answer says it is approximate
_HEDGE = re.compile(r"(?:~|≈|\babout|\baround|\bapprox(?:imately|\.)?|\broughly|\bnearly|\balmost|\bcirca|\bc\.)"
                    r"\s*$", re.IGNORECASE)


def answer_figures(text: str) -> list[Quantity]:
    """The figures an answer states, once each."""
    out: dict[tuple[str, float], Quantity] = {}
    for q in extract_quantities(text):
        out.setdefault((q.dim, q.value), q)
    return list(out.values())


def hedged(text: str, q: Quantity) -> bool:
    """The answer says the figure is approximate ("roughly 10 Mt", "~75%")."""
    return q.start >= 0 and bool(_HEDGE.search(text[max(0, q.start - 16):q.start]))


def passage_figures(text: str) -> list[Quantity]:
    return extract_quantities(text) + extract_number_words(text)


def _near(x: float, y: float, step: float, slack: float = RELATIVE_SLACK) -> bool:
    return abs(x - y) <= max(step, slack * abs(y), 1e-9)


def _specific(q: Quantity) -> bool:
    """A numeral unlikely to match by chance: decimals, or 3+ digits. "24" or "7" occur on any page
    (footnotes, dates, page numbers, chart ticks); "1,120" and "16.2" do not."""
    return q.decimals > 0 or abs(q.raw) >= 100


def supports(passage_q: Quantity, answer_q: Quantity, slack: float = RELATIVE_SLACK) -> bool:
    """Does a figure in a passage support a figure in the answer? To the answer's precision (or
    `slack`, relative): an answer may round the passage ("16 Mt" for 16.2 Mt), not add digits to it
    ("5.3" for "five")."""
    a, p = answer_q, passage_q
    if a.dim == p.dim:
        return _near(abs(a.value), abs(p.value), a.step, slack)
    if "plain" not in (a.dim, p.dim):
        return False
    if p.text.isalpha() and a.dim not in ("plain", "percent"):
        return False  # number words count things; "four" is no 4 °C
    if not (_specific(a) or _specific(p)):
        return False  # "24%" is not supported by some bare 24 on the page
    if _near(abs(a.value), abs(p.value), a.step, slack):  # "1.234 million" and "1,234,000 t"
        return True
    # A unit in a table header ("Scope 1 (kt)" over "1,120"): compare the numerals as written.
    # A hedged figure ("roughly 10 Mt") may round a precise cell ("10.4").
    return (_specific(a) or slack > RELATIVE_SLACK) and _near(a.raw, p.raw, 0.5 * 10 ** -a.decimals, slack)


def _found_in(q: Quantity, figures: Iterable[Quantity], slack: float = RELATIVE_SLACK) -> bool:
    return any(supports(p, q, slack) for p in figures)


def check_figures(answer: str, cited: Sequence[Passage], uncited: Sequence[Passage] = ()) -> list[CheckResult]:
    """One failed check per figure absent from the cited passages (naming an uncited passage that has
    it), or one passed check when all are there; nothing when the answer states no figure."""
    figures = answer_figures(answer)
    if not figures:
        return []
    cited_q = [q for p in cited for q in passage_figures(p.text)]
    others = [(p, passage_figures(p.text)) for p in uncited]
    failed: list[CheckResult] = []
    for q in figures:
        slack = HEDGED_SLACK if hedged(answer, q) else RELATIVE_SLACK
        if _found_in(q, cited_q, slack):
            continue
        where = next((p.page_label for p, fs in others if _found_in(q, fs, slack)), "")
        if not cited:
            reason = f"{q.text} has no cited passage"
        elif where:
            reason = f"{q.text} not in cited passages (found only in uncited {where})"
        else:
            reason = f"{q.text} not in cited passages"
        failed.append(CheckResult("figures", False, Severity.HARD, reason))
    if failed:
        return failed
    n = len(figures)
    return [CheckResult("figures", True, Severity.HARD,
                        f"{n} figure{'s' if n > 1 else ''} found in the cited passages")]


_DOCUMENT_WORDS = re.compile(r"\b(?:report|plan|review|statement|disclosures?|accounts)\b", re.IGNORECASE)


def _names_a_document(answer: str, year_text: str) -> bool:
    """The year is a document's ("the 2021 Climate Transition Action Plan", "Climate Change Report 2020")."""
    at = answer.find(year_text)
    if at < 0:
        return False
    after = answer[at + len(year_text):at + len(year_text) + 45]
    before = answer[max(0, at - 30):at]
    return bool(_DOCUMENT_WORDS.search(after) or re.search(r"\b(?:report|plan|review)\s*$", before, re.IGNORECASE))


def check_years(answer: str, cited: Sequence[Passage], uncited: Sequence[Passage] = (),
                known: Iterable[int] = ()) -> list[CheckResult]:
    """A year the answer states ("FY2021", "2030", "2021-22") must be stated by a cited passage;
    `known` adds years the cited documents themselves carry (file names, reporting periods), for a
    year the answer gives as a document's ("the 2021 plan", "Climate Change Report 2020")."""
    stated: dict[int, str] = {}
    for year, text in extract_years(answer):
        stated.setdefault(year, text)
    if not stated:
        return []
    have = {y for p in cited for y, _ in extract_years(p.text)}
    known = set(known)
    failed = []
    for year, text in stated.items():
        if year in have or (year in known and _names_a_document(answer, text)):
            continue
        where = next((p.page_label for p in uncited if year in {y for y, _ in extract_years(p.text)}), "")
        label = text if str(year) in text else f"{text} ({year})"
        reason = f"{label} not in cited passages" + (f" (found only in uncited {where})" if where else "")
        failed.append(CheckResult("years", False, Severity.HARD, reason))
    if failed:
        return failed
    n = len(stated)
    return [CheckResult("years", True, Severity.HARD, f"{n} year{'s' if n > 1 else ''} found in the cited passages")]
