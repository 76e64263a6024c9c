"""A reviewer's answer checked in the browser the moment it is saved, with the checks the next `run`
gives it (checks/reviewed.py through library/checking.EvidenceChecker: figures and years against the
cited pages in the company's evidence store, or, without a store here, against the workbook's Evidence
sheet; the form of answer; the drop-down list; an empty answer), and the rule a decision must meet:

- an empty answer is never approved;
- approving a row whose checks failed needs the reviewer to confirm those failures by name;
- an answer that is not one of its drop-down values is never saved into the cell unconfirmed.

A confirmed decision carries its note (checks/reviewed.override_note) into the sidecar and the
Review log sheet; the library reads it back before taking the answer (library/harvest.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from autofill.checks.reviewed import dropdown_value, failed_reasons, off_list, override_note
from autofill.checks.tier import decide_tier
from autofill.records import CheckResult, Passage, QuestionRow
from autofill.states import ReviewState, Tier, parse_review
from autofill.library.checking import EvidenceChecker

EMPTY = "an empty answer cannot be approved: write the answer (or Not disclosed) first"


class Unconfirmed(Exception):
    """A decision that needs the reviewer to confirm the failed checks it names (`reasons`)."""

    def __init__(self, message: str, reasons: list[str], approve: bool):
        super().__init__(message)
        self.reasons, self.approve = reasons, approve


@dataclass
class Checked:
    """The checks of one row as the reviewer left it, and the tier they give it."""

    checks: list[CheckResult] = field(default_factory=list)
    tier: Tier | None = None
    off_list: str = ""

    @property
    def failed(self) -> list[str]:
        return failed_reasons(self.checks)

    def cells(self) -> dict[str, str]:
        """The Tier and Checks cells this gives the row."""
        return {"tier": self.tier.label if self.tier else "", "checks": "; ".join(self.failed)}


class RowChecker:
    """Checks the rows of one review session (`session`: its layout gives each row's drop-down list,
    its Evidence sheet the fallback passages)."""

    def __init__(self, settings, session):

        self.session = session
        self.evidence = EvidenceChecker(settings, session.company, fallback=self._evidence_sheet)
        self._rows: dict[str, QuestionRow] | None = None  # by key, from the layout (made once per session load)
        self._passages: dict[str, list[Passage]] | None = None  # the Evidence sheet's, by file

    def row(self, key: str) -> QuestionRow:
        if self._rows is None:
            self._rows = {q.key: q for q in self.session.layout.questions}
        q = self._rows.get(key)
        if q is None:  # not a question row of the layout (should not happen): checked without a list
            rq = self.session.questions[key]
            q = QuestionRow(sheet=rq.sheet, row=rq.row, question=rq.question)
        return q

    def choices(self, key: str) -> list[str]:
        """The drop-down values the row's Answer cell takes ([] when it has no drop-down)."""
        q = self.row(key)
        return list(q.allowed_values) if q.allowed_values_source == "dropdown" else []

    def canonical(self, key: str, answer: str) -> str:
        """A drop-down answer in the list's own spelling ("yes" -> "Yes"); any other answer as it is."""
        choices = self.choices(key)
        return (dropdown_value(answer, choices) or answer) if choices else answer

    def check(self, key: str, state: dict[str, str]) -> Checked:
        row = self.row(key)
        answer = state.get("answer", "")
        checks = self.evidence.check(row, answer, state.get("sources", ""))
        approved = parse_review(state.get("review", "")) is ReviewState.APPROVED
        return Checked(checks, Tier.APPROVED if approved else decide_tier(checks), off_list(row, answer))

    def _evidence_sheet(self, pages: Sequence[tuple[str, int]]) -> list[Passage]:
        """Passages of the workbook's Evidence sheet covering `pages` (any row's), each once."""
        if self._passages is None:
            seen: dict[tuple, Passage] = {}
            for q in self.session.questions.values():
                for e in q.evidence:
                    seen.setdefault((e.file_name, e.page_start, e.text), Passage(
                        chunk_id=f"evidence:{len(seen)}", file_name=e.file_name, page_start=e.page_start,
                        page_end=max(e.page_start, e.page_end), section="", text=e.text))
            self._passages = {}
            for passage in seen.values():
                self._passages.setdefault(passage.file_name, []).append(passage)
        found = {p.chunk_id: p for f, n in pages for p in self._passages.get(f, []) if p.page_start <= n <= p.page_end}
        return list(found.values())


def gate(action: str, before: dict[str, str], after: dict[str, str], checked: Checked,
         confirmed: Sequence[str]) -> str:
    """The note the decision carries ("" none), or why it cannot be made: Refused-worthy ValueError
    for an empty approval, Unconfirmed for failures the reviewer has not confirmed by name."""
    approving = action == "Approve"
    if approving and not after.get("answer", "").strip():
        raise ValueError(EMPTY)
    if approving:
        failed = checked.failed
    elif checked.off_list and after.get("answer", "") != before.get("answer", ""):
        failed = [checked.off_list]  # the drop-down cell would receive a value not in its list
    else:
        return ""
    if not failed:
        return ""
    missing = [r for r in failed if r not in set(confirmed or ())]
    if missing:
        what = "Approve with failed checks" if approving else "Save a value that is not in the drop-down list"
        raise Unconfirmed(f"{what}? Confirm: " + "; ".join(failed), failed, approving)
    return override_note(failed, approve=approving)
