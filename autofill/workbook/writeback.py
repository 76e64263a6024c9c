"""Writing results into a copy of the customer's workbook, touching only the cells autofill owns.

The source is loaded with openpyxl (macros and external links kept), answers go into the Answer column
(existing, or added), the review columns are added after it with a header styled like the customer's,
and the Evidence and Run info sheets are (re)written. The copy is saved to a temporary file in the
output folder and renamed into place; the source file is only ever read.

Protected sheets: the copy stays protected exactly as the customer set it (autofill cannot and should not
remove a password). openpyxl writes the cells regardless, and the added review columns are unlocked so a
reviewer can fill Review and Reviewer comment in Excel; layout detection warns about the protection."""

from __future__ import annotations

import io
from copy import copy
from pathlib import Path

from openpyxl.cell.cell import MergedCell
from openpyxl.styles import Alignment, PatternFill, Protection
from openpyxl.utils.cell import column_index_from_string
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes
from autofill.checks.tier import failed_text
from autofill.records import Answer, QuestionRow, RowResult
from autofill.workbook.evidence import write_evidence_sheet, write_run_info_sheet
from autofill.workbook.model import SheetLayout, WorkbookLayout
from autofill.workbook.safety import load_workbook_safely, set_text
from autofill.workbook.validations import extension_list_validations

REVIEW_CHOICES = ["Approved", "Needs changes", "Rejected"]
COLUMN_WIDTHS = {"answer": 40, "reasoning": 60, "sources": 36, "confidence": 12, "status": 30, "review": 16,
                 "reviewer_comment": 40, "tier": 12, "checks": 40, "library_answer": 50}
EVIDENCE_ONLY = "Evidence only"


def write_results(settings, source: Path, layout: WorkbookLayout, results: list[RowResult], out_path: Path,
                  run_info: dict) -> Path:
    """Write a filled copy of `source` to `out_path` (suffix adjusted: .xlsm for macro workbooks, .xlsx
    for CSV input and templates) and return the path actually written.

    Only rows with a result are written; a row whose Review cell says Approved is never touched, even if
    a result for it is passed. Kept rows' evidence from a previous run stays in the Evidence sheet."""
    source, out_path = Path(source), Path(out_path)
    out_path = _output_path(source, out_path, layout.kind)
    if out_path.exists() and out_path.resolve() == source.resolve():
        raise InputError(f"refusing to overwrite the questionnaire itself: {source}")
    wb = load_workbook_safely(source, rich_text=True)
    if out_path.suffix.lower() == ".xlsx":
        wb.template = False
    by_key = {res.question.key: res for res in results}
    written: list[RowResult] = []
    ext = extension_list_validations(source) if layout.kind == "xlsx" else {}
    for sheet in layout.sheets:
        ws = wb[sheet.name]
        _write_headers(ws, sheet)
        for q in sheet.questions:
            res = by_key.get(q.key)
            if res is None or _approved(ws, sheet, q.row):
                continue
            _write_row(ws, sheet, q, res)
            written.append(res)
        _ensure_review_dropdown(ws, sheet)
    # openpyxl drops x14 (cross-sheet) drop-downs on save: put them back as standard validations.
    for sheet_name, validations in ext.items():
        if sheet_name in wb.sheetnames:
            for v in validations:
                wb[sheet_name].add_data_validation(DataValidation(type="list", formula1=v.formula, sqref=v.sqref,
                                                                  allow_blank=True))
    write_evidence_sheet(wb, layout, written)
    write_run_info_sheet(wb, run_info, source, out_path)
    _save_atomically(wb, out_path)
    return out_path


def _output_path(source: Path, out_path: Path, kind: str) -> Path:
    src = source.suffix.lower()
    if src in (".xlsm", ".xltm"):
        return out_path.with_suffix(".xlsm")
    if kind == "csv" or out_path.suffix.lower() not in (".xlsx",):
        return out_path.with_suffix(".xlsx")
    return out_path


def _save_atomically(wb, out_path: Path) -> None:
    # openpyxl writes its zip to any file object; fileio then does the temp file, mode and rename.
    buffer = io.BytesIO()
    wb.save(buffer)
    atomic_write_bytes(out_path, buffer.getvalue())


# ------------------------------------------------------------------------------------ cells


def _cell(ws, sheet: SheetLayout, role: str, row: int):
    letter = sheet.letter(role)
    if not letter:
        return None
    cell = ws.cell(row=row, column=column_index_from_string(letter))
    return None if isinstance(cell, MergedCell) else cell


def _approved(ws, sheet: SheetLayout, row: int) -> bool:
    cell = _cell(ws, sheet, "review", row)
    return cell is not None and str(cell.value or "").strip().lower() == "approved"


def _write_headers(ws, sheet: SheetLayout) -> None:
    """Headers of added columns styled like the customer's question header; widths; cell styles."""
    src = ws.cell(row=sheet.header_row, column=column_index_from_string(sheet.letter("question")))
    for col in sheet.added_columns:
        idx = column_index_from_string(col.letter)
        head = ws.cell(row=sheet.header_row, column=idx)
        if head.value not in (None, ""):
            continue  # written by an earlier call on this workbook
        head._style = copy(src._style)
        set_text(head, col.header)
        ws.column_dimensions[col.letter].width = COLUMN_WIDTHS.get(col.role, 20)
        styles: dict[tuple, object] = {}
        for q in sheet.questions:
            _style_added_cell(ws, sheet, q.row, idx, styles)


