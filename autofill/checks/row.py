"""All checks of one finished row, from its RowResult: the answer against its cited passages
(figures, years, scope), its form, the reporting period, and the signals tier.py weighs. Pure: the
document periods and the reporting year come in a CheckContext; an optional model verdict comes in
as extra CheckResults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from autofill.checks.figures import check_figures, check_years
from autofill.checks.form import check_form
from autofill.checks.numbers import extract_years
from autofill.checks.periods import check_newer_report, check_reporting_year
from autofill.checks.scope import check_scope
from autofill.checks.ties import check_document_years, check_ties
from autofill.checks.tier import decide_tier, signal_checks
from autofill.records import CheckResult, Passage, RowResult
from autofill.records import outcome_of as answer_outcome
from autofill.states import Outcome, Tier, parse_review


@dataclass(frozen=True)
class CheckContext:
    periods: Mapping[str, str] = field(default_factory=dict)  # file name -> reporting period ("FY2022")
    reporting_year: int = 0  # the questionnaire's reporting year; 0: not given


def outcome_of(result: RowResult) -> Outcome:
    """How the row ended, as the row records it; a library answer reused as it stands, a row a person
    edited and one a reviewer approved are checked like an answered row."""
    outcome = result.outcome if result.outcome is not None else answer_outcome(result.answer)
    if result.answer is None:
        return Outcome.FAILED
    return Outcome.ANSWERED if outcome in (Outcome.REUSED, Outcome.EDITED, Outcome.APPROVED) else outcome


def cited_passages(result: RowResult) -> tuple[list[Passage], list[Passage]]:
    """(cited, uncited) passages of the row: by the answer's passage indexes (ranks), and any passage
    covering a cited page."""
    if result.answer is None:
        return [], list(result.passages)
    ranks = set(result.answer.cited_passages)
    pages = {(c.file_name, c.page) for c in result.answer.citations}
    cited, uncited = [], []
    for i, p in enumerate(result.passages, start=1):
        covers = any(f == p.file_name and p.page_start <= n <= max(p.page_start, p.page_end) for f, n in pages)
        (cited if i in ranks or covers else uncited).append(p)
    return cited, uncited


def check_row(result: RowResult, ctx: CheckContext = CheckContext(),
              extra: Sequence[CheckResult] = ()) -> list[CheckResult]:
    outcome = outcome_of(result)
    answer = result.answer
    checks = signal_checks(outcome, confidence=answer.confidence if answer else "",
                           dropped_citations=[f for f in (answer.flags if answer else []) if f.startswith("dropped")],
                           passages=len(result.passages), review=parse_review(result.question.review),
                           error=result.error)
    if outcome is not Outcome.ANSWERED or answer is None:
        return checks
    cited, uncited = cited_passages(result)
    text = answer.answer
    known_years = {y for p in cited for y, _ in extract_years(p.file_name + " " + ctx.periods.get(p.file_name, ""))}
    checks += check_form(text, len(answer.citations), result.question.allowed_values,
                         result.question.allowed_values_source)
    checks += check_figures(text, cited, uncited)
    checks += check_years(text, cited, uncited, known_years)
    checks += check_scope(text, cited)
    checks += check_ties(text, cited)
    checks += check_document_years(text, cited)
    checks += check_reporting_year(text, ctx.reporting_year)
    checks += check_newer_report(cited, result.passages, ctx.periods)
    return checks + list(extra)


def assess(result: RowResult, ctx: CheckContext = CheckContext(),
           extra: Sequence[CheckResult] = ()) -> tuple[list[CheckResult], Tier]:
    checks = check_row(result, ctx, extra)
    return checks, decide_tier(checks)
