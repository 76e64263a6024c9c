"""The Evidence and Run info sheets autofill adds to the filled copy.

Evidence: one row per passage given to the answer step, in rank order, so reviewers (and `autofill
eval`) can check every answer against exactly what the model saw. Columns are the issue's `Row`,
`Question`, `Rank`, `File`, `Page`, `Cited`, `Score`, `Text` in that order, then `Sheet`, `Page end`,
`Printed page` (the number printed on the page, when it differs from the PDF page index) and `OCR`
("yes" when some of the passage was read by OCR from an image).
On a re-run the rows of questions that were not re-answered (approved or kept) are carried over.
The Evidence rows are streamed into the saved file (`stream_evidence`), never made openpyxl cells."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from autofill.records import RowResult
from autofill.workbook.model import EVIDENCE_COLUMNS, EVIDENCE_SHEET, RUN_INFO_COLUMNS, RUN_INFO_SHEET, WorkbookLayout
from autofill.redact import safe_text
from autofill.workbook.safety import FORMULA_PREFIXES, clean_text, set_text

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
                         carried: list[dict] | None = None) -> "EvidenceRows":
    """The Evidence sheet in `wb`: its header, widths, styles, frozen header and filter; its rows are
    not made cells (30,000 rows of passage text were most of a 5,000-row run's memory): they are
    returned, to be streamed into the saved file by `stream_evidence`. `carried`: Evidence records of
    rows carried from an old output (workbook/carry.py), already renumbered to their rows here."""
    name, index, old = _own_sheet(wb, EVIDENCE_SHEET, EVIDENCE_COLUMNS)
    question_keys = {q.key for q in layout.questions}
    rewritten = {res.question.key for res in written}
    rows: list[tuple] = [_row_of(rec) for rec in carried or []]
    if old is not None:
        for rec in _old_rows(old, layout):
            key = f"{rec['Sheet']}!{rec['Row']}"
            if key in question_keys and key not in rewritten:
                rows.append(_row_of(rec))
        wb.remove(old)
    for res in written:
        q = res.question
        for i, p in enumerate(res.passages, start=1):
            rows.append((q.row, q.question, p.rank or i, p.file_name, p.page_start, "yes" if _cited(res, i) else "no",
                         round(float(p.score), 4), p.text, q.sheet, p.page_end, printed_pages(p),
                         "yes" if p.ocr else ""))
    order = {s.name: i for i, s in enumerate(layout.sheets)}
    rows.sort(key=lambda r: (order.get(r[_SHEET], 99), _int(r[_ROW]), _int(r[_RANK])))

    ws = wb.create_sheet(name, index)
    for c, head in enumerate(EVIDENCE_COLUMNS, start=1):
        cell = ws.cell(row=1, column=c, value=head)
        cell.font, cell.fill = _HEADER_FONT, _HEADER_FILL
        ws.column_dimensions[cell.column_letter].width = _WIDTHS[head]
    # Two probe rows carry the cell styles the streamed rows use (plain, and quote-prefixed for text that
    # Excel would read as a formula when a reviewer edits it); stream_evidence puts the rows in their place.
    for r, quote in ((2, False), (3, True)):
        for c, head in enumerate(EVIDENCE_COLUMNS, start=1):
            cell = ws.cell(row=r, column=c, value="x")
            cell.alignment = Alignment(wrap_text=head in ("Question", "Text"), vertical="top")
            cell.quotePrefix = quote
    ws.freeze_panes = "A2"
    if rows:
        ws.auto_filter.ref = f"A1:{ws.cell(row=1, column=len(EVIDENCE_COLUMNS)).column_letter}{len(rows) + 1}"
    return EvidenceRows(name, rows)


_ROW, _RANK, _SHEET = (EVIDENCE_COLUMNS.index(h) for h in ("Row", "Rank", "Sheet"))


def _row_of(rec: dict) -> tuple:
    return tuple(rec.get(head) for head in EVIDENCE_COLUMNS)


@dataclass
class EvidenceRows:
    """The Evidence sheet's rows (EVIDENCE_COLUMNS order), written by `stream_evidence`."""

    sheet: str
    rows: list[tuple]


def stream_evidence(xlsx: IO[bytes], evidence: EvidenceRows, out: IO[bytes]) -> None:
    """Write to `out` the workbook `xlsx` (as openpyxl saved it) with the Evidence sheet's probe rows
    replaced by its rows, streamed into the zip one at a time as inline strings (the styles the probe
    cells got). Every other part is copied as it is."""
    with zipfile.ZipFile(xlsx) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        part = _sheet_part(zin, evidence.sheet)
        for info in zin.infolist():
            if info.filename != part:
                zout.writestr(info, zin.read(info.filename))
                continue
            streamed = zipfile.ZipInfo(part, date_time=info.date_time)
            streamed.compress_type = zipfile.ZIP_DEFLATED
            with zout.open(streamed, "w", force_zip64=True) as fh:
                _write_sheet(zin.read(part).decode("utf-8"), evidence.rows, fh)


def _sheet_part(zf: zipfile.ZipFile, sheet: str) -> str:
    """The zip member holding the sheet named `sheet` (workbook.xml, then its relationships)."""
    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
          "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
          "p": "http://schemas.openxmlformats.org/package/2006/relationships"}
    book = ElementTree.fromstring(zf.read("xl/workbook.xml"))
    rid = next(el.get(f"{{{ns['r']}}}id") for el in book.iterfind("m:sheets/m:sheet", ns) if el.get("name") == sheet)
    rels = ElementTree.fromstring(zf.read("xl/_rels/workbook.xml.rels"))
    target = next(el.get("Target") for el in rels.iterfind("p:Relationship", ns) if el.get("Id") == rid)
    return target.lstrip("/") if target.startswith("/") else f"xl/{target}"


