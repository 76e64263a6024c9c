"""Forms whose input cells are named ranges (EFRAG's VSME Digital Template and the like).

Every defined name on a visible sheet is looked at, never a list of known names:
- a single cell (or one merged block) that is not a formula is a datapoint; a formula is a computed
  cell (a total, an intensity) listed but never written, unless it only joins a date from year /
  month / day cells, which then make one DATE_PARTS datapoint;
- a range over several rows is an open table column, filled row by row; a range that holds other
  such ranges is the table itself; a range over one row of check boxes is a multiple choice;
- a name used as a drop-down's source, a label, or on a hidden sheet is not an input;
- "Name_unit" holds the unit chosen for "Name"; "Name_Member" is one cell of Name's breakdown.
Inputs that have no name but sit unlocked on a protected input sheet with a label beside them
(the 15 Scope 3 categories, the booleans that open a section) are read by layout (`layout.py`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from openpyxl.utils.cell import get_column_letter

from autofill.forms.book import Area, Book, split_ref
from autofill.forms.labels import SheetWords, clean
from autofill.forms.model import Datapoint, DatapointKind, FormCell, FormTable, GateOpens
from autofill.forms.types import cell_kind, scale_in, unit_in
from autofill.forms.validations import ValidationIndex

_REF = re.compile(r"(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Z]{1,3}\$?\d+(?![\w(])")
MIN_INPUTS = 3


def cell(sheet: str, col: int, row: int) -> FormCell:
    return FormCell(sheet, f"{get_column_letter(col)}{row}")


class Reader:
    """One pass over a workbook's names, sheets and validations."""

    def __init__(self, book: Book, validations: ValidationIndex):
        self.book, self.validations = book, validations
        wb = book.wb
        self.visible = [ws.title for ws in wb.worksheets if ws.sheet_state == "visible"]
        list_sources = set()
        for sheet_rules in validations._by_sheet.values():
            for v in sheet_rules:
                if v.kind == "list":
                    list_sources.update(re.findall(r"[A-Za-z_][\w.]*", v.formula1))
        self.names = {n: a for n, a in book.names.items()
                      if not n.startswith("_xlnm") and n not in list_sources and a.sheet in self.visible}
        self._words: dict[str, SheetWords] = {}
        self.named_cells: dict[tuple[str, int, int], str] = {}
        for n, a in self.names.items():
            for c, r in a.cells():
                self.named_cells.setdefault((a.sheet, c, r), n)
        self._list_cache: dict[str, list[str] | None] = {}

    # ------------------------------------------------------------------ cells

    def words(self, sheet: str) -> SheetWords:
        if sheet not in self._words:
            self._words[sheet] = SheetWords(self.book, sheet, lambda c, r, s=sheet: self.is_input(s, c, r))
        return self._words[sheet]

    def protected(self, sheet: str) -> bool:
        return bool(self.book.wb[sheet].protection.sheet)

    def locked(self, sheet: str, col: int, row: int) -> bool:
        prot = self.book.wb[sheet].cell(row=row, column=col).protection
        return prot is None or prot.locked is not False

    def is_input(self, sheet: str, col: int, row: int) -> bool:
        """A cell a person types into: named (or unlocked on a protected sheet) and not a formula."""
        if self.book.is_formula(sheet, col, row):
            return False
        if (sheet, col, row) in self.named_cells:
            return True
        return self.protected(sheet) and not self.locked(sheet, col, row)

    def allowed(self, sheet: str, formula: str) -> list[str] | None:
        """A list validation's values: inline, a range or a name (cached values, at most 5000)."""
        key = f"{sheet}|{formula}"
        if key in self._list_cache:
            return self._list_cache[key]
        f = formula.strip()
        out: list[str] | None = None
        if f.startswith('"') and f.endswith('"'):
            out = [v.strip() for v in f[1:-1].split(",") if v.strip()]
        else:
            area = self.book.names.get(f) or split_ref(f, sheet)
            if area is not None and area.sheet in self.book.wb.sheetnames:
                n = (area.c2 - area.c1 + 1) * (area.r2 - area.r1 + 1)
                if n <= 5000:
                    out = []
                    for c, r in area.cells():
                        t = clean(self.book.text(area.sheet, c, r))
                        if t and t not in out:
                            out.append(t)
        self._list_cache[key] = out
        return out

    def kind_of(self, sheet: str, col: int, row: int, label: str) -> tuple[DatapointKind, str, tuple[str, ...]]:
        v = self.validations.at(sheet, col, row)
        allowed = self.allowed(sheet, v.formula1) if v is not None and v.kind == "list" else None
        c = self.book.wb[sheet].cell(row=row, column=col)
        kind, part = cell_kind(validation_kind=v.kind if v else "", validation_formula=v.formula1 if v else "",
                               validation_formula2=v.formula2 if v else "", allowed=allowed, value=c.value,
                               number_format=c.number_format or "General", label=label)
        values = tuple(allowed or ()) if kind in (DatapointKind.ENUMERATION, DatapointKind.BOOLEAN) else ()
        return kind, part, values

    # ------------------------------------------------------------------ labels

    def describe(self, sheet: str, col: int, row: int) -> tuple[str, str, str, str, str]:
        """(label, section code, section heading, paragraph reference, column heading) of an input
        cell; the column heading (a breakdown cell's "Base Year") is also at the label's end."""
        w = self.words(sheet)
        label, label_col = w.left_label(col, row)
        column = ""
        if not label:
            label = w.label_above(col, row)
        elif self.row_has_other_inputs(sheet, col, row):
            head = w.heading_above(col, row)
            if head and head != label:
                label, column = f"{label} - {head}", head
        code, heading = w.section(row)
        return label, code, heading, w.reference(label_col, row) if label_col else "", column

    def row_has_other_inputs(self, sheet: str, col: int, row: int) -> bool:
        """Another input on the same row: the cell is one column of a breakdown."""
        w = self.words(sheet)
        own = w.top_left(col, row)
        for c in range(1, w.max_col + 1):
            if not w.covered(c, row) and (c, row) != own and self.is_input(sheet, c, row) \
                    and not self.book.is_formula(sheet, c, row):
                return True
        return False

    def datapoint(self, key: str, sheet: str, col: int, row: int, **extra) -> Datapoint:
        label, code, heading, ref, column = self.describe(sheet, col, row)
        kind, part, allowed = self.kind_of(sheet, col, row, label)
        unit = unit_in(label) or unit_in(heading) if kind in (DatapointKind.NUMBER,) else ""
        c = self.book.wb[sheet].cell(row=row, column=col)
        return Datapoint(key=key, cells=(cell(sheet, col, row),), label=label, section=code, kind=kind,
                         unit=unit or ("%" if kind is DatapointKind.PERCENT else ""),
                         scale=scale_in(c.number_format or "", label), allowed=allowed, row=row,
                         reference=ref, parts=(part,) if part else (), heading=heading, column=column, **extra)

    # ------------------------------------------------------------------ the form

    def single_block(self, area: Area) -> bool:
        if area.single:
            return True
        box = self.words(area.sheet).merged_at.get((area.c1, area.r1))
        return box == (area.c1, area.r1, area.c2, area.r2)

    def read(self):
        singles, computed, columns, rows_multi, tables = {}, {}, {}, {}, {}
        for name, area in sorted(self.names.items(), key=lambda kv: (kv[1].sheet, kv[1].r1, kv[1].c1, kv[0])):
            if self.single_block(area):
                if self.book.is_formula(area.sheet, area.c1, area.r1):
                    computed[name] = area
                elif not (self.protected(area.sheet) and self.locked(area.sheet, area.c1, area.r1)):
                    singles[name] = area
            elif area.r2 > area.r1:
                columns[name] = area
            else:
                rows_multi[name] = area
        if len(singles) < MIN_INPUTS:
            return None
        # a column is input only where a person can type: unlocked on a protected sheet, and on a
        # sheet that holds single inputs (not a sheet of lists); not cells a single name already holds
        input_sheets = {a.sheet for a in singles.values()}
        single_cells = {(a.sheet, a.c1, a.r1) for a in singles.values()}
        for group in (columns, rows_multi):
            for name in list(group):
                a = group[name]
                if a.sheet not in input_sheets and not self.protected(a.sheet) \
                        or (self.protected(a.sheet) and self.locked(a.sheet, a.c1, a.r1)) \
                        or self.book.is_formula(a.sheet, a.c1, a.r1) \
                        or any((a.sheet, c, r) in single_cells for c, r in a.cells()):
                    del group[name]
        # a multi-row range holding another is a table; the others are its columns
        for name, area in columns.items():
            inner = [n for n, a in columns.items() if n != name and a.sheet == area.sheet and a != area
                     and area.c1 <= a.c1 and a.c2 <= area.c2 and area.r1 <= a.r1 and a.r2 <= area.r2]
            if inner:
                tables[name] = area
        return singles, computed, {n: a for n, a in columns.items() if n not in tables}, rows_multi, tables


