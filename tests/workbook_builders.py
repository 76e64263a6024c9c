"""Questionnaire workbooks built with openpyxl for the workbook tests, and a cell-by-cell comparison
that proves only the intended cells of a filled copy changed."""

from __future__ import annotations

import hashlib
from copy import copy
import re
import zipfile
from pathlib import Path

import openpyxl
from openpyxl.comments import Comment
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.records import Answer, Citation, Passage, RowResult

HEADERS = ["No.", "Section", "Question", "Form of answer", "Explanation", "Answer", "Comments"]
THIN = Side(style="thin", color="999999")
HEAD_STYLE = dict(font=Font(bold=True, color="FFFFFF", name="Calibri", size=11),
                  fill=PatternFill("solid", fgColor="1F4E78"),
                  border=Border(left=THIN, right=THIN, top=THIN, bottom=THIN),
                  alignment=Alignment(horizontal="center", vertical="center", wrap_text=True))

QUESTIONS = [
    ("Targets", "Does the company have a net zero target for Scope 1 and Scope 2 emissions?", "Yes/No and a short explanation", True),
    ("Targets", "Does the company have a Scope 3 target?", "Yes/No and a short explanation", True),
    ("Emissions", "What were Scope 1 emissions in FY2024?", "Number with unit", False),
    ("Emissions", "What share of electricity was renewable in FY2024?", "Percentage", False),
    ("Governance", "Is executive remuneration linked to climate performance?", "Yes / No / Partially", True),
]


def style_header(cell) -> None:
    for key, value in HEAD_STYLE.items():
        setattr(cell, key, value)


