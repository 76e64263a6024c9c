"""The Review log sheet, typed (issue 44): one line per changed field of a decision made in
`autofill review`, with the confirmation (the failed checks the reviewer confirmed) and the undo link
(the decision an Undo takes back) in their own columns, and one reader every place uses
(review_app/apply.py, the review report, the answer library's harvest, `approval_overrides`).

Logs written before these columns existed are read too: their confirmations and undo links were
sentences of the Note ("Approved over failed checks, confirmed by the reviewer:" then "- check" lines;
"undoes decision 3 (Approve)"), read back from it when the columns are absent or empty."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from autofill.checks.reviewed import overridden
from autofill.workbook.model import REVIEW_LOG_SHEET

COLUMNS = ["When", "Reviewer", "Sheet", "Row", "Question", "Action", "Field", "Before", "After", "Note",
           "Decision", "Confirmed", "Undoes"]
DECISION_COLUMN = COLUMNS.index("Decision") + 1  # where every log, old or new, keeps the decision's id
_UNDOES = re.compile(r"undoes decision (\d+)")


def _int(value: Any) -> int | None:
    try:
        return int(float(str(value).strip()))
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _row(value: Any) -> int | str | None:
    """A questionnaire row's number, or a form datapoint's input cell ("D6": review_app/form_apply.py)."""
    number = _int(value)
    return number if number is not None or value is None else _text(value).strip() or None


def undoes_in(note: str) -> int | None:
    """The decision an old log's Undo note names (pure)."""
    m = _UNDOES.search(_text(note))
    return int(m.group(1)) if m else None


def confirmed_in(note: str) -> tuple[str, ...]:
    """The checks an old log's note says the reviewer confirmed (pure; checks/reviewed.overridden)."""
    return tuple(overridden(_text(note)))


@dataclass(frozen=True)
class LogLine:
    when: str
    reviewer: str
    sheet: str
    row: int | str | None  # a form's lines name the datapoint's input cell
    question: str
    action: str
    field: str
    before: str
    after: str
    note: str
    decision: int | None
    confirmed: tuple[str, ...] = ()  # the failed checks the reviewer confirmed
    undoes: int | None = None  # the decision this Undo takes back

    @property
    def row_key(self) -> str:
        return f"{self.sheet}!{self.row or 0}"

    def cells(self) -> list[Any]:
        """The line's values in COLUMNS order, as the writer puts them in the sheet."""
        return [self.when, self.reviewer, self.sheet, self.row, self.question, self.action, self.field,
                self.before, self.after, self.note, self.decision, "\n".join(self.confirmed),
                self.undoes]

    def as_dict(self) -> dict[str, Any]:
        """By column name (the review report's template and JSON)."""
        values = self.cells()
        values[COLUMNS.index("Confirmed")] = list(self.confirmed)
        return dict(zip(COLUMNS, values))

    @classmethod
    def from_columns(cls, by_name: dict[str, Any]) -> "LogLine":
        """A line read by its header's names; old logs' confirmation and undo link from the Note."""
        note = _text(by_name.get("Note"))
        confirmed_cell = _text(by_name.get("Confirmed")).strip()
        confirmed = (tuple(c.strip() for c in confirmed_cell.splitlines() if c.strip()) if confirmed_cell
                     else confirmed_in(note))
        undoes = _int(by_name.get("Undoes"))
        action = _text(by_name.get("Action"))
        if undoes is None and action == "Undo":
            undoes = undoes_in(note)
        return cls(_text(by_name.get("When")), _text(by_name.get("Reviewer")), _text(by_name.get("Sheet")),
                   _row(by_name.get("Row")), _text(by_name.get("Question")), action, _text(by_name.get("Field")),
                   _text(by_name.get("Before")), _text(by_name.get("After")), note, _int(by_name.get("Decision")),
                   confirmed, undoes)


def lines_of(wb) -> list[LogLine]:
    """The Review log of an open workbook (openpyxl), typed; [] without one. The one reader."""
    if REVIEW_LOG_SHEET not in wb.sheetnames:
        return []
    rows = wb[REVIEW_LOG_SHEET].iter_rows(values_only=True)
    header = [_text(h) for h in next(rows, ())]
    return [LogLine.from_columns(dict(zip(header, r))) for r in rows if any(v is not None for v in r)]


def read_lines(workbook: Path) -> list[LogLine]:
    """The Review log of the workbook at `workbook`, typed."""
    import openpyxl

    wb = openpyxl.load_workbook(workbook, read_only=True, data_only=True)
    try:
        return lines_of(wb)
    finally:
        wb.close()


def approval_overrides(lines: Iterable[LogLine]) -> dict[str, tuple[str, ...]]:
    """Row key ("Sheet!12") -> the checks confirmed by its latest approval still standing; an approval
    taken back by Undo, or followed by another decision on the row, stands no more (pure)."""
    logged = [x for x in lines if x.decision is not None]
    undone = {x.undoes for x in logged if x.action == "Undo" and x.undoes is not None}
    last: dict[str, LogLine] = {}
    for x in logged:
        if x.decision in undone or x.action == "Undo":
            continue
        if x.row_key not in last or x.decision >= last[x.row_key].decision:
            last[x.row_key] = x
    return {key: x.confirmed for key, x in last.items() if x.action == "Approve"}
