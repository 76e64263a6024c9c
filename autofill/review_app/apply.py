"""Decisions from the browser written into the workbook, by the rules a decision typed in Excel
follows: the Review, Reviewer comment, Answer, Reasoning and Sources cells are set as a reviewer
would set them (with the Tier and Checks the decision's checks gave the row: review_app/checking.py),
and the record of what autofill wrote (workbook/record.py) is left alone, so the next
`autofill run` sees an edited Answer as a hand edit and keeps it, an Approved row as approved, and
answers a Needs-changes row again with the comment as guidance.

Every decision also becomes lines of the `Review log` sheet (who, when, which row, what changed, the
decision's id so a decision is never logged twice). The workbook is written atomically (temporary
file and rename) and never while Excel or LibreOffice has it open (fileio.ensure_not_open)."""

from __future__ import annotations

import io
import logging
from pathlib import Path

from openpyxl.cell.cell import MergedCell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils.cell import column_index_from_string

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes, ensure_not_open
from autofill.outputlock import OutputLock
from autofill.review.review_log import COLUMNS as LOG_COLUMNS
from autofill.review.review_log import DECISION_COLUMN, LogLine, confirmed_in, read_lines, undoes_in
from autofill.review.sidecar import Decision
from autofill.states import parse_tier
from autofill.workbook.layout import read_questions
from autofill.workbook.model import REVIEW_LOG_SHEET
from autofill.workbook.package import refresh_package
from autofill.workbook.safety import guard_workbook, load_workbook_safely, set_text

log = logging.getLogger(__name__)

TRUST_CELLS = ("tier", "checks")  # the row's Tier and Checks after a checked decision (review_app/checking.py)
STATUS_CELL = "status"  # the row's Status after a decision that changed its Answer, Reasoning or Sources
FIELD_LABELS = {"answer": "Answer", "reasoning": "Reasoning", "sources": "Sources", "review": "Review",
                "reviewer_comment": "Reviewer comment"}
_WIDTHS = {"A": 21, "B": 16, "C": 14, "D": 6, "E": 50, "F": 16, "G": 16, "H": 50, "I": 50, "J": 30, "K": 9, "L": 30, "M": 8}


def read_layout(settings, workbook: Path):
    return read_questions(settings, workbook)[0]


def apply_decisions(settings, workbook: Path, decisions, layout=None) -> list[int]:
    """Write `decisions` (oldest first; or a function that reads them, called under the workbook's
    lock so two writers never put an older list over a newer one) into `workbook` and its Review
    log; return the ids written.
    Raises InputError (nothing written) when the workbook is open in an office suite, or while an
    `autofill run` is writing it (outputlock: the decisions wait and go into the run's new workbook)."""
    workbook = Path(workbook)
    ensure_not_open(workbook)
    if not decisions:
        return []
    with OutputLock(workbook):
        decisions = decisions() if callable(decisions) else decisions
        return _apply(settings, workbook, decisions, layout) if decisions else []


def _apply(settings, workbook: Path, decisions: list[Decision], layout) -> list[int]:
    layout = layout if layout is not None else read_layout(settings, workbook)
    sheets = {s.name: s for s in layout.sheets}
    wb = load_workbook_safely(workbook, rich_text=True)
    for d in decisions:
        sheet_name, _, row = d.row_key.rpartition("!")
        sheet = sheets.get(sheet_name)
        if sheet is None or sheet_name not in wb.sheetnames:
            log.warning("decision %d: sheet %r is no longer in %s; kept in the Review log only", d.id, sheet_name,
                        workbook.name)
            continue
        ws = wb[sheet_name]
        for field, _before, after in d.changes():
            letter = sheet.letter(field)
            if not letter:
                log.warning("decision %d: %s has no %s column; kept in the Review log only", d.id, sheet_name,
                            FIELD_LABELS[field])
                continue
            cell = ws.cell(row=int(row), column=column_index_from_string(letter))
            if isinstance(cell, MergedCell) or (field == "answer" and cell.data_type == "f"):
                continue  # a merged or formula cell is the customer's, as in writeback
            set_text(cell, after or None)
        _put_trust(ws, sheet, int(row), d.after)
    _append_log(wb, decisions)
    buffer = io.BytesIO()
    guard_workbook(wb)  # nothing an .xlsx cannot hold reaches the file, whatever path put it in
    wb.save(buffer)

    atomic_write_bytes(workbook, refresh_package(buffer.getvalue(), workbook.read_bytes()))
    return [d.id for d in decisions]


