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
  rows differ from the output's (a new version from the customer: a question added, rows moved)
  starts from the questionnaire, and every row whose question text is found once in the old output
  carries that row over: its cells, Review, comment, record entry and evidence (`CarriedRow`).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string

from autofill.errors import InputError
from autofill.questions import question_key
from autofill.records import QuestionRow
from autofill.workbook.model import WorkbookLayout
from autofill.hashing import file_sha256
from autofill.workbook.safety import set_text
from autofill.workbook.layout import read_questions
from autofill.workbook.recovery import recover
from autofill.workbook.model import EVIDENCE_SHEET

log = logging.getLogger(__name__)

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
