"""The Evidence and Run info sheets autofill adds to the filled copy.

Evidence: one row per passage given to the answer step, in rank order, so reviewers (and `autofill
eval`) can check every answer against exactly what the model saw. Columns are the issue's `Row`,
`Question`, `Rank`, `File`, `Page`, `Cited`, `Score`, `Text` in that order, then `Sheet`, `Page end`,
`Printed page` (the number printed on the page, when it differs from the PDF page index) and `OCR`
("yes" when some of the passage was read by OCR from an image).
On a re-run the rows of questions that were not re-answered (approved or kept) are carried over."""

from __future__ import annotations

from copy import copy
from datetime import datetime, timezone
from pathlib import Path

from openpyxl.styles import Alignment, Font, PatternFill

from autofill.records import RowResult
from autofill.workbook.model import EVIDENCE_COLUMNS, EVIDENCE_SHEET, RUN_INFO_COLUMNS, RUN_INFO_SHEET, WorkbookLayout
from autofill.workbook.safety import set_text

_WIDTHS = {"Row": 7, "Question": 50, "Rank": 6, "File": 34, "Page": 7, "Cited": 7, "Score": 9, "Text": 100,
           "Sheet": 18, "Page end": 9, "Printed page": 9, "OCR": 6}
_HEADER_FONT = Font(bold=True)
_HEADER_FILL = PatternFill("solid", fgColor="DDEBF7")


def _own_sheet(wb, base: str, columns: list[str]):
    """Our sheet named `base` (replaced) or, when the customer has a sheet of that name that is not
    ours, "<base> (autofill)". Returns (name, index to insert at, previous sheet or None)."""
    for name in (base, f"{base} (autofill)"):
        if name not in wb.sheetnames:
            return name, None, None
        ws = wb[name]
        head = [ws.cell(row=1, column=c).value for c in range(1, len(columns) + 1)]
        if head[:2] == columns[:2]:
            return name, wb.sheetnames.index(name), ws
    return f"{base} (autofill 2)", None, None


def _cited(res: RowResult, index: int) -> bool:
    ans = res.answer
    if ans is None:
        return False
    if ans.cited_passages:
        return index in ans.cited_passages
    p = res.passages[index - 1]
    return any(c.file_name == p.file_name and p.page_start <= c.page <= p.page_end for c in ans.citations)


def _old_rows(ws, layout: WorkbookLayout) -> list[dict]:
    header = [ws.cell(row=1, column=c).value for c in range(1, ws.max_column + 1)]
    default_sheet = layout.sheets[0].name if layout.sheets else ""
    rows = []
    for values in ws.iter_rows(min_row=2, values_only=True):
        rec = {h: v for h, v in zip(header, values) if isinstance(h, str)}
        if rec.get("Row") is None:
            continue
        rec.setdefault("Sheet", default_sheet)
        rec["Sheet"] = rec.get("Sheet") or default_sheet
        rows.append(rec)
    return rows


