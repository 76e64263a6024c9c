"""The portfolio workbook: every company at a glance.

Sheet `Portfolio`: a row per company (name in column A), a column per question. Questions are matched
by their text across questionnaires (case and spacing ignored), so companies answering the same
questionnaire, or versions of it that share questions, line up. Each cell holds the short answer,
coloured by its trust tier when a model answered it and the company's workbook has one, else by the
row's outcome (answered, evidence-only draft, unreadable reply, failed, pending).

Sheet `By datapoint` (autofill/frameworks/portfolio.py): the same answers laid against framework
datapoints, so differently worded questionnaires line up.

Sheet `Companies`: documents, reporting periods, rows answered / drafted / failed / pending, cost,
time, and links to the company's filled workbook and review report. Sheet `Legend` explains colours.

The company workbooks are read back one at a time (review/reader.read_filled_workbook), never all
held at once."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Sequence

from autofill.states import Outcome, parse_status, parse_tier

log = logging.getLogger(__name__)

SHORT_ANSWER_CHARS = 120
OUTCOME_FILL = {
    Outcome.ANSWERED: "E2EFDA",  # light green: answered, no tier given
    Outcome.DRAFTED: "DDEBF7",  # light blue: evidence-only draft, needs a person
    Outcome.UNPARSED: "FFEB9C",  # amber: the model replied but the reply could not be read
    Outcome.FAILED: "FFC7CE",  # red: no answer, see the company workbook's Status
    Outcome.PENDING: "EDEDED",  # grey: not started (cost cap); the next run answers it
    Outcome.SKIPPED: "FFFFFF",  # kept as it was in the questionnaire
    Outcome.NOT_WRITTEN: "FFC7CE",  # red: the answer could not be written into the cell (see its Status)
    Outcome.WAITING: "FFEB9C",  # amber: sent back in review, waiting for a model to answer it again
}
COMPANY_COLUMNS = ["Company", "Status", "Year", "Documents", "Reporting periods", "Question rows", "Answered",
                   "Drafted", "Failed", "Pending", "Cost (USD)", "Time (s)", "Filled workbook", "Review report",
                   "Error"]


def question_key(text: str) -> str:
    """How questions are matched across questionnaires: lower case, spacing and trailing punctuation ignored."""
    return re.sub(r"\s+", " ", str(text or "")).strip().rstrip("?.:").strip().lower()


# Rows that carry an answer to read: coloured by their trust tier.
_BY_TIER = (Outcome.ANSWERED, Outcome.REUSED, Outcome.APPROVED, Outcome.EDITED)


def row_outcome(answer: str, status: str) -> Outcome:
    """A filled row's outcome from its Status cell, read by states.parse_status (the one reader of the
    writer's spellings): an answer that could not be written is never shown as answered."""
    s = (status or "").strip()
    if not s:
        return Outcome.PENDING if not (answer or "").strip() else Outcome.SKIPPED
    return parse_status(s) or Outcome.ANSWERED


def short(text: str, limit: int = SHORT_ANSWER_CHARS) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _cells(settings: Any, questionnaire: str, output: str) -> dict[str, tuple[str, str, Any]]:
    """{question key: (question text, short answer, fill)} for every question row of the company's
    questionnaire: from its filled workbook where the run wrote the row, else the answer the
    questionnaire already had (kept), else pending. Empty when the questionnaire cannot be read."""
    from autofill.review.reader import read_filled_workbook
    from autofill.workbook.layout import read_questions

    try:
        _layout, rows = read_questions(settings, Path(questionnaire))
    except Exception as exc:  # noqa: BLE001 - the company's own error already says why
        log.debug("portfolio workbook: cannot read %s: %s", questionnaire, exc)
        return {}
    filled: dict[tuple[str, int], Any] = {}
    if output and Path(output).is_file():
        try:
            filled = {(q.sheet, q.row): q for q in read_filled_workbook(Path(output)).questions if q.in_sheet}
        except Exception as exc:  # noqa: BLE001 - a broken company workbook must not lose the portfolio view
            log.warning("could not read %s for the portfolio workbook: %s", output, exc)
    out: dict[str, tuple[str, str, Any]] = {}
    for row in rows:
        q = filled.get((row.sheet, row.row))
        answer, status = (q.answer, q.status) if q is not None else (row.existing_answer, "")
        outcome = row_outcome(answer, status)
        # A model answer by its trust tier; drafts, failures and pending rows by what they are.
        tier = parse_tier(getattr(q, "tier", "")) if q is not None and outcome in _BY_TIER else None
        fill = tier.fill if tier is not None else OUTCOME_FILL.get(outcome, OUTCOME_FILL[Outcome.ANSWERED])
        if answer.strip():
            text = short(answer)
        elif outcome is Outcome.DRAFTED and q is not None:
            text = "(evidence only: " + short(q.reasoning, 80) + ")"
        else:
            text = f"({outcome.value})"
        out.setdefault(question_key(row.question), (row.question.strip(), text, fill))
    return out


