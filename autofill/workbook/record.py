"""The record of what autofill wrote in an output, and what it tells a later run.

After each row it writes, the writer stores short hashes of the row's Answer, Reasoning and Sources
cells as they were left, in a very hidden sheet (`RECORD_SHEET`). A later run compares the cells with
the record: a cell that differs was changed by a person since, so the row is kept as they left it (the
Status says so), even without a Review (`read_state`). Beside the record (columns H:I) the workbook says
what it was made for (company, evidence store, questionnaire): a run never continues, keeps rows from or
overwrites a workbook made for another company (`check_made_for`). Where a run starts from, and the rows
carried into a new version of a questionnaire, are workbook/carry.py's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string

from autofill.errors import InputError
from autofill.hashing import file_sha256
from autofill.records import QuestionRow
from autofill.workbook.model import WorkbookLayout
from autofill.workbook.safety import set_text

RECORD_SHEET = "autofill record"
TRACKED_ROLES = ("answer", "reasoning", "sources")  # cells whose hand edits keep a row
RECORD_COLUMNS = ["Sheet", "Row", "Question sha", "answer sha", "reasoning sha", "sources sha"]
# What the workbook was made for, as label/value pairs beside the record (columns H:I): a run never
# continues, keeps rows from or overwrites a workbook made for another company (`check_made_for`).
IDENTITY_COLUMN = 8
IDENTITY_LABELS = {"company": "Made for company", "store": "Evidence store", "questionnaire": "Questionnaire",
                   "questionnaire_sha": "Questionnaire sha256"}


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


def read_identity(wb) -> dict[str, str]:
    """What a loaded workbook was made for (keys of IDENTITY_LABELS); empty for outputs of versions that
    did not record it, and for questionnaires."""
    if RECORD_SHEET not in wb.sheetnames:
        return {}
    by_label = {label: key for key, label in IDENTITY_LABELS.items()}
    out: dict[str, str] = {}
    ws = wb[RECORD_SHEET]
    for values in ws.iter_rows(min_row=1, max_row=len(IDENTITY_LABELS), min_col=IDENTITY_COLUMN,
                               max_col=IDENTITY_COLUMN + 1, values_only=True):
        if values and values[0] in by_label and values[1] not in (None, ""):
            out[by_label[values[0]]] = str(values[1])
    return out


def made_for(path: Path) -> dict[str, str]:
    """The identity recorded in the workbook at `path` ({} when none, or not an xlsx autofill wrote)."""
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True)
    except Exception:  # noqa: BLE001 - not ours to judge here: read_questions says what is wrong
        return {}
    try:
        return read_identity(wb)
    finally:
        wb.close()


def check_made_for(output: Path, company: str, store: str, questionnaire: bool = False,
                   look_in: tuple[Path, ...] = ()) -> None:
    """Refuse (InputError, exit 2) to continue or overwrite an existing output made for another company.
    Outputs without a recorded company (earlier versions) are continued as before. `questionnaire`:
    `output` was given as the questionnaire; the advice is then the run from the customer's own
    questionnaire (found by the name and SHA-256 the workbook recorded, in `look_in` and beside it)."""
    output = Path(output)
    if not output.is_file():
        return
    found = made_for(output)
    theirs_store, theirs = found.get("store", ""), found.get("company", "")
    if not theirs and not theirs_store:
        return
    if (theirs_store and store and theirs_store != store) or (not theirs_store and theirs != company):
        if questionnaire:
            raise InputError(f"{output} was made for company {theirs!r}, not {company!r}: it is that company's filled "
                             f"workbook, not a questionnaire for {company!r}; start from the customer's questionnaire: "
                             f"{_run_command(company, _original(output, found, look_in))}")
        raise InputError(f"{output} was made for company {theirs!r}, not {company!r}: autofill neither continues "
                         f"nor overwrites it; write to another folder with --out (or move that file away)")


def _original(output: Path, identity: dict[str, str], look_in: tuple[Path, ...]) -> Path | None:
    """The questionnaire a workbook was filled from: a file of the recorded name (and SHA-256, when one
    was recorded) in `look_in`, beside the workbook or a folder above it; None when none is found."""

    name = Path(identity.get("questionnaire", "")).name
    if not name:
        return None
    for folder in (*look_in, output.parent, output.parent.parent, Path.cwd()):
        candidate = Path(folder) / name
        try:
            if candidate.is_file() and candidate.resolve() != output.resolve() and (
                    not identity.get("questionnaire_sha") or file_sha256(candidate) == identity["questionnaire_sha"]):
                return candidate
        except OSError:
            continue
    return None


def _run_command(company: str, questionnaire: Path | None) -> str:
    """`autofill run --company ... --questionnaire ...`, quoted for a shell; the path relative to the
    current folder when it is below it."""
    import os
    import shlex

    if questionnaire is None:
        return f"autofill run --company {shlex.quote(company)} --questionnaire <the customer's questionnaire>"
    path = os.path.relpath(questionnaire.resolve(), Path.cwd())
    if path.startswith(".."):
        path = str(questionnaire.resolve())
    return f"autofill run --company {shlex.quote(company)} --questionnaire {shlex.quote(path)}"


def write_record(wb, record: dict[str, WrittenRow], identity: dict[str, str] | None = None) -> None:
    """(Re)write the record sheet, very hidden: Excel's Unhide menu does not list it, so nobody edits
    it by accident; it is plain hashes and names, nothing secret. `identity`: what the workbook is made
    for (IDENTITY_LABELS); None keeps what the sheet recorded."""
    if identity is None:
        identity = read_identity(wb)

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
    for i, (key, label) in enumerate(IDENTITY_LABELS.items(), start=1):
        if identity.get(key):
            ws.cell(row=i, column=IDENTITY_COLUMN, value=label)
            set_text(ws.cell(row=i, column=IDENTITY_COLUMN + 1), str(identity[key]))  # "=..." stays text
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
