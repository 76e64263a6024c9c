"""Reading any questionnaire layout: which sheets hold questions, where their header row is, which
column is which, and which rows are questions (not titles, section headings, blank or merged rows).

Detection can be overridden by settings.workbook (sheet, header_row, question_col, answer_col), which
the CLI fills from --sheet/--header-row/--question-col/--answer-col."""

from __future__ import annotations

import re
from datetime import date, datetime, time
from pathlib import Path

from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import column_index_from_string

from autofill.checks.form import form_values
from autofill.errors import InputError
from autofill.frameworks.coverage import tag_rows
from autofill.language import ENGLISH, questionnaire_language
from autofill.records import QuestionRow
from autofill.workbook import headers as H
from autofill.workbook.model import Column, SheetLayout, SkippedRow, WorkbookLayout
from autofill.workbook.safety import check_lossy_features, check_workbook_file, load_workbook_safely
from autofill.workbook.sheets import apply_mapping, first_rows, not_a_question_sheet
from autofill.workbook.validations import (extension_list_validations, form_of_answer_values, resolve_list,
                                           sheet_list_validations)

_LEADING_NUMBER = re.compile(r"^\s*((?:Q\s?)?\d{1,3}(?:\.\d{1,3})*[a-z]?)(?:[.):]\s*|\s+)(?=\S)", re.I)
_QUESTION_START = re.compile(
    r"^(what|which|who|whom|whose|when|where|why|how|does|do|did|is|are|was|were|has|have|had|can|could|"
    r"will|would|should|shall|may|please|describe|state|list|provide|explain|give|indicate|report|"
    r"disclose|specify|outline|confirm|identify|detail|summari[sz]e|quantify)\b", re.I)


def inspect_workbook(settings, path: Path) -> WorkbookLayout:
    """What would be answered in `path`, without reading anything else."""
    layout, _ = read_questions(settings, path)
    return layout


def read_questions(settings, path: Path) -> tuple[WorkbookLayout, list[QuestionRow]]:
    """Detect the layout of every question sheet and return it with the question rows in sheet order."""
    path = Path(path)
    kind = check_workbook_file(path)
    wb = load_workbook_safely(path)
    reader = _CellReader(path, wb, kind)
    mapping = settings.workbook
    layout = WorkbookLayout(path=path, kind=kind, sheets=[])
    if kind == "xlsx":
        layout.warnings.extend(check_lossy_features(path))
    ext_validations = extension_list_validations(path) if kind == "xlsx" else {}

    explicit = bool(mapping.header_row or mapping.question_col or mapping.answer_col)
    if mapping.sheet:
        if mapping.sheet not in wb.sheetnames:
            raise InputError(f"sheet {mapping.sheet!r} not found in {path.name}; its sheets are "
                             + ", ".join(repr(n) for n in wb.sheetnames))
        candidates = [wb[mapping.sheet]]
    else:
        candidates = list(wb.worksheets)

    detected: list[tuple[object, int, dict]] = []
    for ws in candidates:
        if not hasattr(ws, "iter_rows"):
            continue
        why = not_a_question_sheet(ws, named=bool(mapping.sheet))
        if why:
            layout.ignored_sheets[ws.title] = why
            continue
        header_row, roles = H.find_header_row(first_rows(ws))
        if header_row:
            detected.append((ws, header_row, roles))
        elif not explicit:
            layout.ignored_sheets[ws.title] = "no question column"

    if explicit:
        # An explicit mapping applies to the named sheet, else to the sheets detection found,
        # else to the first visible sheet (a layout detection could not read at all).
        targets = [ws for ws, _, _ in detected] or (
            candidates[:1] if mapping.sheet else [ws for ws in candidates if ws.title not in layout.ignored_sheets][:1])
        if not targets:
            raise InputError(f"no sheet in {path.name} to apply --header-row/--question-col to; use --sheet")
        found = {ws.title: (hr, roles) for ws, hr, roles in detected}
        detected = [(ws, *apply_mapping(ws, path, mapping, *found.get(ws.title, (0, {})))) for ws in targets]
        for ws in candidates:
            if ws not in targets and ws.title not in layout.ignored_sheets:
                layout.ignored_sheets[ws.title] = "no question column"

    if not detected:
        raise InputError(f"no question column found in {path.name}; use --question-col and --header-row")

    for ws, header_row, roles in detected:
        sheet = _read_sheet(ws, header_row, roles, reader, ext_validations.get(ws.title, []))
        sheet.explicit = explicit
        layout.sheets.append(sheet)
    if not layout.questions:
        layout.warnings.append("no question rows found below the header row")
    questionnaire_language(layout.questions)
    _forms_in_row_languages(layout.questions)

    tag_rows(settings, layout.questions)
    return layout, layout.questions