def _put_trust(ws, sheet, row: int, after: dict[str, str]) -> None:
    """The Tier and Checks a checked decision gave the row (coloured as a run colours them), and the
    Status of an edited row (session._status)."""
    for role in (*TRUST_CELLS, STATUS_CELL):
        letter = sheet.letter(role)
        if role not in after or not letter:
            continue
        cell = ws.cell(row=row, column=column_index_from_string(letter))
        if isinstance(cell, MergedCell):
            continue
        set_text(cell, after[role] or None)
        tier = parse_tier(after[role]) if role == "tier" else None
        if tier is not None:
            cell.fill = PatternFill(fill_type="solid", start_color=tier.fill, end_color=tier.fill)


def _append_log(wb, decisions: list[Decision]) -> None:
    if REVIEW_LOG_SHEET in wb.sheetnames:
        ws = wb[REVIEW_LOG_SHEET]
    else:
        ws = wb.create_sheet(REVIEW_LOG_SHEET)
        for c, head in enumerate(LOG_COLUMNS, start=1):
            cell = ws.cell(row=1, column=c, value=head)
            cell.font, cell.fill = Font(bold=True), PatternFill("solid", fgColor="DDEBF7")
        for letter, width in _WIDTHS.items():
            ws.column_dimensions[letter].width = width
        ws.freeze_panes = "A2"
    for c, head in enumerate(LOG_COLUMNS, start=1):  # a log written before the typed columns: add them
        if ws.cell(row=1, column=c).value is None:
            cell = ws.cell(row=1, column=c, value=head)
            cell.font, cell.fill = Font(bold=True), PatternFill("solid", fgColor="DDEBF7")
    id_col = DECISION_COLUMN
    logged = {v for (v,) in ws.iter_rows(min_row=2, min_col=id_col, max_col=id_col, values_only=True)
              if v is not None}
    for d in decisions:
        if d.id in logged or str(d.id) in logged:
            continue  # written before a crash that came before the sidecar was told
        sheet, _, row = d.row_key.rpartition("!")
        confirmed = confirmed_in(d.note)
        undoes = undoes_in(d.note) if d.action == "Undo" else None
        for field, before, after in d.changes() or [("", "", "")]:
            line = LogLine(d.at, d.reviewer, sheet, int(row), d.question, d.action, FIELD_LABELS.get(field, field),
                           before, after, d.note, d.id, confirmed, undoes)
            r = ws.max_row + 1
            for c, value in enumerate(line.cells(), start=1):
                cell = ws.cell(row=r, column=c)
                if isinstance(value, int) or value is None:
                    cell.value = value
                else:
                    set_text(cell, value)
                cell.alignment = Alignment(vertical="top", wrap_text=c in (5, 8, 9, 10, 12))


def read_log(workbook: Path) -> list[dict[str, object]]:
    """The Review log sheet's lines as dicts by column name (empty when there is none;
    review_log.read_lines: typed, old logs' notes read for their confirmations and undo links)."""
    return [line.as_dict() for line in read_lines(workbook)]


def ensure_writable(workbook: Path) -> str:
    """"" when the workbook can be written now, else why not (open in Excel ...), in one line."""
    try:
        ensure_not_open(workbook)
    except InputError as exc:
        return str(exc)
    return ""