def write_evidence_sheet(wb, layout: WorkbookLayout, written: list[RowResult],
                         carried: list[dict] | None = None) -> None:
    """`carried`: Evidence records of rows carried from an old output (workbook/carry.py), already
    renumbered to their rows in this workbook."""
    name, index, old = _own_sheet(wb, EVIDENCE_SHEET, EVIDENCE_COLUMNS)
    question_keys = {q.key for q in layout.questions}
    rewritten = {res.question.key for res in written}
    records: list[dict] = list(carried or [])
    if old is not None:
        for rec in _old_rows(old, layout):
            key = f"{rec['Sheet']}!{rec['Row']}"
            if key in question_keys and key not in rewritten:
                records.append(rec)
        wb.remove(old)
    for res in written:
        q = res.question
        for i, p in enumerate(res.passages, start=1):
            records.append({
                "Row": q.row, "Question": q.question, "Rank": p.rank or i, "File": p.file_name,
                "Page": p.page_start, "Cited": "yes" if _cited(res, i) else "no", "Score": round(float(p.score), 4),
                "Text": p.text, "Sheet": q.sheet, "Page end": p.page_end,
                "Printed page": printed_pages(p), "OCR": "yes" if p.ocr else "",
            })
    order = {s.name: i for i, s in enumerate(layout.sheets)}
    records.sort(key=lambda r: (order.get(r.get("Sheet"), 99), _int(r.get("Row")), _int(r.get("Rank"))))

    ws = wb.create_sheet(name, index)
    for c, head in enumerate(EVIDENCE_COLUMNS, start=1):
        cell = ws.cell(row=1, column=c, value=head)
        cell.font, cell.fill = _HEADER_FONT, _HEADER_FILL
        ws.column_dimensions[cell.column_letter].width = _WIDTHS[head]
    # Two styles, registered once and copied: assigning alignment per cell is slow in openpyxl.
    probe = ws.cell(row=1, column=len(EVIDENCE_COLUMNS) + 1)
    probe.alignment = Alignment(wrap_text=True, vertical="top")
    wrap = copy(probe._style)
    probe.alignment = Alignment(vertical="top")
    top = copy(probe._style)
    del ws._cells[(1, len(EVIDENCE_COLUMNS) + 1)]
    for r, rec in enumerate(records, start=2):
        for c, head in enumerate(EVIDENCE_COLUMNS, start=1):
            value = rec.get(head)
            cell = ws.cell(row=r, column=c)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cell.value = value
            else:
                set_text(cell, value)
            cell._style = copy(wrap if head in ("Question", "Text") else top)
    ws.freeze_panes = "A2"
    if records:
        ws.auto_filter.ref = f"A1:{ws.cell(row=1, column=len(EVIDENCE_COLUMNS)).column_letter}{len(records) + 1}"


def printed_pages(p) -> str:
    """The printed numbers of a passage's pages ("24", "24-25"), "" when unknown or the same as the
    PDF page indexes."""
    labels = [p.printed(n) for n in range(p.page_start, p.page_end + 1)]
    if not any(labels) or labels == [str(n) for n in range(p.page_start, p.page_end + 1)]:
        return ""
    return labels[0] if len(labels) == 1 or labels[0] == labels[-1] else f"{labels[0]}-{labels[-1]}"


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _flatten(data, prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    if isinstance(data, dict):
        for key, value in data.items():
            out.extend(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(data, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in data):
            out.append((prefix, ", ".join(str(v) for v in data)))
        else:
            for i, value in enumerate(data):
                out.extend(_flatten(value, f"{prefix}[{i}]"))
    else:
        if hasattr(data, "__dataclass_fields__"):
            import dataclasses

            return _flatten(dataclasses.asdict(data), prefix)
        out.append((prefix, data))
    return out


def write_run_info_sheet(wb, run_info: dict, source: Path, out_path: Path) -> None:
    """Key/value rows: models, embedder, retrieval settings, timestamps, tokens and cost by stage."""
    name, index, old = _own_sheet(wb, RUN_INFO_SHEET, RUN_INFO_COLUMNS)
    if old is not None:
        wb.remove(old)
    ws = wb.create_sheet(name, index)
    info = dict(run_info or {})
    info.setdefault("questionnaire", Path(source).name)
    info.setdefault("output", Path(out_path).name)
    info.setdefault("written_at", datetime.now(timezone.utc).isoformat(timespec="seconds"))
    for c, head in enumerate(RUN_INFO_COLUMNS, start=1):
        cell = ws.cell(row=1, column=c, value=head)
        cell.font, cell.fill = _HEADER_FONT, _HEADER_FILL
    ws.column_dimensions["A"].width = 36
    ws.column_dimensions["B"].width = 80
    for r, (key, value) in enumerate(_flatten(info), start=2):
        if "api_key" in key.lower() or key.lower().endswith("secret"):
            value = "***" if value else ""  # keys never reach a file, even if a caller passes one
        set_text(ws.cell(row=r, column=1), key)
        cell = ws.cell(row=r, column=2)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            cell.value = value
        elif isinstance(value, datetime):
            set_text(cell, value.isoformat(timespec="seconds"))
        else:
            set_text(cell, "" if value is None else str(value))
    ws.freeze_panes = "A2"