_PROBE = re.compile(r'<row r="2"[^>]*>.*?</row>\s*<row r="3"[^>]*>.*?</row>', re.S)
_CELL_STYLE = re.compile(r'<c r="([A-Z]+)[23]"[^>]*?\ss="(\d+)"')


def _write_sheet(xml: str, rows: list[tuple], fh: IO[bytes]) -> None:
    probe = _PROBE.search(xml)
    if probe is None:
        raise ValueError("the Evidence sheet's probe rows were not saved as expected")
    styles = [m.group(2) for m in _CELL_STYLE.finditer(probe.group(0))]
    width = len(EVIDENCE_COLUMNS)
    plain, quoted = styles[:width], styles[width:2 * width]
    letters = [get_column_letter(c) for c in range(1, width + 1)]
    head = xml[:probe.start()]
    head = re.sub(r'<dimension ref="[^"]*"\s*/>', f'<dimension ref="A1:{letters[-1]}{len(rows) + 1}"/>', head, count=1)
    fh.write(head.encode("utf-8"))
    for r, row in enumerate(rows, start=2):
        cells = []
        for c, value in enumerate(row):
            if value is None or value == "":
                continue
            ref = f"{letters[c]}{r}"
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cells.append(f'<c r="{ref}" s="{plain[c]}"><v>{value!r}</v></c>')
                continue
            text = clean_text(str(value))
            style = quoted[c] if text.startswith(FORMULA_PREFIXES) else plain[c]
            cells.append(f'<c r="{ref}" s="{style}" t="inlineStr"><is><t xml:space="preserve">{escape(text)}</t></is>'
                         '</c>')
        fh.write(f'<row r="{r}">{"".join(cells)}</row>'.encode("utf-8"))
    fh.write(xml[probe.end():].encode("utf-8"))


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
            set_text(cell, "" if value is None else safe_text(value, headers=False))
    ws.freeze_panes = "A2"


# --------------------------------------------------------------------------- forms (issue 45)

# A form's Evidence sheet: one row per datapoint and passage (its Rank), one per candidate value of a
# draft ("candidate"), and one for a datapoint with neither; Status is forms.answer.Decision's.
# The columns are defined here once (forms/carry.py reads them as EVIDENCE_COLUMNS, the review page too);
# Review is the reviewer's: "Approved" on a row writes its Value on the next run.
FORM_REVIEW_COLUMN = "Review"
FORM_EVIDENCE_COLUMNS = ["Named range", "Cell", "Label", "Section", "Status", FORM_REVIEW_COLUMN, "Value", "Unit",
                         "Checks", "Rank", "File", "Page", "Cited", "Score", "Text", "Year"]

_FORM_WIDTHS = {"Named range": 40, "Cell": 22, "Label": 50, "Section": 10, "Status": 18, "Review": 12, "Value": 18,
                "Unit": 10,
                "Checks": 50, "Rank": 10, "File": 34, "Page": 7, "Cited": 7, "Score": 8, "Text": 100, "Year": 8}


def form_evidence_rows(answers) -> list[tuple]:
    """The rows of a form's Evidence sheet (FORM_EVIDENCE_COLUMNS order) for forms.answer.FormAnswer
    records, in the form's order: the datapoint's named range, cell, label and section on each row."""
    rows: list[tuple] = []
    for fa in answers:
        dp, res = fa.datapoint, fa.result
        head = (dp.key, str(dp.cell), dp.label, dp.section, fa.decision.value, "")  # Review: the reviewer's
        value = form_value(None if fa.value is None else fa.value.value)
        unit = res.question.unit if hasattr(res.question, "unit") else ""
        checks = "; ".join(f"{'ok' if c.passed else 'FAILED'} {c.name}: {c.reason}" for c in fa.checks)
        before = len(rows)
        for i, p in enumerate(res.passages, start=1):
            rows.append((*head, value if _cited(res, i) else "", unit, checks if i == 1 else "", p.rank or i,
                         p.file_name, p.page_start, "yes" if _cited(res, i) else "no", round(float(p.score), 4),
                         fa.quote if fa.quote and _cited(res, i) and i == min(res.answer.cited_passages or [i])
                         else p.text, fa.year if _cited(res, i) else ""))
        for c in fa.candidates:
            rows.append((*head, c.value, unit, f"candidate: {c.written}", "candidate", c.file_name, c.page, "",
                         c.score, c.quote, c.year or ""))
        if len(rows) == before:
            rows.append((*head, value, unit, checks or res.error, "", "", "", "", "", fa.quote, fa.year))
    return rows


