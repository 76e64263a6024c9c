"""The output is a living document: what a person did in it survives the next run. Here: choosing the
workbook a run starts from (what a person changed by hand is found through the record of what autofill
wrote: workbook/record.py).

When the output of an earlier run exists and has the same question rows as the questionnaire, the run
reads its rows (Review, Reviewer comment, answers, the record) and writes on top of it, so a user who
passes the original questionnaire gets the same result as one who passes the edited output: nothing a
reviewer typed is lost. A questionnaire whose rows differ from the output's (a new version from the
customer: a question added, rows moved) starts from the questionnaire, and every row whose question text
is found once in the old output carries that row over: its cells, Review, comment, record entry and
evidence (`CarriedRow`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string

from autofill.errors import InputError
from autofill.questions import question_key
from autofill.records import QuestionRow
from autofill.workbook.model import WorkbookLayout
from autofill.workbook.record import WrittenRow, read_record, read_state
from autofill.workbook.layout import read_questions
from autofill.workbook.recovery import recover
from autofill.workbook.model import EVIDENCE_SHEET

log = logging.getLogger(__name__)

# --------------------------------------------------------------------------- where a run starts from

CARRIED_ROLES = ("answer", "reasoning", "sources", "confidence", "status", "review", "reviewer_comment")


@dataclass
class CarriedRow:
    """A row of an old output carried into a new version of the questionnaire (another position)."""

    source_key: str  # the row's key in the old output
    values: dict[str, object]  # role -> the old cell's value (CARRIED_ROLES present there)
    written: WrittenRow | None = None  # the old record entry: hand edits stay detectable
    evidence: list[dict] = field(default_factory=list)  # old Evidence sheet records of the row


@dataclass
class Start:
    """Where a run starts: the workbook it writes on top of, its layout and rows (with reviewer state),
    rows carried from an old output by question text, and the hand edits found."""

    base: Path
    layout: WorkbookLayout
    rows: list[QuestionRow]
    carried: dict[str, CarriedRow] = field(default_factory=dict)  # questionnaire row key -> carried row
    edited: dict[str, list[str]] = field(default_factory=dict)  # of carried rows, by questionnaire key


def same_rows(a: list[QuestionRow], b: list[QuestionRow]) -> bool:
    """The two workbooks ask the same questions in the same cells."""
    return [(q.sheet, q.row, q.question) for q in a] == [(q.sheet, q.row, q.question) for q in b]


def choose_base(settings, questionnaire: Path, layout: WorkbookLayout, rows: list[QuestionRow],
                output: Path) -> Start:
    """The workbook this run reads reviewer state from and writes on top of: the existing `output` when
    it holds the questionnaire's rows, else the questionnaire itself (with the old output's rows
    carried over by question text)."""

    output = Path(output)
    if not output.is_file() or output.resolve() == Path(questionnaire).resolve():
        return Start(questionnaire, layout, rows)
    try:
        out_layout, out_rows = read_questions(settings, output)
    except InputError as exc:
        # Damaged in a way recovery.damage does not see (the run looked before): kept aside, and the last
        # good version continued when history/ has one.

        recovery = recover(output, str(exc))
        log.warning("%s", recovery.message() if recovery else f"{output.name} cannot be read ({exc}); starting "
                    "from the questionnaire")
        try:
            if recovery is None or recovery.restored is None:
                return Start(questionnaire, layout, rows)
            out_layout, out_rows = read_questions(settings, output)
        except InputError as again:
            log.warning("its last good version cannot be read either (%s); starting from the questionnaire", again)
            return Start(questionnaire, layout, rows)
    if same_rows(rows, out_rows):
        return Start(output, out_layout, out_rows)
    start = carry_by_text(output, out_layout, out_rows, questionnaire, layout, rows)
    log.warning("the existing output %s has other question rows than %s (a new version of the questionnaire?): "
                "%d of %d rows carried over by their question text; the old file is kept in history/",
                output.name, Path(questionnaire).name, len(start.carried), len(rows))
    return start


def carry_by_text(output: Path, out_layout: WorkbookLayout, out_rows: list[QuestionRow], questionnaire: Path,
                  layout: WorkbookLayout, rows: list[QuestionRow]) -> Start:
    """Match the questionnaire's rows to the old output's by (sheet, question: autofill/questions.py's
    one rule), unique on both sides, and carry each match's state over. Rows whose text is identical are
    paired first, so two rows the rule makes one ("Total" and "Total (%)") still carry when their texts
    did not change."""
    def pair(key, olds: list[QuestionRow], news: list[QuestionRow]) -> dict[str, QuestionRow]:
        def index(qs: list[QuestionRow]) -> dict[tuple[str, str], list[QuestionRow]]:
            out: dict[tuple[str, str], list[QuestionRow]] = {}
            for q in qs:
                out.setdefault((q.sheet, key(q.question)), []).append(q)
            return out

        old_by_text = index(olds)
        return {new[0].key: old[0] for text, new in index(news).items()
                if text[1] and len(new) == 1 and len(old := old_by_text.get(text, [])) == 1}

    pairs = pair(lambda text: str(text or "").strip(), out_rows, rows)
    taken = {old.key for old in pairs.values()}
    pairs.update(pair(question_key, [q for q in out_rows if q.key not in taken],
                      [q for q in rows if q.key not in pairs]))
    if not pairs:
        return Start(questionnaire, layout, rows)
    values, evidence, record = _old_cells(output, out_layout)
    old_state = read_state(output, out_layout)
    carried: dict[str, CarriedRow] = {}
    edited: dict[str, list[str]] = {}
    new_rows = []
    for q in rows:
        old = pairs.get(q.key)
        if old is None:
            new_rows.append(q)
            continue
        moved = [{**rec, "Row": q.row, "Sheet": q.sheet} for rec in evidence.get(old.key, [])]
        carried[q.key] = CarriedRow(old.key, values.get(old.key, {}), record.get(old.key), moved)
        if old.key in old_state.edited:
            edited[q.key] = old_state.edited[old.key]
        new_rows.append(replace(q, existing_answer=old.existing_answer, status=old.status, review=old.review,
                                reviewer_comment=old.reviewer_comment))
    by_key = {n.key: n for n in new_rows}
    for sheet in layout.sheets:
        sheet.questions = [by_key[q.key] for q in sheet.questions]
    return Start(questionnaire, layout, layout.questions, carried, edited)


def _old_cells(path: Path, layout: WorkbookLayout):
    """The old output's cells by row key and role, its Evidence records by row key, and its record."""
    import openpyxl


    values: dict[str, dict[str, object]] = {}
    evidence: dict[str, list[dict]] = {}
    wb = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        record = read_record(wb)
        for sheet in layout.sheets:
            cols = {role: column_index_from_string(sheet.letter(role)) for role in CARRIED_ROLES
                    if sheet.letter(role) and not sheet.columns[role].added}
            wanted = set(sheet.question_rows)
            if not cols or not wanted:
                continue
            for r, cells in enumerate(wb[sheet.name].iter_rows(min_row=min(wanted), max_row=max(wanted),
                                                               max_col=max(cols.values()), values_only=True),
                                      start=min(wanted)):
                if r in wanted:
                    values[f"{sheet.name}!{r}"] = {role: cells[c - 1] for role, c in cols.items() if c - 1 < len(cells)}
        if EVIDENCE_SHEET in wb.sheetnames:
            rows = wb[EVIDENCE_SHEET].iter_rows(values_only=True)
            header = next(rows, ())
            default = layout.sheets[0].name if layout.sheets else ""
            for values_row in rows:
                rec = {h: v for h, v in zip(header, values_row) if isinstance(h, str)}
                try:
                    row = int(rec.get("Row"))
                except (TypeError, ValueError):
                    continue
                evidence.setdefault(f"{rec.get('Sheet') or default}!{row}", []).append(rec)
    finally:
        wb.close()
    return values, evidence, record