# ------------------------------------------------------------------------------------ rows


class _CellReader:
    """Cell values as text; formulas read from the cached values Excel saved (loaded only if needed)."""

    def __init__(self, path: Path, wb, kind: str):
        self.path, self.wb, self.kind = path, wb, kind
        self._cached = None

    def cached(self, sheet: str, row: int, col: int):
        if self._cached is None:
            self._cached = load_workbook_safely(self.path, data_only=True)
        return self._cached[sheet].cell(row=row, column=col).value


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    return str(value).strip()


def _is_formula(cell) -> bool:
    return cell.data_type == "f"


def _read_sheet(ws, header_row: int, roles: dict, reader: _CellReader, ext_validations: list) -> SheetLayout:
    columns = {role: Column(role, get_column_letter(col), text) for role, (col, text) in roles.items()}
    sheet = SheetLayout(name=ws.title, header_row=header_row, columns=columns,
                        protected=bool(ws.protection.sheet), extension_validations=ext_validations)
    if sheet.protected:
        sheet.warnings.append("sheet is protected: the filled copy stays protected; autofill fills the "
                              "cells anyway and leaves its added review columns unlocked")
    col_of = {role: col for role, (col, _) in roles.items()}
    qcol = col_of["question"]
    acol = col_of.get("answer")
    last_col = max([c for c, _ in _row_cells(ws, header_row)] + list(col_of.values()))

    validations = sheet_list_validations(ws) + list(ext_validations)
    answer_dvs = _answer_validations(validations, acol, ws.max_row)
    list_cache: dict[str, list[str] | None] = {}

    merges: dict[int, list] = {}
    for rng in ws.merged_cells.ranges:
        if rng.max_row <= header_row:
            continue
        for r in range(max(rng.min_row, header_row + 1), rng.max_row + 1):
            merges.setdefault(r, []).append(rng)

    numbered = "number" in col_of
    current_section = ""
    blanks: list[int] = []
    for cells in ws.iter_rows(min_row=header_row + 1, max_col=last_col):
        r = cells[0].row
        vals: dict[int, str] = {}
        formula_missing = []
        for cell in cells:
            v = cell.value
            if v is None:
                continue
            if _is_formula(cell):
                v = reader.cached(ws.title, r, cell.column)
                if v is None:
                    formula_missing.append(cell.column)
                    continue
            t = _text(v)
            if t:
                vals[cell.column] = t
        if not vals and not formula_missing:
            blanks.append(r)
            continue
        if qcol in formula_missing:
            sheet.skipped.append(SkippedRow(r, "formula without value"))
            sheet.warnings.append(f"row {r}: the question cell holds a formula with no saved value; open and "
                                  "save the file in Excel (or paste values) to include it")
            continue
        qtext = vals.get(qcol, "")
        row_merges = merges.get(r, [])
        qmerge = next((m for m in row_merges if m.min_col <= qcol <= m.max_col and m.min_row <= r <= m.max_row), None)
        if qmerge is not None and qmerge.min_row < r:
            sheet.skipped.append(SkippedRow(r, "merged cell", "merged with the row above"))
            continue
        wide = [m for m in row_merges if m.min_row == r and m.max_col - m.min_col >= 2]
        # A question merged from its own cell over the Answer column (B16:E16) is a question whose answer
        # cannot be written there (_merged_answers says why), not a heading dropped without a word.
        over_answer = (qmerge is not None and qmerge.min_col == qcol and bool(acol) and qmerge.max_col >= acol
                       and _looks_like_question(qtext))
        if wide and not over_answer and (not qtext or (qmerge is not None and (qmerge.min_col < qcol or
                                                                               (acol and qmerge.max_col >= acol)))):
            m = wide[0]
            heading = vals.get(m.min_col, "") or next(iter(vals.values()), "")
            current_section = heading or current_section
            sheet.skipped.append(SkippedRow(r, "section heading", heading))
            continue
        if not qtext:
            if len(vals) == 1 or set(vals) <= {col_of.get("number"), col_of.get("section")}:
                heading = vals.get(col_of.get("section"), "") or next(iter(vals.values()))
                current_section = heading
                sheet.skipped.append(SkippedRow(r, "section heading", heading))
            else:
                sheet.skipped.append(SkippedRow(r, "no question text", " | ".join(vals.values())[:80]))
            continue
        number = vals.get(col_of.get("number"), "") if numbered else ""
        others = set(vals) - {qcol}
        if (numbered and not number and not others and not _looks_like_question(qtext)) or len(qtext) < 3:
            current_section = qtext if len(qtext) >= 3 else current_section
            sheet.skipped.append(SkippedRow(r, "section heading" if len(qtext) >= 3 else "no question text", qtext))
            continue
        question = qtext
        if not numbered:
            m = _LEADING_NUMBER.match(qtext)
            if m:
                number, question = m.group(1), qtext[m.end():].strip()
        q = QuestionRow(
            sheet=ws.title, row=r, question=question, number=number,
            section=vals.get(col_of.get("section"), "") or current_section,
            form_of_answer=vals.get(col_of.get("form_of_answer"), ""),
            explanation=vals.get(col_of.get("explanation"), ""),
            hyde_hint=vals.get(col_of.get("hyde_hint"), ""),
            existing_answer=vals.get(acol, "") if acol else "",
            status=vals.get(col_of.get("status"), ""),
            review=vals.get(col_of.get("review"), ""),
            reviewer_comment=vals.get(col_of.get("reviewer_comment"), ""),
            existing_sources=vals.get(col_of.get("sources"), ""),
            existing_tier=vals.get(col_of.get("tier"), ""),
        )
        _allowed(q, ws, answer_dvs, list_cache, reader.wb, sheet)
        sheet.questions.append(q)
    hidden = [q.row for q in sheet.questions if ws.row_dimensions[q.row].hidden]
    if hidden:
        sheet.warnings.append(f"{len(hidden)} question rows are hidden in Excel (rows {', '.join(map(str, hidden[:10]))}"
                              f"{', ...' if len(hidden) > 10 else ''}); they are answered too")
    if acol:
        _merged_answers(ws, sheet, qcol, acol)
    last_q = sheet.questions[-1].row if sheet.questions else header_row
    sheet.skipped.extend(SkippedRow(r, "blank") for r in blanks if r < last_q)
    sheet.skipped.sort(key=lambda s: s.row)
    _plan_added_columns(ws, sheet, last_col)
    return sheet


