"""Forms read by layout: a label cell with its input cell beside it (a common bank layout), and the
inputs of a named form that have no name (fixed breakdown rows such as the Scope 3 categories, the
booleans that open a section).

An input is a cell a person types into: unlocked on a protected sheet, or (on an unprotected sheet)
the first cell right of a label that is empty, holds a figure / date / TRUE-FALSE, or carries a
drop-down. Its key is "Sheet!B12"."""

from __future__ import annotations

from openpyxl.utils.cell import get_column_letter

from autofill.forms.book import Book, formula_cells
from autofill.forms.labels import wordy
from autofill.forms.model import Datapoint, Form, FormSource
from autofill.forms.named import Reader
from autofill.forms.gates import read_gates, with_gates
from autofill.forms.labels import labels_language
from autofill.forms.carry import RECORD_SHEET
from autofill.forms.model import DatapointKind
from autofill.forms.units import parse_unit

MIN_LAYOUT_INPUTS = 3
# the sheets autofill adds to a filled copy (workbook/evidence.py, forms/carry.py, review_app): never inputs
AUTOFILL_SHEETS = frozenset({"Evidence", "Run info", "Review log", "autofill form record"})


def _key(sheet: str, col: int, row: int) -> str:
    return f"{sheet}!{get_column_letter(col)}{row}"


def unnamed_inputs(reader: Reader, sheets: list[str], taken: set[tuple[str, str]]) -> list[Datapoint]:
    """The unlocked input cells of a named form's protected sheets that no name covers, each with a
    label on its left."""
    out: list[Datapoint] = []
    for sheet in sheets:
        if not reader.protected(sheet):
            continue
        ws = reader.book.wb[sheet]
        w = reader.words(sheet)
        for row in ws.iter_rows():
            for c in row:
                col, r = c.column, c.row
                if (sheet, col, r) in reader.named_cells or w.covered(col, r) or reader.locked(sheet, col, r):
                    continue
                if reader.book.is_formula(sheet, col, r) or (sheet, c.coordinate) in taken:
                    continue
                label, _ = w.left_label(col, r)
                if not label:
                    continue
                out.append(reader.datapoint(_key(sheet, col, r), sheet, col, r))
    return out


class LayoutReader(Reader):
    """A Reader whose inputs are the cells found by layout."""

    def __init__(self, book: Book, validations):
        super().__init__(book, validations)
        self.inputs: set[tuple[str, int, int]] = set()

    def is_input(self, sheet: str, col: int, row: int) -> bool:
        if self.inputs:
            return (sheet, col, row) in self.inputs
        return super().is_input(sheet, col, row)


def _marked(reader: "LayoutReader", sheet: str, col: int, row: int, label: str) -> bool:
    """Something says a person types here: a drop-down, a number or date format, a border or fill,
    or a label that asks ("?", ":")."""
    c = reader.book.wb[sheet].cell(row=row, column=col)
    if reader.validations.at(sheet, col, row) is not None:
        return True
    if (c.number_format or "General") not in ("General", "@"):
        return True
    border = c.border
    if border is not None and any(getattr(getattr(border, side), "style", None)
                                  for side in ("left", "right", "top", "bottom")):
        return True
    fill = c.fill
    if fill is not None and fill.fill_type not in (None, "none"):
        return True
    return label.rstrip().endswith(("?", ":"))


def _candidate(reader: "LayoutReader", sheet: str, col: int, row: int, label: str) -> bool:
    w = reader.words(sheet)
    if reader.protected(sheet):
        return not reader.locked(sheet, col, row) and not reader.book.is_formula(sheet, col, row)
    raw = reader.book.raw(sheet, col, row)
    if isinstance(raw, str) and raw.startswith("="):
        return False
    if isinstance(raw, (bool, int, float)) or hasattr(raw, "year"):
        return True
    if raw is None:
        return _marked(reader, sheet, col, row, label)
    return reader.validations.at(sheet, col, row) is not None and not wordy(w.text(col, row))


