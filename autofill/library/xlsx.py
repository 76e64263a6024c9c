"""The library as a workbook, so a team can review, edit and share it: `library export` writes one
row per entry, `library import` reads such a workbook back (an edited answer updates its entry; the
same question is never added twice). The Documents column keeps the content hashes of the cited
documents ("file.pdf sha256:..." per line) so reuse after an import still knows whether they changed."""

from __future__ import annotations

import io
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Sequence

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes
from autofill.library.store import Entry
from autofill.workbook.safety import guard_workbook, set_text
from autofill.workbook.safety import load_workbook_safely

SHEET = "Answer library"
COLUMNS = ["Question", "Answer", "Reasoning", "Sources", "Reviewer comment", "Approved", "Source questionnaire",
           "Source row", "Form of answer", "Documents", "Checks", "Override"]
WIDTHS = [60, 60, 60, 40, 40, 12, 30, 14, 20, 60, 40, 50]
_DOC_LINE = re.compile(r"^(.*\S)\s+sha256:([0-9a-f]{64})$", re.IGNORECASE)


def documents_cell(documents: dict[str, str]) -> str:
    return "\n".join(f"{name} sha256:{sha}" for name, sha in sorted(documents.items()))


def documents_of_cell(text: str) -> dict[str, str]:
    out = {}
    for line in str(text or "").splitlines():
        m = _DOC_LINE.match(line.strip())
        if m:
            out[m.group(1)] = m.group(2).lower()
    return out


def fill_sheet(ws: Any, columns: list[str], widths: list[int], rows: list[list]) -> None:
    """A sheet of the library workbook: bold headers, column widths, header row frozen, every value text
    (set_text: "=..." stays text), wrapped and top-aligned."""
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    for col, (name, width) in enumerate(zip(columns, widths), start=1):
        cell = ws.cell(row=1, column=col, value=name)
        cell.font = Font(bold=True)
        ws.column_dimensions[get_column_letter(col)].width = width
    ws.freeze_panes = "A2"
    for r, values in enumerate(rows, start=2):
        for c, value in enumerate(values, start=1):
            cell = ws.cell(row=r, column=c)
            set_text(cell, value)
            cell.alignment = Alignment(vertical="top", wrap_text=True)


def export_workbook(entries: list[Entry], out_path: Path, company: str,
                    more: Callable[[Any], None] | None = None) -> Path:
    """Write the entries to `out_path` (.xlsx), atomically. `more`: given the workbook before it is saved,
    adds sheets of its own (the form values: library/form_sheet.add_form_sheet)."""
    from openpyxl import Workbook

    out_path = Path(out_path)
    if out_path.suffix.lower() != ".xlsx":
        raise InputError(f"export to an .xlsx file, not {out_path.name}")
    wb = Workbook()
    ws = wb.active
    ws.title = SHEET
    fill_sheet(ws, COLUMNS, WIDTHS, [[e.question, e.answer, e.reasoning, e.sources, e.reviewer_comment, e.approved_at,
                                      e.source_questionnaire, e.source_row, e.form_of_answer,
                                      documents_cell(e.documents), "; ".join(e.checks or []), e.override]
                                     for e in entries])
    if more is not None:
        more(wb)
    wb.properties.title = f"Answer library: {company}"
    buffer = io.BytesIO()
    guard_workbook(wb)
    wb.save(buffer)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(out_path, buffer.getvalue())
    return out_path


def cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value).strip()


def sheet_columns(ws: Any, required: Sequence[str], columns: Sequence[str], file_name: str) -> dict[str, int]:
    """The first row's columns by lower-case name; one InputError naming what is missing."""
    first = next(ws.iter_rows(min_row=1, max_row=1, values_only=True), ())
    header = {cell_text(v).lower(): i for i, v in enumerate(first) if cell_text(v)}
    missing = [name for name in required if name.lower() not in header]
    if missing:
        raise InputError(f"{file_name}: no {' or '.join(missing)} column in the first row of sheet {ws.title!r} "
                         f"(expected the columns `library export` writes: {', '.join(columns)})")
    return header


def row_reader(header: dict[str, int], values: Sequence) -> Callable[[str], str]:
    """A row's cell text by column name ("" where the row is shorter or the column is absent)."""
    def get(name: str) -> str:
        i = header.get(name.lower())
        return cell_text(values[i]) if i is not None and i < len(values) else ""

    return get


def approved_date(text: str, where: str) -> str:
    t = text.strip()[:10]
    try:
        return date.fromisoformat(t).isoformat()
    except ValueError:
        raise InputError(f"{where}: Approved must be a date (YYYY-MM-DD), got {text!r}") from None


def import_workbook(path: Path, today: str) -> list[Entry]:
    """Entries from a workbook written by `export_workbook` (columns found by their headers, any
    order; Question and Answer are required, a missing Approved date is `today`)."""

    path = Path(path)
    if not path.is_file():
        raise InputError(f"library workbook not found: {path}")
    wb = load_workbook_safely(path, data_only=True)
    ws = wb[SHEET] if SHEET in wb.sheetnames else wb.worksheets[0]
    header = sheet_columns(ws, ("Question", "Answer"), COLUMNS, path.name)
    out = []
    for r, values in enumerate(ws.iter_rows(min_row=2, values_only=True), start=2):
        get = row_reader(header, values)

        question, answer = get("Question"), get("Answer")
        if not question and not answer:
            continue
        if not question or not answer:
            raise InputError(f"{path.name} row {r}: a library entry needs both a question and an answer")
        approved = get("Approved")
        out.append(Entry(question=question, answer=answer, reasoning=get("Reasoning"), sources=get("Sources"),
                         reviewer_comment=get("Reviewer comment"),
                         approved_at=approved_date(approved, f"{path.name} row {r}") if approved else today,
                         source_questionnaire=get("Source questionnaire"), source_row=get("Source row"),
                         form_of_answer=get("Form of answer"), documents=documents_of_cell(get("Documents")),
                         override=get("Override")))
    return out