def _opens(formula: str, target: str, value: str) -> GateOpens:
    """Which answer of a gate opens a row: a test `=TRUE` checks the row when TRUE; a test `=FALSE`
    whose IF gives "" (nothing to check) closes it when FALSE; any other `=FALSE` test opens it."""
    t = re.escape(target)
    if re.search(t + r"\s*=\s*TRUE\b", formula, re.I):
        return GateOpens.YES
    if re.search(r"IF\(\s*(?:AND\(|OR\()?[^,]*" + t + r"\s*=\s*FALSE[^,]*,\s*(?:\n\s*)?\"\"", formula, re.I):
        return GateOpens.YES
    return GateOpens.NO


def refs_in(formula: str, home: str) -> list[Area]:
    return [a for a in (split_ref(m.group(0), home) for m in _REF.finditer(formula)) if a is not None]


def date_parts(reader: Reader, key: str, area: Area) -> Datapoint | None:
    """A named formula that joins a date from year / month / day input cells, as one datapoint."""
    raw = reader.book.raw(area.sheet, area.c1, area.r1)
    if not isinstance(raw, str) or "&" not in raw:
        return None
    parts: dict[str, Area] = {}
    for a in refs_in(raw[1:], area.sheet):
        if not a.single or not reader.is_input(a.sheet, a.c1, a.r1):
            continue
        _, part, _ = reader.kind_of(a.sheet, a.c1, a.r1, "")
        if part and part not in parts:
            parts[part] = a
    if set(parts) != {"year", "month", "day"}:
        return None
    order = ("year", "month", "day")
    base = reader.datapoint(key, area.sheet, area.c1, area.r1)
    label = base.label or reader.describe(parts["year"].sheet, parts["year"].c1, parts["year"].r1)[0]
    return replace(base, cells=tuple(cell(parts[p].sheet, parts[p].c1, parts[p].r1) for p in order),
                   kind=DatapointKind.DATE_PARTS, parts=order, label=label, unit="", allowed=(),
                   formula_cells=(cell(area.sheet, area.c1, area.r1),))