def read_layout(path, book: Book, validations) -> Form | None:
    """A workbook without input names read by layout, or None when fewer than three label / input
    pairs are found."""
    reader = LayoutReader(book, validations)
    found: list[tuple[str, int, int]] = []
    recorded = _recorded_inputs(book)
    for sheet in reader.visible:
        if sheet in AUTOFILL_SHEETS:  # a filled copy's own sheets are not the form's
            continue
        ws = book.wb[sheet]
        w = reader.words(sheet)
        for r in range(1, ws.max_row + 1):
            c = 1
            while c <= ws.max_column:
                tc, tr = w.top_left(c, r)
                if tr != r:
                    c += 1
                    continue
                text = w.text(tc, tr)
                box = w.merged_at.get((tc, tr))
                nxt = (box[2] if box else tc) + 1
                if text and wordy(text):
                    if (sheet, nxt, r) in recorded or _candidate(reader, sheet, nxt, r, text):
                        found.append((sheet, nxt, r))
                        c = nxt + 1
                        continue
                c = nxt
    if len(found) < MIN_LAYOUT_INPUTS:
        return None
    reader.inputs = set(found)
    dps = [_with_unit_column(reader, _with_heading(reader, reader.datapoint(_key(s, c, r), s, c, r)))
           for s, c, r in found]
    dps = [d for d in dps if d.label]
    if len(dps) < MIN_LAYOUT_INPUTS:
        return None
    sheets = tuple(dict.fromkeys(d.sheet for d in dps))

    by_key = {d.key: d for d in dps}
    dps = list(with_gates(by_key, read_gates(book, list(sheets), by_key)).values())

    return Form(path=path, source=FormSource.LAYOUT, datapoints=tuple(dps), language=labels_language([d.label for d in dps]),
                formula_cells=formula_cells(book, list(sheets)), sheets=sheets)


def _recorded_inputs(book: Book) -> set[tuple[str, int, int]]:
    """The input cells a run of this form recorded in its filled copy (forms/carry.py's very hidden
    record sheet, keys "Sheet!B12"): a filled cell (a name, a drop-down's value) is still an input when
    the copy is read again (the review page, a re-run of the output)."""
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string


    if RECORD_SHEET not in book.wb.sheetnames:
        return set()
    out = set()
    for row in book.wb[RECORD_SHEET].iter_rows(min_row=2, max_col=2, values_only=True):
        for ref in str(row[1] or "").split(";"):
            sheet, _, coord = ref.rpartition("!")
            try:
                letters, r = coordinate_from_string(coord)
            except ValueError:
                continue
            out.add((sheet, column_index_from_string(letters), r))
    return out


def _with_unit_column(reader: "LayoutReader", dp: Datapoint) -> Datapoint:
    """A number whose label names no unit takes the unit written in the cell right of its input (a
    bank's "Unit" column: "tCO2e", "MWh", "m3"), when that cell is a unit and nothing else."""
    from dataclasses import replace


    if dp.kind is not DatapointKind.NUMBER or dp.unit:
        return dp
    col = reader.words(dp.sheet).top_left(*_col_row(dp))[0]
    box = reader.words(dp.sheet).merged_at.get((col, dp.row))
    text = " ".join(reader.words(dp.sheet).text((box[2] if box else col) + 1, dp.row).split())
    if not text or len(text) > 24 or parse_unit(text) is None or wordy(text) and len(text.split()) > 3:
        return dp
    return replace(dp, unit=text)


def _col_row(dp: Datapoint) -> tuple[int, int]:
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    letters, row = coordinate_from_string(dp.cell.ref)
    return column_index_from_string(letters), row


def _with_heading(reader: "LayoutReader", dp: Datapoint) -> Datapoint:
    """A layout form's section: its code when headings carry one, else the nearest heading above (a
    row with text and no input)."""
    if dp.section:
        return dp
    from dataclasses import replace

    w = reader.words(dp.sheet)
    for r in range(dp.row - 1, 0, -1):
        if any(reader.is_input(dp.sheet, c, r) for c in range(1, w.max_col + 1)):
            continue
        texts = [w.text(c, r) for c in range(1, w.max_col + 1) if not w.covered(c, r)]
        texts = [t for t in texts if t and wordy(t)]
        if texts:  # a heading, or a heading with its column titles ("Environment | Unit")
            return replace(dp, section=texts[0])
    return dp
