"""Writing a filled copy: only the intended cells change; answers fit their cells; Evidence and Run info."""

from __future__ import annotations

import os
import zipfile
from copy import copy

import openpyxl
import pytest
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.errors import InputError
from autofill.records import Answer, Citation, RowResult
from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from autofill.workbook.model import EVIDENCE_COLUMNS
from autofill.workbook.writeback import match_allowed, write_results
from tests.test_workbook_layout import build_x14
from tests.workbook_builders import assert_only_changed, build_questionnaire, result_for, rewrite_zip, sha256

ADDED = "HIJKLMNOPQ"


def fill(tmp_path, src, results_for=None, run_info=None, out_name="out.xlsx"):
    layout, rows = read_questions(Settings(), src)
    results = [(results_for or result_for)(q) for q in rows]
    out = write_results(Settings(), src, layout, results, tmp_path / "out" / out_name, run_info or {})
    return layout, rows, results, out


def intended_cells(layout, header=True):
    cells = set()
    for sheet in layout.sheets:
        cols = [sheet.letter("answer")] + [c.letter for c in sheet.added_columns]
        for letter in cols:
            if header:
                cells.add((sheet.name, f"{letter}{sheet.header_row}"))
            for q in sheet.questions:
                cells.add((sheet.name, f"{letter}{q.row}"))
    return cells