def _merged_answers(ws, sheet, qcol: int, acol: int) -> None:
    """Question rows whose Answer cell is part of a merged range: the answer goes to the range's
    top-left cell when that cell belongs to this row alone (`answer_cell`, its text read as the
    existing answer); a range that also holds the question or another question row's Answer cannot
    take this row's answer, and `unwritable` says why (the writer names it in Status; a sheet warning
    names it for `inspect` and `run`)."""
    from openpyxl.utils.cell import get_column_letter

    ranges = [rng for rng in ws.merged_cells.ranges if rng.min_col <= acol <= rng.max_col]
    if not ranges:
        return
    rows = {q.row for q in sheet.questions}
    taken = {column_index_from_string(c.letter): role.replace("_", " ") for role, c in sheet.columns.items()
             if role != "answer" and c.letter}
    for q in sheet.questions:
        rng = next((m for m in ranges if m.min_row <= q.row <= m.max_row), None)
        if rng is None:
            continue
        cell = f"{get_column_letter(acol)}{q.row}"
        top_left = f"{get_column_letter(rng.min_col)}{rng.min_row}"
        others = sorted(r for r in rows if rng.min_row <= r <= rng.max_row and r != q.row)
        if rng.min_col <= qcol <= rng.max_col:
            q.unwritable = f"the Answer cell {cell} is inside the merged cell {rng.coord}, which holds the question"
        elif rng.min_col != acol and rng.min_col in taken:
            q.unwritable = (f"the Answer cell {cell} is inside the merged cell {rng.coord}, which holds the "
                            f"{taken[rng.min_col]} column")
        elif others and rng.min_row != q.row:
            q.unwritable = (f"the Answer cell {cell} is inside the merged cell {rng.coord}, whose text belongs to "
                            f"row {rng.min_row}")
        elif (rng.min_row, rng.min_col) != (q.row, acol):
            q.answer_cell = top_left
            q.existing_answer = _text(ws[top_left].value) if ws[top_left].value is not None else ""
        if q.unwritable:  # said by `inspect` and `run`, not only in the row's Status
            sheet.warnings.append(f"row {q.row}: its answer cannot be written: {q.unwritable} (the answer goes "
                                  "to Reasoning and the Status says so)")


