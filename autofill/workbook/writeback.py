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
import zipfile
from copy import copy
from pathlib import Path

from openpyxl.cell.cell import MergedCell
from openpyxl.styles import Alignment, PatternFill, Protection
from openpyxl.utils.cell import column_index_from_string
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes
from autofill.checks.tier import decide_tier
from autofill.frameworks.coverage import ReportIndex
from autofill.records import CheckResult, QuestionRow, RowResult, Severity
from autofill.states import KEPT, REVIEW_CHOICES, Outcome, ReviewState, Tier, parse_review
from autofill.workbook.record import TRACKED_ROLES, read_record, write_record, written_row
from autofill.workbook.evidence import EvidenceRows, stream_evidence, write_evidence_sheet, write_run_info_sheet
from autofill.workbook.hyperlinks import link_sources, pdf_links
from autofill.workbook.model import SheetLayout, WorkbookLayout
from autofill.workbook.package import refresh_package
from autofill.workbook.row_plan import (  # noqa: F401 (mark_not_written, match_allowed: as their callers import them)
    keeps_previous, mark_not_written, match_allowed, plan_row, settle,
)
from autofill.workbook.safety import load_workbook_safely, set_text
from autofill.workbook.validations import extension_list_validations
from autofill.workbook.safety import guard_workbook, replaced_reason, say_replaced, xml_safe  # noqa: I001 - apart: merges

COLUMN_WIDTHS = {"answer": 40, "reasoning": 60, "sources": 36, "confidence": 12, "status": 30, "review": 16,
                 "reviewer_comment": 40, "tier": 12, "checks": 40, "library_answer": 50,
                 "datapoints": 50}
# The evidence-only Status prefix, for modules that still read Status by prefix (portfolio/workbook.py);
# new code reads it with states.parse_status.
EVIDENCE_ONLY = "Evidence only"


def output_file(source: Path, out_path: Path, kind: str) -> Path:
    """The path `write_results` writes for `out_path` (suffix adjusted to the questionnaire's kind)."""
    return _output_path(Path(source), Path(out_path), kind)


def write_results(settings, source: Path, layout: WorkbookLayout, results: list[RowResult], out_path: Path,
                  run_info: dict, base: Path | None = None, carried: dict | None = None,
                  identity: dict[str, str] | None = None) -> Path:
    """Write a filled copy of `source` to `out_path` (suffix adjusted: .xlsm for macro workbooks, .xlsx
    for CSV input and templates) and return the path actually written. `base` is the workbook to start
    from when it is not `source`: the existing output of an earlier run (carry.choose_base), so what
    people did there stays; `layout` is then the base's layout.

    Only rows with a result are written; a row whose Review cell says Approved is never touched, even if
    a result for it is passed. A failed, unparsed or evidence-only result never replaces an answer the
    row already holds. Kept rows' evidence from a previous run stays in the Evidence sheet; the record
    of what autofill wrote (carry.py) is updated for every row written. `carried` (carry.CarriedRow by
    row key): rows of an old output carried into this new version of the questionnaire; their old cells,
    record entry and evidence are put in first, then the row is treated like any other."""
    source, out_path = Path(source), Path(out_path)
    out_path = _output_path(source, out_path, layout.kind)
    if out_path.exists() and out_path.resolve() == source.resolve():
        raise InputError(f"refusing to overwrite the questionnaire itself: {source}")
    base = Path(base) if base is not None else source
    wb = load_workbook_safely(base, rich_text=True)
    if out_path.suffix.lower() == ".xlsx":
        wb.template = False
    by_key = {res.question.key: res for res in results}
    written: list[RowResult] = []
    record = read_record(wb)
    ext = extension_list_validations(base) if layout.kind == "xlsx" else {}
    carried = carried or {}

    report_index = ReportIndex(settings, (run_info or {}).get("evidence store", ""))
    for sheet in layout.sheets:
        ws = wb[sheet.name]
        _write_headers(ws, sheet)
        letters = {role: sheet.letter(role) for role in TRACKED_ROLES}
        for q in sheet.questions:
            if q.key in carried:
                _put_carried(ws, sheet, q, carried[q.key], record)
            res = by_key.get(q.key)
            if res is None or (_approved(ws, sheet, q.row) and res.outcome is not Outcome.APPROVED):
                continue  # an approved row: only its own Status / Tier (Outcome.APPROVED) are written
            q.datapoints = report_index.annotate(q.datapoints)  # "the report's GRI index points here"
            replaced = _write_row(ws, sheet, q, res)
            if res.outcome not in KEPT:
                record[q.key] = written_row(ws, letters, q)
            if replaced:
                written.append(res)
        _ensure_review_dropdown(ws, sheet)
    say_replaced(sum(1 for res in results if any(c.name == "characters" and not c.passed for c in res.checks)))
    # openpyxl drops x14 (cross-sheet) drop-downs on save: put them back as standard validations.
    for sheet_name, validations in ext.items():
        if sheet_name in wb.sheetnames:
            for v in validations:
                wb[sheet_name].add_data_validation(DataValidation(type="list", formula1=v.formula, sqref=v.sqref,
                                                                  allow_blank=True))
    evidence = write_evidence_sheet(wb, layout, written,
                                    [rec for key, c in carried.items() if key not in {r.question.key for r in written}
                                     for rec in c.evidence])
    write_run_info_sheet(wb, run_info, source, out_path)
    link_sources(wb, pdf_links((run_info or {}).get("documents"), out_path.parent))
    write_record(wb, record, identity)
    _save_atomically(wb, out_path, evidence, base)
    return out_path