def set_text(cell: Any, value: Any) -> Any:
    """workbook/safety.set_text (never a formula, no control characters), returning the cell."""
    from autofill.workbook.safety import set_text as safe

    safe(cell, value)
    return cell


def _link(cell: Any, target: str, base: Path, label: str) -> None:
    if not target:
        return
    rel = os.path.relpath(target, base)
    cell.hyperlink = rel.replace(os.sep, "/")
    cell.value = label
    cell.style = "Hyperlink"


def write_portfolio_workbook(settings: Any, path: Path, outcomes: Sequence[Any]) -> Path:
    """Write the portfolio workbook to `path` (atomically) and return it."""
    import io

    import openpyxl
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    from autofill.fileio import atomic_write_bytes
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Portfolio"
    columns: dict[str, int] = {}  # question key -> column
    bold = Font(bold=True)
    set_text(ws.cell(row=1, column=1), "Company").font = bold
    from autofill.frameworks.portfolio import DatapointSheet

    by_datapoint = DatapointSheet()
    for r, o in enumerate(outcomes, start=2):
        set_text(ws.cell(row=r, column=1), o.company).font = bold
        cells = _cells(settings, o.questionnaire, o.output)
        by_datapoint.add(o.company, cells)
        for key, (question, text, fill) in cells.items():
            if key not in columns:
                columns[key] = len(columns) + 2
                head = set_text(ws.cell(row=1, column=columns[key]), question)
                head.font, head.alignment = bold, Alignment(wrap_text=True, vertical="top")
                ws.column_dimensions[get_column_letter(columns[key])].width = 32
            cell = set_text(ws.cell(row=r, column=columns[key]), text)
            cell.fill = PatternFill("solid", fgColor=fill)
            cell.alignment = Alignment(wrap_text=True, vertical="top")
        if o.status == "failed":
            cell = set_text(ws.cell(row=r, column=2), f"(company failed: {short(o.error, 80)})")
            cell.fill = PatternFill("solid", fgColor=OUTCOME_FILL[Outcome.FAILED])
    ws.column_dimensions["A"].width = 28
    ws.freeze_panes = "B2"
    by_datapoint.write(wb, set_text)

    cs = wb.create_sheet("Companies")
    for c, name in enumerate(COMPANY_COLUMNS, start=1):
        set_text(cs.cell(row=1, column=c), name).font = bold
    base = path.parent
    for r, o in enumerate(outcomes, start=2):
        values = [o.company, o.status, o.year, o.documents, getattr(o, "periods", ""), o.rows, o.answered, o.drafted,
                  o.failed_rows, o.pending_rows, "unknown" if getattr(o, "cost_unknown", "") else round(o.cost_usd, 4),
                  round(o.seconds, 1)]
        for c, v in enumerate(values, start=1):
            cell = cs.cell(row=r, column=c)
            set_text(cell, v) if isinstance(v, str) else setattr(cell, "value", v)
        _link(cs.cell(row=r, column=13), o.output, base, Path(o.output).name if o.output else "")
        _link(cs.cell(row=r, column=14), o.report, base, "review report")
        set_text(cs.cell(row=r, column=15), short(o.error, 300))
    for c, width in enumerate([28, 11, 6, 10, 16, 9, 9, 9, 7, 8, 10, 8, 40, 14, 60], start=1):
        cs.column_dimensions[get_column_letter(c)].width = width
    cs.freeze_panes = "B2"

    lg = wb.create_sheet("Legend")
    set_text(lg.cell(row=1, column=1), "Cell colour").font = bold
    set_text(lg.cell(row=1, column=2), "Meaning").font = bold
    legend = [("C6EFCE", "Tier Ready"), ("FFEB9C", "Tier Check, or the model's reply could not be read"),
              ("FFC7CE", "Tier Needs work, or the row failed"), (OUTCOME_FILL[Outcome.ANSWERED], "Answered (no tier)"),
              (OUTCOME_FILL[Outcome.DRAFTED], "Evidence-only draft (no model configured)"),
              (OUTCOME_FILL[Outcome.PENDING], "Pending: not started because the cost cap was reached")]
    for r, (fill, meaning) in enumerate(legend, start=2):
        lg.cell(row=r, column=1).fill = PatternFill("solid", fgColor=fill)
        set_text(lg.cell(row=r, column=2), meaning)
    lg.column_dimensions["B"].width = 60

    buf = io.BytesIO()
    wb.save(buf)
    atomic_write_bytes(path, buf.getvalue())
    return path
