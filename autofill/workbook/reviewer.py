"""The reviewer workflow: which rows of an already-filled workbook to answer again.

A reviewer marks each row Approved, Needs changes or Rejected (and may edit answers and add a comment).
Running autofill on that workbook keeps every approved row exactly as the reviewer left it, keeps rows
someone already answered (the customer's own pre-filled answers included), and re-answers rows that are
unanswered, failed, rejected or need changes. A needs-changes row's comment stays on the QuestionRow
(`reviewer_comment`) for the answer step to use as guidance."""

from __future__ import annotations

from autofill.records import QuestionRow

REANSWER_REVIEWS = {"rejected", "needs changes", "needs change", "needs-changes", "reject"}


def _norm(text: str) -> str:
    return " ".join(str(text or "").split()).lower()


def needs_answer(row: QuestionRow) -> bool:
    review = _norm(row.review)
    if review == "approved":
        return False
    if review in REANSWER_REVIEWS:
        return True
    status = _norm(row.status)
    if status.startswith("failed"):
        return True
    # An evidence-only draft quotes passages; no model has answered the row yet.
    if status.startswith("evidence only"):
        return True
    return not row.existing_answer.strip()


def rows_to_answer(rows: list[QuestionRow]) -> tuple[list[QuestionRow], list[QuestionRow]]:
    """Split rows into (to answer, kept), both in sheet order."""
    to_answer, kept = [], []
    for row in rows:
        (to_answer if needs_answer(row) else kept).append(row)
    return to_answer, kept
