"""Read a filled autofill workbook back for the review report: question rows, the Evidence sheet and
the Run info sheet. Works on the output format only (header row with `Question` and `Sources`),
reads every value as text and never writes to the file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from autofill.errors import InputError
from autofill.fileio import missing
from autofill.redact import safe_text
from autofill.review.form_rows import form_questions
from autofill.states import WRITES_ANSWER, parse_status
from autofill.workbook import headers as H
from autofill.workbook.hyperlinks import parse_sources  # noqa: F401 - re-exported: the review reads Sources cells
from autofill.review.rows import EvidenceRow, ReviewQuestion, _int, _pages, _text  # noqa: F401 - re-exported

EVIDENCE_SHEET = "Evidence"
RUN_INFO_SHEET = "Run info"
RECORD_SHEET = "autofill record"  # workbook/record.py: hashes of what autofill wrote, never a question sheet
HEADER_SCAN_ROWS = 30
FORM_EVIDENCE = {"named range", "cell", "label"}  # a filled form's Evidence sheet (workbook/evidence.py)

QUESTION_COLUMNS = {
    "question": "question",
    "answer": "answer",
    "reasoning": "reasoning",
    "sources": "sources",
    "confidence": "confidence",
    "status": "status",
    "review": "review",
    "reviewer comment": "reviewer_comment",
    "section": "section",
    "tier": "tier",
    "checks": "checks",
    "framework datapoints": "datapoints",
}
# `FILE p. 26`, `FILE pp. 26-27`, `FILE p. 26 (printed 24)`: the PDF page index is what counts.


@dataclass
class FilledWorkbook:
    path: Path
    questions: list[ReviewQuestion]
    run_info: list[tuple[str, str]]  # key/value rows in sheet order
    has_evidence_sheet: bool
    form: bool = False  # a filled form (forms/run.py): one question per datapoint, keyed by its cell

    def info(self, key: str) -> str:
        """A Run info value by key, case-insensitively; empty when absent."""
        wanted = key.strip().lower()
        for k, v in self.run_info:
            if k.strip().lower() == wanted:
                return v
        return ""


def _header_key(value) -> str:
    return re.sub(r"\s+", " ", _text(value)).lower().rstrip(":").strip()


def _find_header(rows: list[tuple], required: set[str]) -> tuple[int, dict[str, int]] | None:
    """Index of the first row whose cells include every `required` header, and its column map."""
    for i, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        columns: dict[str, int] = {}
        for j, cell in enumerate(row):
            key = _header_key(cell)
            if key and key not in columns:
                columns[key] = j
        if required <= columns.keys():
            return i, columns
    return None


def _question_header(rows: list[tuple]) -> tuple[int, dict[str, int]] | None:
    """The header row of a filled question sheet and its field -> column map: the row has `Sources`
    (written by autofill) and a question column. The customer's question, answer and number columns
    keep the customer's wording (`Question text`, `Requirement`, `Response`, `No.`), so they are
    named by the same rules layout detection used to find them (workbook/headers.py)."""
    for i, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        found = _find_header([row], {"sources"})
        if found is None:
            continue
        columns = found[1]
        fields = {attr: columns[h] for h, attr in QUESTION_COLUMNS.items() if h in columns}
        roles = H.header_roles(list(enumerate(row)))
        for role in ("question", "answer", "number"):
            if role not in fields and role in roles:
                fields[role] = roles[role][0]
        for role in set(QUESTION_COLUMNS.values()) & set(H.ADDED_HEADERS):
            if role in roles:  # autofill's columns where the writer put them (a customer's "Status" is theirs)
                fields[role] = roles[role][0]
        if "question" in fields:
            return i, fields
    return None


def _read_question_sheet(name: str, rows: list[tuple], fields: dict[str, int], header_index: int,
                         evidence_keys: set[tuple[str, int]]) -> list[ReviewQuestion]:
    out = []
    for offset, row in enumerate(rows[header_index + 1:], start=header_index + 2):
        def get(attr: str) -> str:
            j = fields.get(attr)
            return _text(row[j]) if j is not None and j < len(row) else ""

        question = get("question")
        if not question:
            continue
        values = {attr: get(attr) for attr in fields if attr not in ("question", "number")}
        # Section headings and notes carry no result columns: only rows the tool processed (or that
        # have evidence) are questions in the report.
        processed = any(values.get(a) for a in ("answer", "reasoning", "sources", "status", "confidence"))
        if not processed and (name, offset) not in evidence_keys and ("", offset) not in evidence_keys:
            continue
        out.append(ReviewQuestion(sheet=name, row=offset, question=question, number=get("number"), **values))
    return out


def _read_evidence(rows: list[tuple], default_sheet: str) -> list[EvidenceRow]:
    found = _find_header(rows, {"row", "rank", "file", "page", "text"})
    if found is None:
        raise InputError("the Evidence sheet has no header row with Row, Rank, File, Page and Text columns")
    header_index, columns = found
    out = []
    for row in rows[header_index + 1:]:
        def get(name: str):
            j = columns.get(name)
            return row[j] if j is not None and j < len(row) else None

        if not _text(get("file")) and not _text(get("text")):
            continue
        start, end = _pages(get("page"))
        if _text(get("page end")):  # the writer's separate `Page end` column, for chunks over a page break
            end = max(start, _int(get("page end"), start))
        out.append(EvidenceRow(
            sheet=_text(get("sheet")) or default_sheet,
            row=_int(get("row")),
            question=_text(get("question")),
            rank=_int(get("rank")),
            file_name=_text(get("file")),
            page_start=start,
            page_end=end,
            cited=_text(get("cited")).lower() in ("yes", "y", "true", "1", "x"),
            score=_text(get("score")),
            text=_text(get("text")),
            printed=_text(get("printed page")),
            ocr=_text(get("ocr")).lower() in ("yes", "y", "true", "1", "x"),
        ))
    return out


def read_filled_workbook(path: Path) -> FilledWorkbook:
    """Load the question rows, evidence and run info of an autofill output workbook."""
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    path = Path(path)
    if not path.is_file():
        raise missing("output workbook", path)
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, KeyError, OSError, ValueError) as exc:
        raise InputError(f"{path.name} is not a readable .xlsx workbook ({type(exc).__name__})") from None
    except Exception as exc:  # zipfile.BadZipFile and friends: corrupt or not an xlsx at all
        raise InputError(f"{path.name} is not a readable .xlsx workbook ({type(exc).__name__})") from None
    try:
        sheets = {ws.title: [tuple(r) for r in ws.iter_rows(values_only=True)] for ws in wb.worksheets}
    finally:
        wb.close()

    question_sheets: dict[str, tuple[int, dict[str, int]]] = {}
    for name, rows in sheets.items():
        if name in (EVIDENCE_SHEET, RUN_INFO_SHEET, RECORD_SHEET):
            continue
        found = _question_header(rows)
        if found is not None:
            question_sheets[name] = found
    evidence_rows = sheets.get(EVIDENCE_SHEET)
    form_header = _find_header(evidence_rows, FORM_EVIDENCE) if evidence_rows is not None else None
    if form_header is not None:
        return FilledWorkbook(path=path, questions=form_questions(sheets, evidence_rows, *form_header),
                              run_info=_run_info(sheets), has_evidence_sheet=True, form=True)
    if not question_sheets and evidence_rows is None:
        raise InputError(f"{path.name} is not an autofill output: no sheet has Question and Sources columns "
                         "and there is no Evidence sheet")

    # Without a Sheet column, evidence belongs to the only question sheet; with several sheets it is
    # matched on row number and question text instead.
    default_sheet = next(iter(question_sheets)) if len(question_sheets) == 1 else ""
    evidence = _read_evidence(evidence_rows, default_sheet) if evidence_rows is not None else []
    evidence_keys = {(e.sheet, e.row) for e in evidence}

    questions: list[ReviewQuestion] = []
    for name, (header_index, fields) in question_sheets.items():
        questions.extend(_read_question_sheet(name, sheets[name], fields, header_index, evidence_keys))
    _answers_in_merged_cells(path, questions, {n: f.get("answer") for n, (_, f) in question_sheets.items()})
    _attach_evidence(questions, evidence)

    return FilledWorkbook(path=path, questions=questions, run_info=_run_info(sheets),
                          has_evidence_sheet=evidence_rows is not None)


def _run_info(sheets: dict[str, list[tuple]]) -> list[tuple[str, str]]:
    run_info = []
    for row in sheets.get(RUN_INFO_SHEET, []):
        key = _text(row[0]) if row else ""
        value = _text(row[1]) if len(row) > 1 else ""
        if key and (key.lower(), value.lower()) != ("key", "value"):
            run_info.append((key, safe_text(value, headers=False)))  # an older run's URL shown safe
    return run_info


def _answers_in_merged_cells(path: Path, questions: list[ReviewQuestion], answer_cols: dict[str, int | None]) -> None:
    """An answer written to the top-left cell of a merged range that holds a row's Answer cell
    (workbook/layout._merged_answers) is that row's answer. Only read when an answered row shows an
    empty Answer (the read-only pass above cannot see merged ranges)."""
    blank = [q for q in questions if not q.answer and answer_cols.get(q.sheet) is not None
             and parse_status(q.status) in WRITES_ANSWER]
    if not blank:
        return
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True)
    try:
        for q in blank:
            ws = wb[q.sheet]
            col = answer_cols[q.sheet] + 1
            rng = next((m for m in ws.merged_cells.ranges
                        if m.min_row <= q.row <= m.max_row and m.min_col <= col <= m.max_col), None)
            if rng is not None:
                q.answer = _text(ws.cell(row=rng.min_row, column=rng.min_col).value)
    finally:
        wb.close()


def _attach_evidence(questions: list[ReviewQuestion], evidence: list[EvidenceRow]) -> None:
    """Give each question its passages in rank order. Passages whose row is not a question row found
    in the sheets (for example a sheet whose header was edited away) become evidence-only entries so
    nothing the answer step saw is hidden from the reviewer."""
    by_key = {(q.sheet, q.row): q for q in questions}
    by_row: dict[int, list[ReviewQuestion]] = {}
    for q in questions:
        by_row.setdefault(q.row, []).append(q)
    for e in evidence:
        q = by_key.get((e.sheet, e.row))
        if q is None:  # no Sheet column and several sheets: match on row and question text
            candidates = by_row.get(e.row, [])
            q = next((c for c in candidates if c.question == e.question), None)
            if q is None and len(candidates) == 1 and not e.sheet:
                q = candidates[0]
        if q is None:
            q = ReviewQuestion(sheet=e.sheet, row=e.row, question=e.question, in_sheet=False)
            questions.append(q)
            by_key[(e.sheet, e.row)] = q
        q.evidence.append(e)
    for q in questions:
        q.evidence.sort(key=lambda e: (e.rank or 10**6))
