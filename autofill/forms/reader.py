"""Reading a workbook as a form (issue 45): named-range forms first, then label / input layouts.

`read_form(path)` gives a `Form` or None (a list of questions, or a workbook with too few inputs).
A LAYOUT form is only a guess from where labels and empty cells sit: callers try the questionnaire
reading first and fall back to it (`inspect` does so when no question column is found).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from autofill.forms.book import Book, CachedValues, formula_cells
from autofill.forms.labels import form_language, labels_language, option_for
from autofill.forms.model import Datapoint, DatapointKind, Form, FormCell, FormSource, FormTable
from autofill.forms.gates import read_gates, with_gates
from autofill.forms.named import Reader, cell, date_parts, make_table, refs_in, row_choice, table_column
from autofill.forms.validations import ValidationIndex, read_validations
from autofill.workbook.safety import check_workbook_file, load_workbook_safely
from autofill.forms.layout import read_layout
from autofill.forms.layout import unnamed_inputs


def read_form(path: Path, language: str = "", layout: bool = True, named: bool = True) -> Form | None:
    """The workbook at `path` read as a form, labels in `language` when the form offers it (else in
    the language it has selected), or None when it is not a form. `named=False` reads by layout only,
    `layout=False` by names only."""

    path = Path(path)
    if check_workbook_file(path) != "xlsx":
        return None
    if not layout and defined_name_count(path) < 3:
        return None  # a list of questions: not worth opening twice
    wb_f = load_workbook_safely(path)
    wb_v = CachedValues(path)
    validations = ValidationIndex(read_validations(path))
    book = Book(wb_f, wb_v)
    form = read_named(path, book, validations) if named else None
    if form is not None and language and form.language and language.lower() != form.language:
        code, _, key = form_language(book)
        options = book.lookups.get(key) if key is not None else None
        choice = option_for(book, options, language) if options is not None else ""
        if choice:
            form = read_named(path, Book(wb_f, wb_v, overrides={(key.sheet, key.c1, key.r1): choice}), validations)
        else:
            form = replace(form, warnings=form.warnings + (
                f"the form offers no {language!r} labels; shown in {form.language!r}",))
    if form is None and layout:

        form = read_layout(path, book, validations)
    return form


def defined_name_count(path: Path) -> int:
    """How many defined names (print areas and filters aside) the workbook has, from its zip."""
    import re
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            xml = zf.read("xl/workbook.xml").decode("utf-8", "replace")
    except (zipfile.BadZipFile, KeyError, OSError):
        return 0
    return len(re.findall(r'<definedName\b(?![^>]*name="_xlnm)', xml))


def read_named(path: Path, book: Book, validations: ValidationIndex) -> Form | None:
    reader = Reader(book, validations)
    found = reader.read()
    if found is None:
        return None
    singles, computed, columns, rows_multi, tables = found
    dps: dict[str, Datapoint] = {}
    by_cells: dict[tuple, str] = {}

    def add(dp: Datapoint):
        first = by_cells.get(dp.cells)
        if first is not None:
            dp = replace(dp, alias_of=first)
        else:
            by_cells[dp.cells] = dp.key
        dps[dp.key] = dp

    for name, area in singles.items():
        add(reader.datapoint(name, area.sheet, area.c1, area.r1))
    shown: list[Datapoint] = []
    computed_cells: dict[tuple[str, str], str] = {}
    input_sheets = {a.sheet for a in singles.values()}
    for name, area in computed.items():
        if area.sheet not in input_sheets:
            continue
        dp = date_parts(reader, name, area)
        if dp is not None:
            add(dp)
        else:
            c = reader.datapoint(name, area.sheet, area.c1, area.r1)
            shown.append(c)
            computed_cells[(area.sheet, c.cell.ref)] = name
    for name, area in rows_multi.items():
        add(row_choice(reader, name, area))
    # open tables: each column under the smallest table range that holds it
    members: dict[str, list[str]] = {t: [] for t in tables}
    for name, area in columns.items():
        owner = min((t for t, a in tables.items() if a.sheet == area.sheet and a.c1 <= area.c1
                     and area.c2 <= a.c2 and a.r1 <= area.r1 and area.r2 <= a.r2),
                    key=lambda t: (tables[t].c2 - tables[t].c1 + 1) * (tables[t].r2 - tables[t].r1 + 1),
                    default=name)
        base, _, member = name.partition("_")
        if member == "unit" and base in columns and owner == name:
            owner = next((t for t, keys in members.items() if base in keys), owner)
        dp = table_column(reader, name, area, owner)
        if not dp.table:
            add(dp)
            continue
        add(dp)
        members.setdefault(owner, []).append(name)
    form_tables: list[FormTable] = []
    for t, keys in members.items():
        area = tables.get(t) or columns.get(t)
        if area is not None and keys:
            form_tables.append(make_table(reader, t, area, keys))
    # units and breakdown members, by the naming the form uses
    for key in list(dps):
        dp = dps[key]
        base, sep, member = key.partition("_")
        if not sep:
            continue
        if member == "unit" and base in dps:
            unit_text = book.text(dp.sheet, *_col_row(dp.cell))
            target = dps[base]
            dps[base] = replace(target, unit_cell=dp.cell, unit=target.unit or " ".join(unit_text.split()))
            dps[key] = replace(dp, base=base, member="unit")
        elif member != "unit":
            dps[key] = replace(dp, base=base, member=member)
    # inputs without names on the same sheets, by layout
    sheets = sorted({dp.sheet for dp in dps.values()}, key=book.wb.sheetnames.index)

    taken = {(c.sheet, c.ref) for dp in dps.values() for c in dp.cells}
    for dp in unnamed_inputs(reader, sheets, taken):
        add(dp)
    # gates, formulas computed from each datapoint
    uses: dict[str, list[FormCell]] = {}
    for c in shown:
        raw = book.raw(c.sheet, *_col_row(c.cell))
        for a in refs_in(str(raw)[1:], c.sheet):
            for cc, rr in a.cells() if (a.c2 - a.c1 + 1) * (a.r2 - a.r1 + 1) <= 400 else ():
                key = by_cells.get((cell(a.sheet, cc, rr),))
                if key:
                    uses.setdefault(key, []).append(c.cell)
    for key, dp in list(dps.items()):
        extra = tuple(dict.fromkeys(dp.formula_cells + tuple(uses.get(key, ()))))
        dps[key] = replace(dp, formula_cells=extra)
    dps = with_gates(dps, read_gates(book, sheets, dps))
    language, languages, chooser = form_language(book)
    language_cell = cell(chooser.sheet, chooser.c1, chooser.r1) if chooser is not None else None
    ordered = sorted((d for d in dps.values() if d.cells != (language_cell,)),
                     key=lambda d: (book.wb.sheetnames.index(d.sheet), d.row, _col_row(d.cell)[0]))
    if not language:
        language = labels_language([d.label for d in ordered])
    period = tuple(d.key for d in ordered if d.kind in (DatapointKind.DATE, DatapointKind.DATE_PARTS)
                   and "period" in (d.key + " " + d.label).lower())
    return Form(path=path, source=FormSource.NAMED, datapoints=tuple(ordered), language=language,
                languages=languages, formula_cells=formula_cells(book, sheets), reporting_period_keys=period,
                tables=tuple(form_tables), sheets=tuple(s for s in sheets if any(d.sheet == s for d in ordered)),
                computed=tuple(shown), language_cell=language_cell,
                warnings=tuple(f"defined name {n} points nowhere (#REF!)" for n in book.broken_names
                               if not n.startswith("_xlnm"))[:0])


def _col_row(c: FormCell) -> tuple[int, int]:
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string

    letters, row = coordinate_from_string(c.ref)
    return column_index_from_string(letters), row
