"""Figures and years of an answer against the passages it cites. Pure functions.

A figure is supported when a cited passage states the same quantity after normalising format, scale
and unit (1,234,000 t = 1.234 million tonnes = 1.234 Mt), to the precision the answer or the passage
writes it ("16.2 Mt" covers 16.15 to 16.25 Mt). A figure with a unit also matches a bare numeral (a
table cell whose unit sits in its header); signs are ignored ("-12%" and "fell 12%" agree). A figure
missing from the cited passages but present in another retrieved passage is named with that passage:
the citation, not the figure, is what is wrong. Years are checked on their own: a year the answer
states must appear in a cited passage, the cited file's name or its reporting period."""

from __future__ import annotations

from typing import Iterable, Sequence

from autofill.checks.numbers import Quantity, extract_number_words, extract_quantities, extract_years
from autofill.records import CheckResult, Passage, Severity

RELATIVE_SLACK = 1e-3  # 0.1 %: float noise and unit conversions


def answer_figures(text: str) -> list[Quantity]:
    """The figures an answer states, once each."""
    out: dict[tuple[str, float], Quantity] = {}
    for q in extract_quantities(text):
        out.setdefault((q.dim, q.value), q)
    return list(out.values())


def passage_figures(text: str) -> list[Quantity]:
    return extract_quantities(text) + extract_number_words(text)


def _near(x: float, y: float, step: float) -> bool:
    return abs(x - y) <= max(step, RELATIVE_SLACK * abs(y), 1e-9)


def supports(passage_q: Quantity, answer_q: Quantity) -> bool:
    """Does a figure in a passage support a figure in the answer?"""
    a, p = answer_q, passage_q
    if a.dim == p.dim:
        return _near(abs(a.value), abs(p.value), max(a.step, p.step))
    if "plain" in (a.dim, p.dim):
        if _near(abs(a.value), abs(p.value), min(a.step, p.step)):  # "1.234 million" and "1,234,000 t"
            return True
        # A unit in a table header ("Scope 1 (kt)" over "1,120"): compare the numerals as written.
        return _near(a.raw, p.raw, 0.5 * 10 ** -min(a.decimals, p.decimals))
    return False


def _found_in(q: Quantity, figures: Iterable[Quantity]) -> bool:
    return any(supports(p, q) for p in figures)


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
        if _found_in(q, cited_q):
            continue
        where = next((p.page_label for p, fs in others if _found_in(q, fs)), "")
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


def check_years(answer: str, cited: Sequence[Passage], uncited: Sequence[Passage] = (),
                known: Iterable[int] = ()) -> list[CheckResult]:
    """A year the answer states ("FY2021", "2030", "2021-22") must be stated by a cited passage;
    `known` adds years the cited documents themselves carry (file names, reporting periods)."""
    stated: dict[int, str] = {}
    for year, text in extract_years(answer):
        stated.setdefault(year, text)
    if not stated:
        return []
    have = set(known) | {y for p in cited for y, _ in extract_years(p.text)}
    failed = []
    for year, text in stated.items():
        if year in have:
            continue
        where = next((p.page_label for p in uncited if year in {y for y, _ in extract_years(p.text)}), "")
        label = text if str(year) in text else f"{text} ({year})"
        reason = f"{label} not in cited passages" + (f" (found only in uncited {where})" if where else "")
        failed.append(CheckResult("years", False, Severity.HARD, reason))
    if failed:
        return failed
    n = len(stated)
    return [CheckResult("years", True, Severity.HARD, f"{n} year{'s' if n > 1 else ''} found in the cited passages")]
