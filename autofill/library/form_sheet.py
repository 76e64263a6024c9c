"""The answer library's form values (library/forms.py) in the library workbook: `library export` writes
them on a sheet of their own ("Form values", one row per datapoint and reporting period, beside the
answers' sheet), `library import` reads that sheet back (an edited value updates its entry; the same
datapoint and period is never added twice). Every cell is written as text (a value "=1+1" stays text);
the Documents column keeps the cited documents' hashes as the answers' sheet does (library/xlsx.py), so
reuse after an import still knows whether they changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from autofill.errors import InputError
from autofill.library.forms import FormValue
from autofill.library.xlsx import (approved_date, documents_cell, documents_of_cell, fill_sheet,
                                   row_reader, sheet_columns)
from autofill.workbook.safety import load_workbook_safely

FORM_SHEET = "Form values"
FORM_COLUMNS = ["Datapoint", "Period", "Value", "Unit", "Label", "Sources", "Documents", "Approved", "Reviewer",
                "Source form", "Source cell", "Checks"]
_WIDTHS = [45, 10, 20, 14, 50, 40, 60, 12, 20, 30, 18, 40]


def add_form_sheet(wb: Any, values: Sequence[FormValue]) -> None:
    """The form values on their own sheet of the openpyxl workbook `wb` (not made when there are none)."""
    if values:
        fill_sheet(wb.create_sheet(FORM_SHEET), FORM_COLUMNS, _WIDTHS,
                   [[v.datapoint, v.period, v.value, v.unit, v.label, v.sources, documents_cell(v.documents),
                     v.approved_at, v.reviewer, v.source_form, v.source_cell, v.checks] for v in values])


def import_form_values(path: Path, today: str) -> list[FormValue]:
    """The form values of the workbook's "Form values" sheet (none without one); columns found by their
    headers, any order. Datapoint, Period and Value are required; a missing Approved date is `today`."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"library workbook not found: {path}")
    wb = load_workbook_safely(path, data_only=True)
    name = path.name
    if FORM_SHEET not in wb.sheetnames:
        return []
    ws = wb[FORM_SHEET]
    required = ("Datapoint", "Period", "Value")
    header = sheet_columns(ws, required, FORM_COLUMNS, name)
    out = []
    for r, values in enumerate(ws.iter_rows(min_row=2, values_only=True), start=2):
        get = row_reader(header, values)

        if not any(get(column) for column in required):
            continue
        if not all(get(column) for column in required):
            raise InputError(f"{name} sheet {FORM_SHEET!r} row {r}: a form value needs a datapoint, a period and "
                             "a value")
        approved = get("Approved")
        out.append(FormValue(get("Datapoint"), get("Period"), get("Value"),
                             approved_date(approved, f"{name} sheet {FORM_SHEET!r} row {r}") if approved else today,
                             unit=get("Unit"), label=get("Label"), sources=get("Sources"),
                             documents=documents_of_cell(get("Documents")), reviewer=get("Reviewer"),
                             source_form=get("Source form"), source_cell=get("Source cell"), checks=get("Checks")))
    return out
