"""A reviewer's answer checked like a model's (pure): an answer a person typed or approved goes through
the checks of every answered row (checks/row.py: figures and years against the cited pages, scope,
form, periods), a cited page missing from the evidence is named, and in a drop-down question the
Answer cell must hold one of the list's values exactly (the cell is what goes back to the customer).

Used in the browser as soon as a reviewer saves (review_app/checking.py), by the answer library
before an approved answer enters it (library/checking.py), and by `run` for the approved rows it
keeps (Tier `Approved`, Checks listing what failed: `approved`).

What a reviewer confirmed is recorded as a note of the decision (sidecar and Review log sheet):
`override_note` writes it, `overridden` reads it back (review/review_log.py keeps the confirmed checks
in their own column and finds each approved row's latest one)."""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from autofill.checks.row import CheckContext, check_row
from autofill.records import Answer, CheckResult, Citation, Passage, QuestionRow, RowResult, Severity
from autofill.states import Outcome, Tier

APPROVED_OVER = "Approved over failed checks, confirmed by the reviewer:"
SAVED_OVER = "Saved over failed checks, confirmed by the reviewer:"
_NOTE_HEADS = (APPROVED_OVER, SAVED_OVER)


def _norm(text: str) -> str:
    return " ".join(str(text or "").split()).casefold()


def dropdown_value(answer: str, allowed: Sequence[str]) -> str | None:
    """The drop-down value `answer` is (case and spacing aside), in the list's own spelling; None
    when it is none of them."""
    want = _norm(answer)
    return next((v for v in allowed if _norm(v) == want), None)


def off_list(row: QuestionRow, answer: str) -> str:
    """Why `answer` cannot stand in row's Answer cell as a drop-down value ("" when it can, or when the
    cell has no drop-down, or the answer is empty: that is its own check)."""
    text = str(answer or "").strip()
    if row.allowed_values_source != "dropdown" or not row.allowed_values or not text:
        return ""
    if dropdown_value(text, row.allowed_values) is not None:
        return ""
    shown = text if len(text) <= 40 else text[:39] + "…"
    return f"'{shown}' is not one of the drop-down values ({', '.join(row.allowed_values)})"


def dropdown_checks(row: QuestionRow, answer: str) -> list[CheckResult]:
    why = off_list(row, answer)
    return [CheckResult("dropdown", False, Severity.HARD, why)] if why else []


def missing_pages(citations: Sequence[Citation], passages: Sequence[Passage]) -> list[str]:
    """Labels of the cited pages no passage covers."""
    return [c.label() for c in citations
            if not any(p.file_name == c.file_name and p.page_start <= c.page <= max(p.page_start, p.page_end)
                       for p in passages)]


def check_reviewed(row: QuestionRow, answer: str, citations: Sequence[Citation], passages: Sequence[Passage],
                   ctx: CheckContext = CheckContext(), where: str = "today's evidence store") -> list[CheckResult]:
    """Every check of a person's `answer` with its cited pages, as `run` checks an edited row
    (answer/recheck.py): the passages are those covering the cited pages; plus the drop-down rule."""
    result = RowResult(question=row, outcome=Outcome.EDITED, passages=list(passages),
                       answer=Answer(answer=str(answer or "").strip(), status="", citations=list(citations),
                                     cited_passages=list(range(1, len(passages) + 1))))
    checks = check_row(result, ctx)
    missing = missing_pages(citations, passages)
    if missing:
        checks.append(CheckResult("citations", False, Severity.HARD,
                                  f"cited page not in {where}: {', '.join(missing)}"))
    return checks + ([] if _list_checked(checks) else dropdown_checks(row, answer))


def _list_checked(checks: Iterable[CheckResult]) -> bool:
    """Whether `checks` already judge the answer against its list: the drop-down rule, or the form
    check's own "not one of" failure (then the drop-down rule would say it twice)."""
    return any(c.name == "dropdown" or (c.name == "form" and not c.passed and "not one of" in c.reason)
               for c in checks)


def failed_reasons(checks: Iterable[CheckResult]) -> list[str]:
    """The failed checks in words, hard ones first, each once (the Checks cell's order)."""
    failed = sorted((c for c in checks if not c.passed), key=lambda c: c.severity is not Severity.HARD)
    return list(dict.fromkeys(c.reason for c in failed))


def approved(result: RowResult) -> RowResult:
    """A row kept as approved, after its checks ran (answer/recheck.py): the drop-down rule added,
    Tier `Approved`; its Checks keep every failure, so approval never hides one."""
    answer = result.answer.answer if result.answer is not None else result.question.existing_answer
    if not _list_checked(result.checks):
        result.checks = list(result.checks) + dropdown_checks(result.question, answer)
    result.tier = Tier.APPROVED
    return result


# ------------------------------------------------------------------------------ confirmations


def override_note(reasons: Sequence[str], approve: bool = True) -> str:
    """The note a confirmed decision carries: what the reviewer saw fail and went ahead with."""
    head = APPROVED_OVER if approve else SAVED_OVER
    return "\n".join([head] + [f"- {r}" for r in reasons])


def overridden(note: str) -> list[str]:
    """The reasons a decision's note says the reviewer confirmed (empty when it confirms none)."""
    lines = str(note or "").splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() in _NOTE_HEADS), None)
    if start is None:
        return []
    out = []
    for line in lines[start + 1:]:
        if not line.startswith("- "):
            break
        out.append(line[2:].strip())
    return out


def covers(confirmed: Iterable[str], failed: Iterable[str]) -> bool:
    """Every failed check is one the reviewer confirmed."""
    return set(failed) <= set(confirmed)