def _style_added_cell(ws, sheet: SheetLayout, row: int, idx: int, styles: dict) -> None:
    """An added cell looks like the row's question cell, wraps its text, and stays editable when the
    customer protected the sheet (reviewers must be able to fill Review and Reviewer comment).
    `styles` caches the result per source style: openpyxl's style registry is slow per assignment."""
    cell = ws.cell(row=row, column=idx)
    q_cell = ws.cell(row=row, column=column_index_from_string(sheet.letter("question")))
    key = tuple(q_cell._style) if q_cell._style is not None else ()
    if key not in styles:
        if q_cell.has_style:
            cell._style = copy(q_cell._style)
        al = copy(q_cell.alignment)
        cell.alignment = Alignment(horizontal=al.horizontal, vertical="top", wrap_text=True, indent=al.indent)
        cell.protection = Protection(locked=False, hidden=False)
        styles[key] = copy(cell._style)
    else:
        cell._style = copy(styles[key])


def match_allowed(text: str, allowed: list[str]) -> str | None:
    """The allowed value an answer states: an exact match or a leading "Yes. ..." / "No - ...";
    longest values first so "Not disclosed" is never read as "No"."""
    t = text.strip()
    low = t.lower()
    for value in allowed:
        if low == value.lower():
            return value
    for value in sorted(allowed, key=len, reverse=True):
        v = value.lower()
        if low.startswith(v) and (len(low) == len(v) or not low[len(v)].isalnum()):
            return value
    return None


def plan_row(q: QuestionRow, res: RowResult) -> dict[str, str | None]:
    """The values for a row's cells by role (pure; shared with live Excel). A role absent from the
    result stays untouched; None clears the cell."""
    trust = {} if res.tier is None else {"tier": res.tier.label, "checks": failed_text(res.checks) or None}
    if res.answer is None:
        return {"status": f"Failed: {res.error or 'unknown error'}", **trust}
    ans: Answer = res.answer
    text = (ans.answer or "").strip()
    status = [ans.status or "Answered"] + [f for f in ans.flags if f]
    reasoning = [ans.reasoning.strip()] if ans.reasoning and ans.reasoning.strip() else []
    value: str | None = text
    if q.allowed_values_source == "dropdown" and q.allowed_values:
        verdict = match_allowed(text, q.allowed_values)
        if ans.status.startswith(EVIDENCE_ONLY):
            value = None
            reasoning.insert(0, text)
            status.append("drop-down answer left empty for the reviewer")
        elif verdict is None:
            value = None
            if text:
                reasoning.insert(0, f"Model answer (not an allowed value): {text}")
            status.append(f"answer left empty: {text[:40]!r} is not one of the drop-down values "
                          f"({', '.join(q.allowed_values)})")
        else:
            value = verdict
            rest = text[len(verdict):].lstrip(" .,:;-–—").strip()
            if rest:
                reasoning.insert(0, rest)
    elif q.allowed_values and text and not ans.status.startswith(EVIDENCE_ONLY):
        if match_allowed(text, q.allowed_values) is None:
            status.append(f"answer does not start with one of {', '.join(q.allowed_values)}")
    if q.review.strip().lower() in ("rejected", "needs changes", "needs change"):
        status.insert(0, f"Re-answered after review ({q.review.strip()})")
    sources = []
    for c in ans.citations:
        if c.label() not in sources:
            sources.append(c.label())
    out = {
        "answer": value,
        "reasoning": "\n\n".join(reasoning) or None,
        "sources": "; ".join(sources) or None,
        "confidence": ans.confidence or None,
        "status": "; ".join(s for s in status if s),
        **trust,
    }
    if res.library is not None:
        out["library_answer"] = res.library.cell_text
    if q.review.strip():
        out["review"] = None  # a new answer needs a new review; the reviewer's comment stays
    return out


def _write_row(ws, sheet: SheetLayout, q: QuestionRow, res: RowResult) -> None:
    plan = plan_row(q, res)
    answer = _cell(ws, sheet, "answer", q.row)
    if answer is not None and answer.data_type == "f" and "answer" in plan:
        # The customer computes this answer with a formula: keep it, report instead of overwriting.
        plan.pop("answer")
        plan["status"] = f"{plan.get('status') or ''}; answer cell holds a formula, left unchanged".lstrip("; ")
    for role, value in plan.items():
        cell = _cell(ws, sheet, role, q.row)
        if cell is not None:
            set_text(cell, value)
    tier = _cell(ws, sheet, "tier", q.row)
    if tier is not None and res.tier is not None:
        tier.fill = PatternFill(fill_type="solid", start_color=res.tier.fill, end_color=res.tier.fill)


def _ensure_review_dropdown(ws, sheet: SheetLayout) -> None:
    letter = sheet.letter("review")
    rows = sheet.question_rows
    if not letter or not rows:
        return
    idx = column_index_from_string(letter)
    for dv in ws.data_validations.dataValidation:
        if dv.type == "list" and any(c1 <= idx <= c2 and r1 <= rows[0] <= r2
                                     for c1, r1, c2, r2 in (rng.bounds for rng in dv.sqref.ranges)):
            return  # the drop-down of an earlier run
    dv = DataValidation(type="list", formula1='"' + ",".join(REVIEW_CHOICES) + '"', allow_blank=True,
                        showErrorMessage=True, errorTitle="Review",
                        error="Choose Approved, Needs changes or Rejected.")
    dv.sqref = _sqref(letter, rows)
    ws.add_data_validation(dv)


def _sqref(letter: str, rows: list[int]) -> str:
    parts, start, prev = [], rows[0], rows[0]
    for r in rows[1:] + [None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(f"{letter}{start}:{letter}{prev}" if prev != start else f"{letter}{start}")
        if r is not None:
            start = prev = r
    return " ".join(parts)