def build_questionnaire(path: Path, header_row: int = 3, title: bool = True, sections: bool = True,
                        dropdown: bool = True, instructions: bool = True, headers: list[str] | None = None,
                        questions=QUESTIONS, sheet_title: str = "Questionnaire", merged_sections: bool = False,
                        extras: bool = True) -> Path:
    """A customer-style questionnaire: title, header on `header_row`, section rows, drop-downs, styles,
    widths, frozen panes, a comment, a hyperlink, a conditional format, a defined name, Instructions."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet_title
    headers = headers or HEADERS
    ncol = len(headers)
    if title:
        ws.cell(row=1, column=1, value="Customer sustainability questionnaire").font = Font(bold=True, size=14)
        ws.merge_cells(start_row=1, start_column=1, end_row=1, end_column=ncol)
        ws.row_dimensions[1].height = 24
    for c, h in enumerate(headers, start=1):
        style_header(ws.cell(row=header_row, column=c, value=h))
    widths = [6, 20, 55, 24, 50, 22, 40, 15, 15]
    for c in range(1, ncol + 1):
        ws.column_dimensions[openpyxl.utils.get_column_letter(c)].width = widths[(c - 1) % len(widths)]
    ws.freeze_panes = ws.cell(row=header_row + 1, column=1)
    col = {h: i for i, h in enumerate(headers, start=1)}
    r = header_row + 1
    section = None
    dv_rows = []
    number = 0
    grey = PatternFill("solid", fgColor="D9D9D9")
    yellow = PatternFill("solid", fgColor="FFF2CC")
    for sec, question, form, yesno in questions:
        if sections and sec != section:
            if merged_sections:
                ws.cell(row=r, column=1, value=sec).font = Font(bold=True)
                ws.merge_cells(start_row=r, start_column=1, end_row=r, end_column=ncol)
            else:
                target = col.get("Section", 1)
                ws.cell(row=r, column=target, value=sec).font = Font(bold=True)
                for c in range(1, ncol + 1):
                    ws.cell(row=r, column=c).fill = grey
            section = sec
            r += 1
        number += 1
        values = {"No.": number, "Section": sec, "Question": question, "Form of answer": form,
                  "Explanation": f"Guidance for question {number}."}
        for h, v in values.items():
            if h in col:
                cell = ws.cell(row=r, column=col[h], value=v)
                cell.alignment = Alignment(wrap_text=True, vertical="top")
                cell.border = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
        if "Answer" in col:
            ws.cell(row=r, column=col["Answer"]).fill = yellow
            if yesno:
                dv_rows.append(f"{openpyxl.utils.get_column_letter(col['Answer'])}{r}")
        ws.row_dimensions[r].height = 45
        r += 1
    if dropdown and dv_rows:
        dv = DataValidation(type="list", formula1='"Yes,No,Partially,Not disclosed"', allow_blank=True)
        dv.sqref = openpyxl.worksheet.cell_range.MultiCellRange(" ".join(dv_rows))
        ws.add_data_validation(dv)
    if extras:
        qcol = openpyxl.utils.get_column_letter(col["Question"])
        ws[f"{qcol}{header_row}"].comment = Comment("Answer every question.", "Customer")
        link = ws.cell(row=r + 1, column=1, value="Customer portal")
        link.hyperlink = "https://example.com/portal"
        ws.conditional_formatting.add(f"A{header_row + 1}:A{r}",
                                      CellIsRule(operator="greaterThan", formula=["100"], fill=grey))
        wb.defined_names["QuestionArea"] = DefinedName("QuestionArea", attr_text=f"'{sheet_title}'!$A${header_row}:$G${r}")
    if instructions:
        ins = wb.create_sheet("Instructions")
        ins["A1"] = "Instructions"
        ins["A1"].font = Font(bold=True, size=14)
        ins["A3"] = "1. Please answer every question in the Questionnaire sheet."
        ins["A4"] = "2. Use the drop-down for Yes/No questions."
        ins.column_dimensions["A"].width = 100
    wb.save(path)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def result_for(q, answer: str = "Yes. The company has a target.", reasoning: str = "It says so on page 2.",
               pages=(2, 3), status: str = "Answered", n_passages: int = 6, file: str = "report.pdf") -> RowResult:
    passages = [Passage(chunk_id=f"{q.row}-{i}", file_name=file, page_start=i + 1, page_end=i + 1, section="S",
                        text=f"Passage {i + 1} for row {q.row}", score=round(1 - i / 10, 2), rank=i + 1)
                for i in range(n_passages)]
    cites = [Citation(file, p) for p in pages]
    # Passage i is on page i, so the passages cited are those whose number is a cited page.
    ans = Answer(answer=answer, reasoning=reasoning, citations=cites,
                 cited_passages=[p for p in pages if 1 <= p <= n_passages], confidence="high", status=status)
    return RowResult(question=q, answer=ans, passages=passages)


# ------------------------------------------------------------------------------------ comparison

STYLE_ATTRS = ("font", "fill", "border", "alignment", "number_format", "protection")


def assert_only_changed(src: Path, out: Path, allowed: set[tuple[str, str]],
                        ignore_sheets=("Evidence", "Run info", "autofill record")):
    """Every sheet of `src` is in `out`, in the same order, and every cell, width, height, merge,
    validation, conditional format, comment, hyperlink and defined name is the same, except cells
    listed in `allowed` ((sheet, coordinate) pairs) and cells beyond the source's used range that
    `allowed` names."""
    a = openpyxl.load_workbook(src)
    b = openpyxl.load_workbook(out)
    assert b.sheetnames[:len(a.sheetnames)] == a.sheetnames
    assert [n for n in b.sheetnames if n not in a.sheetnames] == [n for n in b.sheetnames[len(a.sheetnames):]]
    assert set(a.defined_names.keys()) <= set(b.defined_names.keys())
    for name in a.defined_names:
        assert a.defined_names[name].attr_text == b.defined_names[name].attr_text
    for wa in a.worksheets:
        if wa.title in ignore_sheets:
            continue  # ours: rewritten on every run
        wb_ = b[wa.title]
        max_row = max(wa.max_row, wb_.max_row)
        max_col = max(wa.max_column, wb_.max_column)
        for r in range(1, max_row + 1):
            for c in range(1, max_col + 1):
                ca, cb = wa.cell(row=r, column=c), wb_.cell(row=r, column=c)
                if (wa.title, ca.coordinate) in allowed:
                    continue
                assert ca.value == cb.value, f"{wa.title}!{ca.coordinate}: {ca.value!r} -> {cb.value!r}"
                for attr in STYLE_ATTRS:
                    # copy() unwraps openpyxl's StyleProxy, which does not compare equal to another proxy
                    assert copy(getattr(ca, attr)) == copy(getattr(cb, attr)), f"{wa.title}!{ca.coordinate} {attr} changed"
                assert (ca.comment.text if ca.comment else None) == (cb.comment.text if cb.comment else None)
                assert (ca.hyperlink.target if ca.hyperlink else None) == (cb.hyperlink.target if cb.hyperlink else None)
        for letter, dim in wa.column_dimensions.items():
            assert wb_.column_dimensions[letter].width == dim.width, f"{wa.title} width {letter}"
        for idx, dim in wa.row_dimensions.items():
            assert wb_.row_dimensions[idx].height == dim.height, f"{wa.title} height of row {idx}"
        assert wa.freeze_panes == wb_.freeze_panes
        assert sorted(map(str, wa.merged_cells.ranges)) == sorted(map(str, wb_.merged_cells.ranges))
        dva = [(str(d.sqref), d.formula1, d.type) for d in wa.data_validations.dataValidation]
        dvb = [(str(d.sqref), d.formula1, d.type) for d in wb_.data_validations.dataValidation]
        assert all(d in dvb for d in dva), f"{wa.title}: validations lost"
        cfa = {str(rng.sqref): [r.formula for r in rules] for rng, rules in wa.conditional_formatting._cf_rules.items()}
        cfb = {str(rng.sqref): [r.formula for r in rules] for rng, rules in wb_.conditional_formatting._cf_rules.items()}
        assert cfa == cfb
        assert wa.protection.sheet == wb_.protection.sheet


def sheet_xml(path: Path, sheet_index: int = 1) -> str:
    with zipfile.ZipFile(path) as zf:
        return zf.read(f"xl/worksheets/sheet{sheet_index}.xml").decode()


def cell_xml(path: Path, coordinate: str, sheet_index: int = 1) -> str:
    xml = sheet_xml(path, sheet_index)
    m = re.search(rf'<c r="{coordinate}"[^>]*?(?:/>|>.*?</c>)', xml, re.S)
    return m.group(0) if m else ""


def rewrite_zip(path: Path, edits: dict[str, object]) -> None:
    """Replace parts of an xlsx (value: new bytes/str, or a function old_text -> new_text)."""
    with zipfile.ZipFile(path) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    for name, edit in edits.items():
        if callable(edit):
            parts[name] = edit(parts[name].decode()).encode()
        else:
            parts[name] = edit.encode() if isinstance(edit, str) else edit
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
