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
  approved or edited."""

from __future__ import annotations

from autofill.records import QuestionRow, RowResult
from autofill.states import DRAFT_PREFIX, EDITED_BY_HAND, Outcome, ReviewState, parse_review, parse_status

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
    if again and outcome not in (None, Outcome.SKIPPED):
        return True  # autofill's own earlier answer, untouched by anyone
    if outcome is Outcome.DRAFTED and answer and not answer.startswith(DRAFT_PREFIX):
        return False  # typed over an evidence-only draft (an output written before the edit record)
    if outcome in _REDO:
        return True
    return not answer


def rows_to_answer(rows: list[QuestionRow], edited: dict[str, list[str]] | None = None, again: bool = False
                   ) -> tuple[list[QuestionRow], list[QuestionRow]]:
    """Split rows into (to answer, kept), both in sheet order. `edited`: row key -> the roles a person
    changed since autofill wrote them (carry.read_state); `again`: see the module docstring."""
    edited = edited or {}
    to_answer, kept = [], []
    for row in rows:
        (to_answer if needs_answer(row, edited.get(row.key, ()), again) else kept).append(row)
    return to_answer, kept


def edited_note(roles: list[str] | tuple[str, ...]) -> str:
    names = ", ".join(_ROLE_NAMES.get(r, r) for r in roles)
    return f"{EDITED_BY_HAND} ({names}): kept as the reviewer left it"


def kept_result(row: QuestionRow, edited: list[str] | tuple[str, ...] = ()) -> RowResult:
    """The RowResult of a kept row: SKIPPED, written only to say in Status that it was edited by hand
    (approved and pre-filled rows are left exactly as they are)."""
    note = ""
    if edited and parse_review(row.review) is not ReviewState.APPROVED:
        note = edited_note(edited)
    return RowResult(question=row, answer=None, outcome=Outcome.SKIPPED, note=note)
