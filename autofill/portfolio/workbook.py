"""The portfolio workbook: every company at a glance.

Sheet `Portfolio`: a row per company (name in column A), a column per question. Questions are matched
by their text across questionnaires (case and spacing ignored), so companies answering the same
questionnaire, or versions of it that share questions, line up. Each cell holds the short answer,
coloured by its trust tier when a model answered it and the company's workbook has one, else by the
row's outcome (answered, evidence-only draft, unreadable reply, failed, pending).

Sheet `By datapoint` (autofill/frameworks/portfolio.py): the same answers laid against framework
datapoints, so differently worded questionnaires line up.

Sheet `Companies`: documents, reporting periods, the rows of its filled workbook as it stands by how
they ended (`COUNT_COLUMNS`, `reviewed_outcome`: answered, drafted, unparsed, failed, not written, reused, pending,
skipped, approved, edited by hand, sent back), what the run that last worked on it cost and took, and
links to the workbook and its review report. Sheet `Legend` explains colours.

Counts are read from each company's workbook (its Status cells through states.parse_status, its Review
cells through states.parse_review), not from the batch that ran last: a re-run that keeps every row, a
company that is up to date and a reviewer's decisions made since all show what the workbook holds.

The company workbooks are read back one at a time (review/reader.read_filled_workbook), never all
held at once."""

from __future__ import annotations

import logging
import os
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from autofill import questions
from autofill.states import Outcome, ReviewState, parse_review, parse_status, parse_tier
from autofill.review.reader import read_filled_workbook
from autofill.fileio import atomic_write_bytes
from autofill.frameworks.portfolio import DatapointSheet
from autofill.workbook.safety import guard_workbook

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
# The Companies sheet's (and index page's) count columns: a row's outcome (states.Outcome) -> header,
# in run's words (summaries.row_counts). APPROVED and WAITING also take rows a reviewer approved or sent
# back since the last run (their Review cell), before a run writes that into Status.
COUNT_COLUMNS = {Outcome.ANSWERED: "Answered", Outcome.DRAFTED: "Drafted", Outcome.UNPARSED: "Unparsed",
                 Outcome.FAILED: "Failed", Outcome.NOT_WRITTEN: "Not written", Outcome.REUSED: "Reused",
                 Outcome.PENDING: "Pending", Outcome.SKIPPED: "Skipped", Outcome.APPROVED: "Approved",
                 Outcome.EDITED: "Edited by hand", Outcome.WAITING: "Sent back"}
COMPANY_COLUMNS = ["Company", "Status", "Year", "Documents", "Reporting periods", "Question rows",
                   *COUNT_COLUMNS.values(), "Cost (USD)", "Time (s)", "Filled workbook", "Review report", "Error"]


def question_key(text: str) -> str:
    """How questions are matched across questionnaires: the one rule of autofill/questions.py."""
    return questions.question_key(text)


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


def reviewed_outcome(answer: str, status: str, review: str) -> Outcome:
    """A row's outcome in the overview: a reviewer's Approved / Rejected / Needs changes in its Review
    cell counts as soon as it is made (approved; sent back, waiting to be answered again), else how its
    Status says it ended (row_outcome)."""
    state = parse_review(review)
    if state is ReviewState.APPROVED:
        return Outcome.APPROVED
    if state.reanswer:
        return Outcome.WAITING
    return row_outcome(answer, status)


def _cells(settings: Any, questionnaire: str, output: str) -> tuple[dict[str, tuple[str, str, Any]], Counter]:
    """({question key: (question text, short answer, fill)}, rows by outcome) for every question row of
    the company's questionnaire: from its filled workbook where the run wrote the row, else the answer
    the questionnaire already had (kept), else pending. Empty when the questionnaire cannot be read."""
    from autofill.forms.run import form_of
    from autofill.workbook.layout import read_questions

    counts: Counter = Counter()
    try:
        if form_of(Path(questionnaire)) is not None:
            return _form_cells(output)
    except Exception as exc:  # noqa: BLE001 - the company's own error already says why
        log.debug("portfolio workbook: cannot read %s as a form: %s", questionnaire, exc)
    try:
        _layout, rows = read_questions(settings, Path(questionnaire))
    except Exception as exc:  # noqa: BLE001 - the company's own error already says why
        log.debug("portfolio workbook: cannot read %s: %s", questionnaire, exc)
        return {}, counts
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
        counts[reviewed_outcome(answer, status, q.review if q is not None else row.review)] += 1
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
    return out, counts


