"""The output is a living document: what a person did in it survives the next run.

Two parts:

- A record of what autofill wrote. After each row it writes, the writer stores short hashes of the
  row's Answer, Reasoning and Sources cells as they were left, in a very hidden sheet
  (`RECORD_SHEET`). A later run compares the cells with the record: a cell that differs was changed by
  a person since, so the row is kept as they left it (the Status says so), even without a Review.
- Choosing the workbook a run starts from. When the output of an earlier run exists and has the same
  question rows as the questionnaire, the run reads its rows (Review, Reviewer comment, answers,
  the record) and writes on top of it, so a user who passes the original questionnaire gets the same
  result as one who passes the edited output: nothing a reviewer typed is lost. A questionnaire whose
  rows differ from the output's (a new version from the customer) starts from the questionnaire; the
  previous output is then only in history/ (see history.py), and the run says so.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string

from autofill.errors import InputError
from autofill.records import QuestionRow
from autofill.workbook.model import WorkbookLayout

log = logging.getLogger(__name__)

RECORD_SHEET = "autofill record"
TRACKED_ROLES = ("answer", "reasoning", "sources")  # cells whose hand edits keep a row
RECORD_COLUMNS = ["Sheet", "Row", "Question sha", "answer sha", "reasoning sha", "sources sha"]


def value_hash(value: object) -> str:
    """A short hash of a cell's text, whitespace-insensitive ("" for an empty cell)."""
    if value is None:
        return ""
    text = " ".join(str(value).split())
    if not text:
        return ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class WrittenRow:
    """What the cells of one row looked like when autofill last wrote the row."""

    question: str  # hash of the question text: a record never applies to another question
    cells: dict[str, str]  # role -> value_hash


# --------------------------------------------------------------------------- the record sheet


def read_record(wb) -> dict[str, WrittenRow]:
    """The record of a loaded workbook by row key ("Sheet!12"); empty when it has none."""
    if RECORD_SHEET not in wb.sheetnames:
        return {}
    out: dict[str, WrittenRow] = {}
    rows = wb[RECORD_SHEET].iter_rows(min_row=2, values_only=True)
    for values in rows:
        values = list(values) + [None] * (len(RECORD_COLUMNS) - len(values))
        sheet, row = values[0], values[1]
        if sheet is None or row is None:
            continue
        try:
            key = f"{sheet}!{int(row)}"
        except (TypeError, ValueError):
            continue
        out[key] = WrittenRow(str(values[2] or ""), {role: str(v or "") for role, v in
                                                       zip(TRACKED_ROLES, values[3:3 + len(TRACKED_ROLES)])})
    return out


def write_record(wb, record: dict[str, WrittenRow]) -> None:
    """(Re)write the record sheet, very hidden: Excel's Unhide menu does not list it, so nobody edits
    it by accident; it is plain hashes, nothing secret."""
    if RECORD_SHEET in wb.sheetnames:
        wb.remove(wb[RECORD_SHEET])
    ws = wb.create_sheet(RECORD_SHEET)
    ws.append(RECORD_COLUMNS)

    def order(key: str) -> tuple[str, int]:
        sheet, _, row = key.rpartition("!")
        return sheet, int(row) if row.isdigit() else 0

    for key in sorted(record, key=order):
        sheet, _, row = key.rpartition("!")
        w = record[key]
        ws.append([sheet, int(row), w.question, *(w.cells.get(role, "") for role in TRACKED_ROLES)])
    ws.sheet_state = "veryHidden"


def written_row(ws, letters: dict[str, str | None], q: QuestionRow) -> WrittenRow:
    """The record entry for row `q` of worksheet `ws` as it is now (right after writing it)."""
    cells = {}
    for role in TRACKED_ROLES:
        letter = letters.get(role)
        cells[role] = value_hash(ws.cell(row=q.row, column=column_index_from_string(letter)).value) if letter else ""
    return WrittenRow(value_hash(q.question), cells)


# --------------------------------------------------------------------------- reading a workbook's state


@dataclass
class CarriedState:
    """What the workbook a run starts from says about its rows beyond the QuestionRows themselves."""

    edited: dict[str, list[str]] = field(default_factory=dict)  # row key -> roles changed by hand
    record: dict[str, WrittenRow] = field(default_factory=dict)


def read_state(path: Path, layout: WorkbookLayout) -> CarriedState:
    """Compare the tracked cells of every question row with the record of what autofill wrote."""
    path = Path(path)
    if layout.kind != "xlsx":
        return CarriedState()
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=False)
    except Exception:  # noqa: BLE001 - read_questions has already judged the file readable
        return CarriedState()
    try:
        record = read_record(wb)
        if not record:
            return CarriedState()
        edited: dict[str, list[str]] = {}
        for sheet in layout.sheets:
            cols = {role: column_index_from_string(sheet.letter(role)) for role in TRACKED_ROLES
                    if sheet.letter(role) and not sheet.columns[role].added}
            wanted = {q.row: q for q in sheet.questions if q.key in record}
            if not cols or not wanted or sheet.name not in wb.sheetnames:
                continue
            last = max(cols.values())
            for r, values in enumerate(wb[sheet.name].iter_rows(min_row=min(wanted), max_row=max(wanted),
                                                                max_col=last, values_only=True), start=min(wanted)):
                q = wanted.get(r)
                if q is None:
                    continue
                before = record[q.key]
                if before.question != value_hash(q.question):
                    continue  # the record is of another question that stood here
                roles = [role for role, c in cols.items()
                         if value_hash(values[c - 1] if c - 1 < len(values) else None) != before.cells.get(role, "")]
                if roles:
                    edited[q.key] = [role for role in TRACKED_ROLES if role in roles]
        return CarriedState(edited=edited, record=record)
    finally:
        wb.close()


# --------------------------------------------------------------------------- where a run starts from


def same_rows(a: list[QuestionRow], b: list[QuestionRow]) -> bool:
    """The two workbooks ask the same questions in the same cells."""
    return [(q.sheet, q.row, q.question) for q in a] == [(q.sheet, q.row, q.question) for q in b]


def choose_base(settings, questionnaire: Path, layout: WorkbookLayout, rows: list[QuestionRow],
                output: Path) -> tuple[Path, WorkbookLayout, list[QuestionRow]]:
    """The workbook this run reads reviewer state from and writes on top of: the existing `output` when
    it holds the questionnaire's rows, else the questionnaire itself."""
    from autofill.workbook.layout import read_questions

    output = Path(output)
    if not output.is_file() or output.resolve() == Path(questionnaire).resolve():
        return questionnaire, layout, rows
    try:
        out_layout, out_rows = read_questions(settings, output)
    except InputError as exc:
        log.warning("the existing output %s cannot be read (%s); starting from the questionnaire. The old "
                    "file is kept in history/", output.name, exc)
        return questionnaire, layout, rows
    if not same_rows(rows, out_rows):
        log.warning("the existing output %s has other question rows than %s (a new version of the "
                    "questionnaire?); starting from the questionnaire. Reviews in the old output are not carried "
                    "over; the old file is kept in history/", output.name, Path(questionnaire).name)
        return questionnaire, layout, rows
    return output, out_layout, out_rows
