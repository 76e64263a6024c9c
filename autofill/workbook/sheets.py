"""Which sheets of a questionnaire hold questions and where their header row and columns are, when the
user says (`--header-row`, `--question-col`, `--answer-col`: header text or column letter) rather than
detection (workbook/headers.py); sheets autofill wrote itself (Evidence, Run info, Review log) and hidden
ones skipped. Used by workbook/layout.py."""

from __future__ import annotations

import re
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string

from autofill.errors import InputError
from autofill.workbook import headers as H
from autofill.workbook.model import EVIDENCE_COLUMNS, RUN_INFO_COLUMNS


def not_a_question_sheet(ws, named: bool) -> str:
    if ws.title in ("Evidence", "Run info", "Evidence (autofill)", "Run info (autofill)"):
        first = [ws.cell(row=1, column=c).value for c in range(1, 3)]
        if first == EVIDENCE_COLUMNS[:2] or first == RUN_INFO_COLUMNS:
            return "written by autofill"
    if ws.title == "Review log" and ws.cell(row=1, column=1).value == "When":  # review_app/apply.py
        return "written by autofill"
    if not named and ws.sheet_state != "visible":
        return "hidden"
    return ""


def first_rows(ws) -> list[tuple[int, list[tuple[int, object]]]]:
    max_col = min(ws.max_column or 1, 100)
    rows = []
    for r, values in enumerate(ws.iter_rows(min_row=1, max_row=H.HEADER_SCAN_ROWS, max_col=max_col,
                                            values_only=True), start=1):
        rows.append((r, [(c, v) for c, v in enumerate(values, start=1) if v is not None]))
    return rows


def _resolve_col(ws, spec: str, header_row: int, what: str, path: Path) -> tuple[int, str]:
    """A column given as header text (preferred when it matches) or as a letter."""
    want = H.normalise(spec)
    if header_row:
        for c in range(1, min(ws.max_column or 1, 200) + 1):
            v = ws.cell(row=header_row, column=c).value
            if isinstance(v, str) and H.normalise(v) == want:
                return c, v.strip()
    if re.fullmatch(r"[A-Za-z]{1,3}", spec.strip()):
        try:
            c = column_index_from_string(spec.strip().upper())
        except ValueError:
            c = 0
        if 1 <= c <= 16384:
            v = ws.cell(row=header_row, column=c).value if header_row else None
            return c, str(v).strip() if v is not None else ""
    where = f"row {header_row} of sheet {ws.title!r}" if header_row else f"the first {H.HEADER_SCAN_ROWS} rows of sheet {ws.title!r}"
    raise InputError(f"{what} {spec!r} not found in {where} in {path.name} (give a column letter or its header text)")


def apply_mapping(ws, path: Path, mapping, header_row: int, roles: dict) -> tuple[int, dict]:
    """Override detection with the user's --header-row/--question-col/--answer-col."""
    if mapping.header_row:
        if mapping.header_row < 1 or mapping.header_row > (ws.max_row or 0):
            raise InputError(f"header row {mapping.header_row} is outside sheet {ws.title!r} of {path.name} "
                             f"(it has {ws.max_row} rows)")
        header_row = mapping.header_row
        cells = [(c, ws.cell(row=header_row, column=c).value) for c in range(1, min(ws.max_column, 200) + 1)]
        roles = H.header_roles(cells)
    elif mapping.question_col and not header_row:
        header_row = _find_row_for(ws, mapping.question_col)
        if not header_row:
            raise InputError(f"question column {mapping.question_col!r} not found in sheet {ws.title!r} of "
                             f"{path.name}; add --header-row")
        cells = [(c, ws.cell(row=header_row, column=c).value) for c in range(1, min(ws.max_column, 200) + 1)]
        roles = H.header_roles(cells)
    roles = dict(roles)
    if mapping.question_col:
        roles["question"] = _resolve_col(ws, mapping.question_col, header_row, "question column", path)
    if mapping.answer_col:
        roles["answer"] = _resolve_col(ws, mapping.answer_col, header_row, "answer column", path)
    if "question" not in roles:
        raise InputError(f"no question column found in {path.name} (sheet {ws.title!r}, header row {header_row}); "
                         "use --question-col and --header-row")
    if roles.get("answer") and roles["answer"][0] == roles["question"][0]:
        raise InputError("the answer column cannot be the question column")
    return header_row, roles


def _find_row_for(ws, spec: str) -> int:
    want = H.normalise(spec)
    letter = re.fullmatch(r"[A-Za-z]{1,3}", spec.strip())
    for r, cells in first_rows(ws):
        for c, v in cells:
            if isinstance(v, str) and H.normalise(v) == want:
                return r
        if letter:
            idx = column_index_from_string(spec.strip().upper())
            if any(c == idx and isinstance(v, str) and v.strip() for c, v in cells):
                return r
    return 0