def form_value(value):
    """A datapoint's value as the Evidence sheet shows it: a number as a number, yes / no, a date ISO."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    if isinstance(value, (int, float)):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def add_sheet(data: bytes, base: str, columns: list[str], rows: list[tuple], hidden: bool = False) -> tuple[bytes, str]:
    """A package with a sheet of `columns` and `rows` (inline strings, frozen header) added after its
    last sheet, every other part copied as it is (only workbook.xml, its relationships and the content
    types gain an entry). Named `base`, or "<base> (autofill)" when the workbook has a sheet of that name.
    `hidden`: very hidden (a record only autofill reads; Excel's Unhide does not list it).
    Returns (package, sheet name)."""
    import io

    zin = zipfile.ZipFile(io.BytesIO(data))
    book = zin.read("xl/workbook.xml").decode("utf-8")
    names = set(re.findall(r'<(?:\w+:)?sheet\b[^>]*\bname="([^"]*)"', book))
    name = next(n for n in (base, f"{base} (autofill)", f"{base} (autofill 2)", f"{base} (autofill 3)")
                if escape(n, {'"': "&quot;"}) not in names)
    rels = zin.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    types = zin.read("[Content_Types].xml").decode("utf-8")
    n = 1
    while f"xl/worksheets/sheet{n}.xml" in zin.namelist():
        n += 1
    part = f"worksheets/sheet{n}.xml"
    ids = set(re.findall(r'\bId="([^"]+)"', rels))
    rid = next(f"rIdAutofill{i}" for i in range(1, 1000) if f"rIdAutofill{i}" not in ids)
    sheet_ids = [int(x) for x in re.findall(r'<(?:\w+:)?sheet\b[^>]*\bsheetId="(\d+)"', book)]
    prefix = re.search(r'xmlns:(\w+)="http://schemas.openxmlformats.org/officeDocument/2006/relationships"', book)
    if prefix is None:
        book = book.replace("<workbook ", '<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/'
                            '2006/relationships" ', 1)
    r = prefix.group(1) if prefix else "r"
    sheets_end = re.search(r"</(\w+:)?sheets>", book)
    tag = (sheets_end.group(1) or "") + "sheet"
    state = ' state="veryHidden"' if hidden else ""
    entry = f'<{tag} name="{escape(name, {chr(34): "&quot;"})}" sheetId="{max(sheet_ids, default=0) + 1}"{state} ' \
        f'{r}:id="{rid}"/>'
    book = book[:sheets_end.start()] + entry + book[sheets_end.start():]
    rels = rels.replace("</Relationships>", f'<Relationship Id="{rid}" Type="http://schemas.openxmlformats.org/'
                        f'officeDocument/2006/relationships/worksheet" Target="{part}"/></Relationships>')
    types = types.replace("</Types>", f'<Override PartName="/xl/{part}" ContentType="application/vnd.openxmlformats-'
                          'officedocument.spreadsheetml.worksheet+xml"/></Types>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = {"xl/workbook.xml": book, "xl/_rels/workbook.xml.rels": rels, "[Content_Types].xml": types}.get(
                info.filename)
            zout.writestr(info, body.encode("utf-8") if body is not None else zin.read(info.filename))
        zout.writestr(f"xl/{part}", _sheet_xml(columns, rows))
    return out.getvalue(), name


def _sheet_xml(columns: list[str], rows: list[tuple]) -> str:
    letters = [get_column_letter(c) for c in range(1, len(columns) + 1)]
    cols = "".join(f'<col min="{i}" max="{i}" width="{_FORM_WIDTHS.get(h, 14)}" customWidth="1"/>'
                   for i, h in enumerate(columns, start=1))
    body = []
    for r, row in enumerate([tuple(columns), *rows], start=1):
        cells = []
        for c, value in enumerate(row):
            if value is None or value == "":
                continue
            ref = f"{letters[c]}{r}"
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cells.append(f'<c r="{ref}"><v>{value!r}</v></c>')
            else:
                text = clean_text(safe_text(str(value), headers=False))[:32767]
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(text)}</t></is></c>')
        body.append(f'<row r="{r}">{"".join(cells)}</row>')
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f'<dimension ref="A1:{letters[-1]}{len(rows) + 1}"/>'
            '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" '
            'state="frozen"/></sheetView></sheetViews>'
            f'<cols>{cols}</cols><sheetData>{"".join(body)}</sheetData></worksheet>')