def _row_cells(ws, row: int):
    for cell in next(ws.iter_rows(min_row=row, max_row=row, max_col=min(ws.max_column, 200))):
        if cell.value is not None and str(cell.value).strip():
            yield cell.column, cell.value


def _looks_like_question(text: str) -> bool:
    return "?" in text or bool(_QUESTION_START.match(text)) or len(text) > 100


def _answer_validations(validations, acol, max_row: int) -> dict[int, object]:
    """Row -> the first list validation covering the Answer cell of that row (one pass, not per row:
    a 5,000-row sheet can carry thousands of single-cell ranges)."""
    by_row: dict[int, object] = {}
    if not acol:
        return by_row
    for dv in validations:
        for c1, r1, c2, r2 in dv.boxes:
            if c1 <= acol <= c2:
                for r in range(r1, min(r2, max_row) + 1):
                    by_row.setdefault(r, dv)
    return by_row


def _allowed(q: QuestionRow, ws, by_row, cache, wb, sheet: SheetLayout) -> None:
    dv = by_row.get(q.row)
    if dv is not None:
        if dv.formula not in cache:
            cache[dv.formula] = resolve_list(wb, dv.formula, ws.title)
            if cache[dv.formula] is None:
                sheet.warnings.append(f"cannot read the drop-down list {dv.formula!r}; its values are not checked")
        values = cache[dv.formula]
        if values:
            q.allowed_values, q.allowed_values_source = list(values), "dropdown"
            return
    values = form_of_answer_values(q.form_of_answer)
    if values:
        q.allowed_values, q.allowed_values_source = values, "form of answer"


def _forms_in_row_languages(questions: list[QuestionRow]) -> None:
    """A form of answer in its row's language ("Ja/Nein", "Oui ou Non", "Sí/No": checks/form.form_values)
    read as its closed values, as "Yes/No" is read above; after the rows' languages are known, and only
    where neither a drop-down nor the English reading gave the row its values."""
    for q in questions:
        if q.allowed_values or q.language == ENGLISH:
            continue
        values = form_values(q.form_of_answer, q.language)
        if values:
            q.allowed_values, q.allowed_values_source = values, "form of answer"


def _plan_added_columns(ws, sheet: SheetLayout, last_col: int) -> None:
    """Choose free columns right of the header for the Answer column (when missing) and the review
    columns autofill adds, skipping any column that holds data anywhere or a merged header cell."""
    used = {col for (_, col), cell in ws._cells.items() if cell.value is not None}
    merged_header = set()
    for rng in ws.merged_cells.ranges:
        if rng.min_row <= sheet.header_row <= rng.max_row:
            merged_header.update(range(rng.min_col, rng.max_col + 1))
    taken = {column_index_from_string(c.letter) for c in sheet.columns.values()}
    headers = {H.normalise(v) for _, v in _row_cells(ws, sheet.header_row)}
    col = last_col
    wanted = ([("answer", "Answer")] if "answer" not in sheet.columns else []) + H.ADDED_ROLES
    for role, header in wanted:
        if role in sheet.columns:
            continue
        col += 1
        while col in used or col in merged_header or col in taken:
            col += 1
        if H.normalise(header) in headers:  # the customer's own "Status": ours must not read the same
            header += H.OURS_TAG
        sheet.columns[role] = Column(role, get_column_letter(col), header, added=True)
        taken.add(col)