def table_column(reader: Reader, name: str, area: Area, table: str) -> Datapoint:
    w = reader.words(area.sheet)
    head = w.heading_above(area.c1, area.r1)
    kind, part, allowed = reader.kind_of(area.sheet, area.c1, area.r1, head)
    code, heading = w.section(area.r1)
    rows = [r for r in range(area.r1, area.r2 + 1) if not w.covered(area.c1, r)]
    if kind is DatapointKind.BOOLEAN and len(rows) > 1:
        options = [w.left_label(area.c1, r)[0] for r in rows]
        if all(options):
            label = w.label_above(area.c1, area.r1) or w.section(area.r1)[1]
            return Datapoint(key=name, cells=tuple(cell(area.sheet, area.c1, r) for r in rows), label=label,
                             section=code, kind=DatapointKind.ENUMERATION, allowed=tuple(options),
                             multiple=True, row=area.r1)
    unit = (unit_in(head) or unit_in(w.section(area.r1)[1])) if kind is DatapointKind.NUMBER else ""
    return Datapoint(key=name, cells=tuple(cell(area.sheet, area.c1, r) for r in rows), label=head,
                     section=code, kind=kind, allowed=allowed, table=table, row=area.r1, unit=unit,
                     heading=heading)


def row_choice(reader: Reader, name: str, area: Area) -> Datapoint:
    """One row of check boxes (or inputs): a multiple choice over the column headings."""
    w = reader.words(area.sheet)
    cols = [c for c in range(area.c1, area.c2 + 1) if not w.covered(c, area.r1)]
    first = reader.datapoint(name, area.sheet, cols[0], area.r1)
    heads = tuple(w.heading_above(c, area.r1, stop_at_input=False) or get_column_letter(c) for c in cols)
    multiple = first.kind is DatapointKind.BOOLEAN
    label = w.left_label(cols[0], area.r1)[0] or w.label_above(cols[0], area.r1) or first.label
    return replace(first, cells=tuple(cell(area.sheet, c, area.r1) for c in cols), label=label,
                   kind=DatapointKind.ENUMERATION if multiple else first.kind,
                   allowed=heads if multiple else first.allowed, multiple=multiple)


def make_table(reader: Reader, name: str, area: Area, column_keys: list[str]) -> FormTable:
    w = reader.words(area.sheet)
    code, heading = w.section(area.r1)
    return FormTable(name=name, sheet=area.sheet, first_row=area.r1, last_row=area.r2,
                     columns=tuple(column_keys), label=heading, section=code)
