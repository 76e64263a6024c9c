"""The reviewer workflow: which rows of an already-filled workbook to answer again, and which to keep.

A reviewer marks each row Approved, Needs changes or Rejected (any spelling `states.parse_review`
accepts), may edit answers and add a comment. Running autofill again:

- keeps every approved row exactly as the reviewer left it;
- re-answers rejected and needs-changes rows, with the comment as guidance (`reviewer_comment` stays
  on the QuestionRow for the answer step; the writer keeps the comment);
- keeps a row whose Answer, Reasoning or Sources a person changed after autofill wrote them (known
  from the record in carry.py), even without a Review value, and says so in its Status;
- keeps rows someone already answered (the customer's own pre-filled answers included);
- answers rows that are unanswered, failed, unparsed or only an evidence-only draft;
- with `again` (`run --fresh`), also answers again the rows autofill answered before that nobody
  approved or edited;
- without a model (`can_answer=False`), keeps rejected and needs-changes rows with their Review and
  comment, their Status saying they wait for a model (an evidence-only draft would not act on the
  comment, and writing it would clear the Review).

Every kept row says what it is (`kept_result`): an approved row's Status names the review and the date
a run first saw it approved, its Tier is `Approved`, and the pipeline checks its answer like a hand-edited
one (answer/recheck.py, checks/reviewed.approved) so its Checks list every failure the approval stands
over; a hand-edited row is re-checked on its new text the same way; a waiting row is Needs work."""

from __future__ import annotations

from autofill.records import QuestionRow, RowResult
from autofill.states import (DRAFT_PREFIX, EDITED_BY_HAND, KEPT, Outcome, ReviewState, Tier, approved_status,
                             parse_review, parse_status, parse_tier, waiting_status)
from autofill.records import CheckResult, Severity

_REDO = (Outcome.FAILED, Outcome.UNPARSED, Outcome.DRAFTED)
_ROLE_NAMES = {"answer": "Answer", "reasoning": "Reasoning", "sources": "Sources"}


def needs_answer(row: QuestionRow, edited: list[str] | tuple[str, ...] = (), again: bool = False) -> bool:
    review = parse_review(row.review)
    if review is ReviewState.APPROVED:
        return False
    if review.reanswer:
        return True
    if edited:
        return False  # a person changed what autofill wrote: theirs stands
    answer = row.existing_answer.strip()
    outcome = parse_status(row.status)
    if again and outcome not in (None, *KEPT):
        return True  # autofill's own earlier answer, untouched by anyone
    if outcome is Outcome.DRAFTED and answer and not answer.startswith(DRAFT_PREFIX):
        return False  # typed over an evidence-only draft (an output written before the edit record)
    if outcome in _REDO:
        return True
    return not answer


def rows_to_answer(rows: list[QuestionRow], edited: dict[str, list[str]] | None = None, again: bool = False,
                   can_answer: bool = True) -> tuple[list[QuestionRow], list[QuestionRow]]:
    """Split rows into (to answer, kept), both in sheet order. `edited`: row key -> the roles a person
    changed since autofill wrote them (carry.read_state); `again`, `can_answer`: see the module docstring."""
    edited = edited or {}
    to_answer, kept = [], []
    for row in rows:
        answer = needs_answer(row, edited.get(row.key, ()), again)
        if answer and not can_answer and parse_review(row.review).reanswer:
            answer = False  # waits for a model, Review and comment kept
        (to_answer if answer else kept).append(row)
    return to_answer, kept


def edited_note(roles: list[str] | tuple[str, ...]) -> str:
    names = ", ".join(_ROLE_NAMES.get(r, r) for r in roles)
    return f"{EDITED_BY_HAND} ({names}): kept as the reviewer left it"


def kept_result(row: QuestionRow, edited: list[str] | tuple[str, ...] = (), today: str = "") -> RowResult:
    """The RowResult of a kept row, by what it is (states.KEPT): APPROVED (Status names the review and
    date, Tier Approved; the pipeline fills its Checks; its other cells are never touched), WAITING (Rejected / Needs changes and
    no model), EDITED (a person changed cells autofill wrote; the pipeline re-checks it), or SKIPPED
    (answered before and untouched, or pre-filled by the customer: left exactly as it is)."""
    review = parse_review(row.review)
    if review is ReviewState.APPROVED:
        was = row.status.strip()
        note = was if parse_status(was) is Outcome.APPROVED else approved_status(today or _today())
        return RowResult(question=row, answer=None, outcome=Outcome.APPROVED, note=note, tier=Tier.APPROVED)
    if review.reanswer:
        why = f"{review.label} in review: waiting for a model to answer it again"
        return RowResult(question=row, answer=None, outcome=Outcome.WAITING,
                         note=waiting_status(review, row.reviewer_comment), tier=Tier.NEEDS_WORK,
                         checks=[CheckResult("review", False, Severity.HARD, why)])
    if edited:
        return RowResult(question=row, answer=None, outcome=Outcome.EDITED, note=edited_note(edited))
    # Left exactly as it is; its Tier from an earlier run (if any) is counted, never rewritten.
    return RowResult(question=row, answer=None, outcome=Outcome.SKIPPED, tier=parse_tier(row.existing_tier))


def _today() -> str:
    import datetime as dt

    return dt.date.today().isoformat()