def _output_path(source: Path, out_path: Path, kind: str) -> Path:
    src = source.suffix.lower()
    if src in (".xlsm", ".xltm"):
        return out_path.with_suffix(".xlsm")
    if kind == "csv" or out_path.suffix.lower() not in (".xlsx",):
        return out_path.with_suffix(".xlsx")
    return out_path


def _save_atomically(wb, out_path: Path, evidence: EvidenceRows, base: Path) -> None:
    # openpyxl writes its zip to any file object, the Evidence rows are streamed into it (evidence.py);
    # fileio then does the temp file, mode and rename.
    saved, out = io.BytesIO(), io.BytesIO()
    guard_workbook(wb)  # nothing an .xlsx cannot hold reaches the file, whatever path put it in
    wb.save(saved)
    stream_evidence(saved, evidence, out)
    # the formulas' cached values openpyxl dropped computed again (Excel's own where nothing written changes
    # them: package.py); a CSV questionnaire has none
    baseline = base.read_bytes() if zipfile.is_zipfile(base) else None
    atomic_write_bytes(out_path, refresh_package(out.getvalue(), baseline))


# ------------------------------------------------------------------------------------ cells


def _cell(ws, sheet: SheetLayout, role: str, row: int):
    letter = sheet.letter(role)
    if not letter:
        return None
    cell = ws.cell(row=row, column=column_index_from_string(letter))
    return None if isinstance(cell, MergedCell) else cell


def _answer_cell(ws, sheet: SheetLayout, q: QuestionRow):
    """The cell that holds row `q`'s answer: its own, the top-left of the merged range it is in
    (layout._merged_answers), or None when no answer can be written there (q.unwritable)."""
    if q.unwritable:
        return None
    if q.answer_cell:
        return ws[q.answer_cell]
    return _cell(ws, sheet, "answer", q.row)


def _approved(ws, sheet: SheetLayout, row: int) -> bool:
    cell = _cell(ws, sheet, "review", row)
    return cell is not None and parse_review(cell.value) is ReviewState.APPROVED


def _put_carried(ws, sheet: SheetLayout, q: QuestionRow, row, record: dict) -> None:
    """A row carried from an old output (another position, see carry.carry_by_text): its old cells as
    they were (numbers stay numbers) and its record entry."""
    for role, value in row.values.items():
        cell = _cell(ws, sheet, role, q.row)
        if cell is None or (role == "answer" and cell.data_type == "f"):
            continue
        if isinstance(value, str) or value is None:
            set_text(cell, value)
        else:
            cell.value = value
    if row.written is not None:
        record[q.key] = row.written


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


def _write_row(ws, sheet: SheetLayout, q: QuestionRow, res: RowResult) -> bool:
    """Fill one row; True when the result replaced its content (the row's evidence is then the result's)."""
    answer = _answer_cell(ws, sheet, q)
    current = answer.value if answer is not None else None
    replaced = res.outcome not in KEPT and not keeps_previous(res, current)
    plan = settle(plan_row(q, res), res, current)
    if _name_unsafe_text(res, plan, sheet):  # characters a workbook cannot hold: in Checks (and the tier)
        plan = settle(plan_row(q, res), res, current)
    if answer is not None and answer.data_type == "f" and "answer" in plan:
        # The customer computes this answer with a formula: keep it, report instead of overwriting.
        plan.pop("answer")
        plan["status"] = f"{plan.get('status') or ''}; answer cell holds a formula, left unchanged".lstrip("; ")
    for role, value in plan.items():
        cell = answer if role == "answer" else _cell(ws, sheet, role, q.row)
        if cell is not None:
            set_text(cell, value)
    tier = _cell(ws, sheet, "tier", q.row)
    if tier is not None and res.tier is not None and "tier" in plan:
        tier.fill = PatternFill(fill_type="solid", start_color=res.tier.fill, end_color=res.tier.fill)
    return replaced


def _name_unsafe_text(res: RowResult, plan: dict[str, str | None], sheet: SheetLayout) -> bool:
    """When cells of `plan` hold characters an .xlsx cannot (safety.xml_safe replaces them as they are
    written), the row's checks get a soft failure naming them and the cells, and its tier is decided
    again (an approved row stays Approved); True when the checks changed. A row without checks (kept
    as it is) gets the line in its Checks cell."""
    replaced = {_cell_name(sheet, role): xml_safe(value)[1] for role, value in plan.items()
                if isinstance(value, str) and role not in ("tier", "checks") and role in sheet.columns}
    reason = replaced_reason(replaced)
    if not reason:
        return False
    check = CheckResult("characters", False, Severity.SOFT, reason)
    if res.tier is None:
        plan["checks"] = "; ".join(c for c in (plan.get("checks"), reason) if c)
        return False
    res.checks = [c for c in res.checks if c.name != "characters"] + [check]
    if res.tier is not Tier.APPROVED:
        res.tier = decide_tier(res.checks)
    return True


def _cell_name(sheet: SheetLayout, role: str) -> str:
    return sheet.columns[role].header or role.replace("_", " ").capitalize()


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
                        error="Choose " + ", ".join(REVIEW_CHOICES[:-1]) + " or " + REVIEW_CHOICES[-1] + ".")
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