# A form's datapoint, by its Evidence sheet's Status (forms.answer.Decision values) -> the overview's outcome
# (as portfolio/outcome.FORM_COUNTS counts them for `batch`'s summary).
FORM_OUTCOMES = {"written": Outcome.ANSWERED, "not disclosed": Outcome.ANSWERED, "draft": Outcome.DRAFTED,
                 "failed": Outcome.FAILED, "waiting for approval": Outcome.NOT_WRITTEN,
                 "form computes it": Outcome.SKIPPED, "approved": Outcome.APPROVED, "kept: edited by hand": Outcome.EDITED,
                 "kept: earlier run": Outcome.REUSED}
FORM_IN_CELLS = ("written", "approved", "kept: edited by hand", "kept: earlier run")  # forms.answer.IN_FORM


def _form_cells(output: str) -> tuple[dict[str, tuple[str, str, Any]], Counter]:
    """A filled form's datapoints, one cell each (its label; its value, or its status in brackets), read
    from the Evidence sheet run_form wrote (its first row per named range); empty before any run."""
    import openpyxl

    counts: Counter = Counter()
    out: dict[str, tuple[str, str, Any]] = {}
    if not output or not Path(output).is_file():
        return out, counts
    wb = openpyxl.load_workbook(output, read_only=True, data_only=True)
    try:
        if "Evidence" not in wb.sheetnames:
            return out, counts
        rows = wb["Evidence"].iter_rows(values_only=True)
        head = [str(h or "") for h in next(rows, ())]
        at = {h: i for i, h in enumerate(head)}
        if not {"Named range", "Label", "Status", "Value"} <= set(at):
            return out, counts
        points: dict[str, list] = {}  # named range -> [label, status, value]: the value on its cited rows
        for row in rows:
            key = str(row[at["Named range"]] or "")
            if not key:
                continue
            point = points.setdefault(key, [str(row[at["Label"]] or key), str(row[at["Status"]] or ""), None])
            rank = row[at["Rank"]] if "Rank" in at else None
            if point[2] in (None, "") and rank != "candidate":
                point[2] = row[at["Value"]]
        for label, status, value in points.values():
            outcome = FORM_OUTCOMES.get(status, Outcome.ANSWERED)
            counts[outcome] += 1
            shown = short(str(value)) if status in FORM_IN_CELLS and value not in (None, "") else f"({status})"
            out.setdefault(question_key(label), (label.strip(), shown, OUTCOME_FILL.get(outcome, "FFFFFF")))
    finally:
        wb.close()
    return out, counts


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


def write_portfolio_workbook(settings: Any, path: Path, outcomes: Sequence[Any]) -> tuple[Path, list[Counter]]:
    """Write the portfolio workbook to `path` (atomically); return it and, per company in order, the rows
    of its workbook by outcome (what the index page shows too)."""
    import io

    import openpyxl
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Portfolio"
    columns: dict[str, int] = {}  # question key -> column
    bold = Font(bold=True)
    set_text(ws.cell(row=1, column=1), "Company").font = bold

    by_datapoint = DatapointSheet()
    counted: list[Counter] = []
    for r, o in enumerate(outcomes, start=2):
        set_text(ws.cell(row=r, column=1), o.company).font = bold
        cells, counts = _cells(settings, o.questionnaire, o.output)
        counted.append(counts)
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
    at = {name: c for c, name in enumerate(COMPANY_COLUMNS, start=1)}
    for r, (o, counts) in enumerate(zip(outcomes, counted), start=2):
        values = [o.company, o.status, o.year, o.documents, getattr(o, "periods", ""), sum(counts.values()) or o.rows,
                  *(counts[outcome] for outcome in COUNT_COLUMNS),
                  "unknown" if getattr(o, "cost_unknown", "") else round(o.last_cost_usd, 4), round(o.last_seconds, 1)]
        for c, v in enumerate(values, start=1):
            cell = cs.cell(row=r, column=c)
            set_text(cell, v) if isinstance(v, str) else setattr(cell, "value", v)
        _link(cs.cell(row=r, column=at["Filled workbook"]), o.output, base, Path(o.output).name if o.output else "")
        _link(cs.cell(row=r, column=at["Review report"]), o.report, base, "review report")
        set_text(cs.cell(row=r, column=at["Error"]), short(o.error, 300))
    for name, c in at.items():
        cs.column_dimensions[get_column_letter(c)].width = {"Company": 28, "Filled workbook": 40, "Error": 60,
                                                            "Reporting periods": 16}.get(name, 11)
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
    guard_workbook(wb)  # a company or question text an .xlsx cannot hold never reaches the file
    wb.save(buf)
    atomic_write_bytes(path, buf.getvalue())
    return path, counted
