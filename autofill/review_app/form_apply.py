"""A form's review decisions written into it (review_app/forms.py): the value of an approved or edited
datapoint into its input cell(s) and one line per changed field into the Review log sheet, both at the
xlsx package level (workbook/package.patch_bytes, evidence.add_sheet) so the form's cross-sheet
drop-downs, defined names and formulas' cached values stay as they are; the file written atomically,
never while an office suite has it open or a run writes it."""

from __future__ import annotations

import io
import logging

from autofill.fileio import atomic_write_bytes, ensure_not_open
from autofill.review_app.apply import LOG_COLUMNS
from autofill.review.review_log import DECISION_COLUMN
from autofill.workbook.model import REVIEW_LOG_SHEET
from autofill.outputlock import OutputLock
from autofill.workbook.package import CellWrite, patch_bytes
from autofill.library.forms import reviewed
from autofill.review.review_log import LogLine, confirmed_in, undoes_in
from autofill.workbook.evidence import add_sheet
from autofill.workbook.xlsx_parts import column_letters

# The session's field names as the Review log of a form names them.
FORM_FIELDS = {"answer": "Value", "reasoning": "Reasoning", "sources": "Sources", "review": "Review",
               "reviewer_comment": "Reviewer comment"}

log = logging.getLogger(__name__)


def apply_form_decisions(session, decisions) -> list[int]:
    """Write `decisions` (a function that reads the pending ones, called under the workbook's lock)
    into the form `session` reviews; the ids written. A decision writes its datapoint's value when it
    approves it or changes it; the last decision of a cell wins."""

    path = session.path
    ensure_not_open(path)
    with OutputLock(path):
        decisions = decisions() if callable(decisions) else decisions
        if not decisions:
            return []
        writes = {}
        for d in decisions:  # an approval or changed value writes it; an Undo puts back what it replaced
            for sheet, ref, value in session.cell_writes(d) or []:
                writes[(sheet, ref)] = CellWrite(sheet, ref, value)
        data = path.read_bytes()
        if writes:
            data = patch_bytes(data, list(writes.values()))
        data = _append_log(data, session, decisions)
        atomic_write_bytes(path, data)

        reviewed(session.settings, session, decisions)  # approved values into the answer library, undone ones out
        return [d.id for d in decisions]


def _log_lines(session, decisions, logged: set) -> list[tuple]:

    lines = []
    for d in decisions:
        if d.id in logged:
            continue  # written before a crash that came before the sidecar was told
        sheet, _, cell = d.row_key.rpartition("!")
        q = session.questions.get(d.row_key)
        what = f"{q.question} ({q.named})" if q is not None and q.named else d.question
        confirmed = confirmed_in(d.note)
        undoes = undoes_in(d.note) if d.action == "Undo" else None  # the link an Undo keeps to what it takes back
        for field, before, after in d.changes() or [("", "", "")]:
            lines.append(tuple(LogLine(d.at, d.reviewer, sheet, cell, what, d.action, FORM_FIELDS.get(field, field),
                                       before, after, d.note, d.id, confirmed, undoes).cells()))
    return lines


def _append_log(data: bytes, session, decisions) -> bytes:
    """The package with the decisions' lines at the end of its Review log sheet (added when missing)."""
    import openpyxl


    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    try:
        if REVIEW_LOG_SHEET not in wb.sheetnames:
            return add_sheet(data, REVIEW_LOG_SHEET, LOG_COLUMNS, _log_lines(session, decisions, set()))[0]
        ws = wb[REVIEW_LOG_SHEET]
        rows = [r for r in ws.iter_rows(values_only=True)]
    finally:
        wb.close()
    last = max((i for i, r in enumerate(rows, start=1) if any(v not in (None, "") for v in r)), default=1)
    logged = set()
    for r in rows[1:]:
        v = r[DECISION_COLUMN - 1] if len(r) >= DECISION_COLUMN else None
        try:
            logged.add(int(v))
        except (TypeError, ValueError):
            continue
    writes = []
    for n, line in enumerate(_log_lines(session, decisions, logged), start=last + 1):
        writes += [CellWrite(REVIEW_LOG_SHEET, f"{column_letters(c)}{n}", v if isinstance(v, int) or v is None
                             else str(v)) for c, v in enumerate(line, start=1) if v not in (None, "")]
    return patch_bytes(data, writes) if writes else data