def test_only_intended_cells_change_and_input_is_untouched(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    before = sha256(src)
    layout, rows, _, out = fill(tmp_path, src)
    assert sha256(src) == before
    assert_only_changed(src, out, intended_cells(layout))
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Questionnaire", "Instructions", "Evidence", "Run info", "autofill record"]
    assert wb["autofill record"].sheet_state == "veryHidden"  # the record of what autofill wrote
    # No temporary files are left next to the output.
    assert sorted(os.listdir(out.parent)) == ["out.xlsx"]


def test_cells_are_filled_with_answers_and_review_columns(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows, _, out = fill(tmp_path, src)
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    assert [ws.cell(row=3, column=c).value for c in range(6, 18)] == [
        "Answer", "Comments", "Reasoning", "Sources", "Confidence", "Status", "Review", "Reviewer comment",
        "Tier", "Checks", "Library answer", "Framework datapoints"]
    yes_row, text_row = rows[0].row, rows[2].row
    # Drop-down cell: only the verdict; the explanation moves to Reasoning.
    assert ws[f"F{yes_row}"].value == "Yes"
    assert ws[f"H{yes_row}"].value == "The company has a target.\n\nIt says so on page 2."
    assert ws[f"I{yes_row}"].value == "report.pdf p. 2; report.pdf p. 3"
    assert ws[f"J{yes_row}"].value == "high" and ws[f"K{yes_row}"].value == "Answered"
    # Free-text cell: the whole answer.
    assert ws[f"F{text_row}"].value == "Yes. The company has a target."
    # Section rows are untouched in the added columns too.
    section_row = rows[0].row - 1
    assert all(ws.cell(row=section_row, column=c).value is None for c in range(8, 14))
    # The customer's Comments column is left alone.
    assert all(ws[f"G{q.row}"].value is None for q in rows)


def test_added_headers_styled_like_the_customer_header(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    _, rows, _, out = fill(tmp_path, src)
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    q_head = ws["C3"]
    for letter in ADDED:
        head = ws[f"{letter}3"]
        for attr in ("font", "fill", "border", "alignment"):
            assert copy(getattr(head, attr)) == copy(getattr(q_head, attr)), attr
        assert ws.column_dimensions[letter].width >= 12
        assert ws[f"{letter}{rows[0].row}"].alignment.wrap_text
    # The Review column has the Approved / Needs changes / Rejected drop-down on question rows only.
    review = [d for d in ws.data_validations.dataValidation if "Approved" in (d.formula1 or "")]
    assert len(review) == 1 and review[0].formula1 == '"Approved,Needs changes,Rejected"'
    assert {str(r) for r in review[0].sqref.ranges} <= {f"L{q.row}" for q in rows} | {
        str(r) for r in review[0].sqref.ranges if ":" in str(r)}
    covered = {q.row for q in rows}
    for rng in review[0].sqref.ranges:
        assert set(range(rng.min_row, rng.max_row + 1)) <= covered


@pytest.mark.parametrize("answer, cell, status_part, reasoning_part", [
    ("Not disclosed. Nothing found.", "Not disclosed", "Answered", "Nothing found."),
    ("no", "No", "Answered", None),
    ("Maybe, partly", None, "is not one of the drop-down values", "Model answer (not an allowed value): Maybe"),
])
def test_dropdown_cells_get_only_allowed_values(tmp_path, answer, cell, status_part, reasoning_part):
    src = build_questionnaire(tmp_path / "q.xlsx")
    _, rows, _, out = fill(tmp_path, src, results_for=lambda q: result_for(q, answer=answer, reasoning="R."))
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    r = rows[0].row
    assert ws[f"F{r}"].value == cell
    assert status_part in ws[f"K{r}"].value
    if reasoning_part:
        assert reasoning_part in ws[f"H{r}"].value


def test_evidence_only_drafts_never_reach_the_answer_column(tmp_path):
    from autofill.answer.evidence_only import PREFIX
    from autofill.states import Outcome

    status = "Evidence only (no LLM configured)"
    quotes = PREFIX + '"Net zero by 2050" (report.pdf p. 2)'
    src = build_questionnaire(tmp_path / "q.xlsx")
    # A draft the old way (quotes in the answer text) is still kept out of the Answer column.
    _, rows, _, out = fill(tmp_path, src, results_for=lambda q: result_for(
        q, answer="" if q.row % 2 else quotes, reasoning=quotes if q.row % 2 else "", status=status))
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    for q in rows:
        assert ws[f"F{q.row}"].value is None, q.row  # drop-down and free text alike
        assert ws[f"K{q.row}"].value == status
    assert "Net zero by 2050" in ws[f"H{rows[0].row}"].value and "Net zero by 2050" in ws[f"H{rows[1].row}"].value
    assert ws[f"I{rows[0].row}"].value.startswith("report.pdf p. 2")
    assert result_for(rows[0], status=status).outcome is Outcome.DRAFTED


def test_failed_rows_and_flags(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")

    def results(q):
        if q.row == 5:
            return RowResult(question=q, answer=None, error="rate limited after 4 retries")
        res = result_for(q)
        res.answer.flags = ["dropped citation to report.pdf p. 99"]
        return res

    _, rows, _, out = fill(tmp_path, src, results_for=results)
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    assert ws["K5"].value == "Failed: rate limited after 4 retries"
    assert ws["F5"].value is None and ws["H5"].value is None
    assert ws[f"K{rows[1].row}"].value == "Answered; dropped citation to report.pdf p. 99"


def test_evidence_sheet(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    _, rows, results, out = fill(tmp_path, src)
    ev = openpyxl.load_workbook(out)["Evidence"]
    header = [c.value for c in ev[1]]
    assert header[:8] == ["Row", "Question", "Rank", "File", "Page", "Cited", "Score", "Text"]
    assert header == EVIDENCE_COLUMNS
    data = [[c.value for c in row] for row in ev.iter_rows(min_row=2)]
    assert len(data) == 6 * len(rows)
    first = data[:6]
    assert [d[0] for d in first] == [rows[0].row] * 6
    assert [d[2] for d in first] == [1, 2, 3, 4, 5, 6]  # rank order
    assert [d[5] for d in first] == ["no", "yes", "yes", "no", "no", "no"]  # pages 2 and 3 cited
    assert first[0][3] == "report.pdf" and first[0][4] == 1 and first[0][6] == 1.0
    assert first[0][8] == "Questionnaire"
    assert ev.freeze_panes == "A2"


def test_evidence_rows_are_streamed_as_text_with_the_sheet_styles(tmp_path):
    """The Evidence rows are streamed into the saved file (workbook/evidence.stream_evidence), never made
    cells: text that looks like a formula stays text (quote-prefixed, as set_text does), markup and
    control characters are escaped or replaced visibly (U+FFFD), numbers stay numbers, styles and the filter are the
    sheet's, and a re-run reads the rows back."""
    from dataclasses import replace

    src = build_questionnaire(tmp_path / "q.xlsx")
    texts = ["=SUM(A1:A9)", "- a bullet & <b>markup</b>", "bell\x07 gone", "plain ü 東京"]

    def results(q):
        res = result_for(q)
        res.passages = [replace(p, text=texts[i % 4]) for i, p in enumerate(res.passages)]
        return res

    layout, rows, _, out = fill(tmp_path, src, results_for=results)
    wb = openpyxl.load_workbook(out)
    ev = wb["Evidence"]
    assert ev.max_row == 6 * len(rows) + 1 and ev.auto_filter.ref == f"A1:L{ev.max_row}"
    cells = list(ev.iter_rows(min_row=2, max_row=5))
    assert [r[7].value for r in cells] == ["=SUM(A1:A9)", "- a bullet & <b>markup</b>", "bell\ufffd gone", "plain ü 東京"]
    assert all(r[7].data_type == "s" for r in cells)
    assert [r[7].quotePrefix for r in cells] == [True, True, False, False]
    assert cells[0][7].alignment.wrap_text and not cells[0][3].alignment.wrap_text
    assert cells[0][2].value == 1 and cells[0][6].value == 1.0  # numbers stay numbers
    assert ev["A1"].font.bold and ev.column_dimensions["H"].width == 100
    read_only = openpyxl.load_workbook(out, read_only=True)["Evidence"]  # bounded by the sheet's dimension
    assert sum(1 for _ in read_only.iter_rows()) == ev.max_row
    # A second run that keeps the rows (no result given for them) carries the streamed rows over.
    again = write_results(Settings(), src, layout, [], tmp_path / "out" / "again.xlsx", {}, base=out)
    carried = [[c.value for c in r] for r in openpyxl.load_workbook(again)["Evidence"].iter_rows(min_row=2)]
    assert carried == [[c.value for c in r] for r in ev.iter_rows(min_row=2)]


def test_run_info_sheet(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    info = {"company": "Northwind", "models": {"chat": "gpt-4o-mini", "embedder": "local"},
            "tokens": {"hyde": {"prompt": 100, "completion": 20}}, "cost_usd": 0.0123,
            "llm": {"api_key": "sk-secret"}}
    _, _, _, out = fill(tmp_path, src, run_info=info)
    ws = openpyxl.load_workbook(out)["Run info"]
    kv = {r[0]: r[1] for r in ws.iter_rows(min_row=2, values_only=True)}
    assert kv["company"] == "Northwind" and kv["models.chat"] == "gpt-4o-mini"
    assert kv["tokens.hyde.prompt"] == 100 and kv["cost_usd"] == 0.0123
    assert kv["questionnaire"] == "q.xlsx" and "written_at" in kv
    assert kv["llm.api_key"] == "***"
    assert b"sk-secret" not in out.read_bytes()


def test_missing_answer_column_is_added(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx", headers=["No.", "Question", "Form of answer"], dropdown=False)
    layout, rows, _, out = fill(tmp_path, src)
    assert_only_changed(src, out, intended_cells(layout))
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    assert ws["D3"].value == "Answer" and ws[f"D{rows[0].row}"].value == "Yes. The company has a target."
    assert ws["E3"].value == "Reasoning"


def test_two_sheets_are_both_filled(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(src)
    ws2 = wb.create_sheet("Social")
    ws2.append(["ID", "Question", "Response"])
    ws2.append(["S1", "How many employees?", None])
    wb.save(src)
    layout, rows, _, out = fill(tmp_path, src)
    assert_only_changed(src, out, intended_cells(layout))
    wb = openpyxl.load_workbook(out)
    assert wb["Social"]["C2"].value == "Yes. The company has a target."
    assert wb["Social"]["D1"].value == "Reasoning"
    ev_sheets = {r[8] for r in wb["Evidence"].iter_rows(min_row=2, values_only=True)}
    assert ev_sheets == {"Questionnaire", "Social"}


def test_protected_sheet_stays_protected_and_review_cells_are_unlocked(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(src)
    wb.active.protection.sheet = True
    wb.active.protection.password = "secret"
    wb.save(src)
    layout, rows, _, out = fill(tmp_path, src)
    assert any("protected" in w for w in layout.all_warnings)
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    assert ws.protection.sheet
    assert ws[f"L{rows[0].row}"].protection.locked is False
    assert ws[f"F{rows[0].row}"].value == "Yes"


def test_cross_sheet_dropdowns_are_recreated(tmp_path):
    src = build_x14(tmp_path / "x14.xlsx")
    layout, rows, _, out = fill(tmp_path, src)
    ws = openpyxl.load_workbook(out)["Q"]
    lists = [d for d in ws.data_validations.dataValidation if d.formula1 == "Lists!$A$1:$A$3"]
    assert len(lists) == 1 and str(lists[0].sqref) == "B2:B3"
    assert ws["B2"].value == "Yes"


def test_csv_input_gives_an_xlsx(tmp_path):
    src = tmp_path / "q.csv"
    src.write_text("Question,Answer\nDoes the company report emissions?,\n", encoding="utf-8")
    before = sha256(src)
    _, _, _, out = fill(tmp_path, src, out_name="q_filled.csv")
    assert out.name == "q_filled.xlsx" and sha256(src) == before
    assert openpyxl.load_workbook(out)["Questionnaire"]["B2"].value == "Yes. The company has a target."


def test_failed_save_leaves_nothing_behind(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    target = tmp_path / "out" / "out.xlsx"
    target.mkdir(parents=True)  # a folder where the output should go: refused, one line naming it
    with pytest.raises(InputError, match=f"{target} is a folder"):
        write_results(Settings(), src, layout, [result_for(q) for q in rows], target, {})
    assert os.listdir(target.parent) == ["out.xlsx"] and target.is_dir()


def test_existing_validations_elsewhere_survive(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(src)
    dv = DataValidation(type="whole", operator="between", formula1="0", formula2="10")
    dv.add("A30")
    wb.active.add_data_validation(dv)
    wb.save(src)
    _, _, _, out = fill(tmp_path, src)
    dvs = openpyxl.load_workbook(out).active.data_validations.dataValidation
    assert any(d.type == "whole" and str(d.sqref) == "A30" for d in dvs)


def test_sources_are_deduplicated_in_citation_order(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")

    def results(q):
        res = result_for(q)
        res.answer.citations = [Citation("b.pdf", 7), Citation("a.pdf", 2), Citation("b.pdf", 7)]
        return res

    _, rows, _, out = fill(tmp_path, src, results_for=results)
    assert openpyxl.load_workbook(out).active[f"I{rows[0].row}"].value == "b.pdf p. 7; a.pdf p. 2"


def test_match_allowed():
    allowed = ["Yes", "No", "Partially", "Not disclosed"]
    assert match_allowed("Not disclosed - no mention", allowed) == "Not disclosed"
    assert match_allowed("NO.", allowed) == "No"
    assert match_allowed("Nothing", allowed) is None
    assert match_allowed("Yesterday", allowed) is None
    assert match_allowed("", allowed) is None


def test_only_results_given_are_written(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    out = write_results(Settings(), src, layout, [result_for(rows[1])], tmp_path / "o.xlsx", {})
    cells = {(s, c) for s, c in intended_cells(layout) if c[1:] in ("3", str(rows[1].row))}
    cells |= {("Questionnaire", f"{l}{q.row}") for l in ADDED for q in rows}  # styled empty cells
    assert_only_changed(src, out, cells)
    ws = openpyxl.load_workbook(out).active
    assert ws[f"F{rows[0].row}"].value is None and ws[f"F{rows[1].row}"].value == "Yes"


def test_answer_with_a_plain_answer_object(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    _, rows, _, out = fill(tmp_path, src, results_for=lambda q: RowResult(q, Answer(answer="42 kt")))
    ws = openpyxl.load_workbook(out).active
    assert ws[f"F{rows[2].row}"].value == "42 kt"
    assert ws[f"I{rows[2].row}"].value is None


def test_the_comparison_catches_changes(tmp_path):
    """The cell-by-cell check above must notice a changed value, style, width or validation."""
    from openpyxl.styles import Font

    src = build_questionnaire(tmp_path / "q.xlsx")
    edits = [
        lambda wb: setattr(wb["Instructions"]["A3"], "value", "changed"),
        lambda wb: setattr(wb.active["C5"], "font", Font(italic=True)),
        lambda wb: setattr(wb.active.column_dimensions["B"], "width", 99),
        lambda wb: wb.active.data_validations.dataValidation.clear(),
        lambda wb: setattr(wb.active, "freeze_panes", None),
        lambda wb: wb.active.unmerge_cells("A1:G1"),
    ]
    for i, edit in enumerate(edits):
        wb = openpyxl.load_workbook(src)
        edit(wb)
        changed = tmp_path / f"changed{i}.xlsx"
        wb.save(changed)
        with pytest.raises(AssertionError):
            assert_only_changed(src, changed, set())
    assert_only_changed(src, src, set())


def test_macro_workbook_keeps_its_macros(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    xlsm = tmp_path / "q.xlsm"
    xlsm.write_bytes(src.read_bytes())
    ct = ('<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>')
    rewrite_zip(xlsm, {
        "xl/vbaProject.bin": b"\x00fake VBA project\x00",
        "[Content_Types].xml": lambda x: x.replace(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
            "application/vnd.ms-excel.sheet.macroEnabled.main+xml").replace("<Default ", ct + "<Default ", 1),
    })
    layout, rows = read_questions(Settings(), xlsm)
    assert not any("macros" in w for w in layout.warnings)
    out = write_results(Settings(), xlsm, layout, [result_for(q) for q in rows], tmp_path / "o" / "q_filled.xlsx", {})
    assert out.suffix == ".xlsm"
    with zipfile.ZipFile(out) as zf:
        assert zf.read("xl/vbaProject.bin") == b"\x00fake VBA project\x00"
        assert "macroEnabled" in zf.read("[Content_Types].xml").decode()


def test_rich_text_images_and_formula_answers_survive(tmp_path):
    from openpyxl.cell.rich_text import CellRichText, TextBlock
    from openpyxl.cell.text import InlineFont
    from openpyxl.drawing.image import Image
    from PIL import Image as PILImage

    src = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(src)
    ws = wb.active
    ws["E5"] = CellRichText([TextBlock(InlineFont(b=True), "Bold guidance"), " and plain text"])
    PILImage.new("RGB", (40, 20), "red").save(tmp_path / "logo.png")
    ws.add_image(Image(tmp_path / "logo.png"), "H1")
    ws["F6"] = "=E6"  # the customer computes this answer
    wb.save(src)
    layout, rows = read_questions(Settings(), src)
    out = write_results(Settings(), src, layout, [result_for(q) for q in rows], tmp_path / "o.xlsx", {})
    wb2 = openpyxl.load_workbook(out, rich_text=True)
    rich = wb2.active["E5"].value
    assert isinstance(rich, CellRichText) and rich[0].font.b and str(rich) == "Bold guidance and plain text"
    assert len(wb2.active._images) == 1
    assert wb2.active["F6"].value == "=E6"
    assert wb2.active["K6"].value.endswith("answer cell holds a formula, left unchanged")
