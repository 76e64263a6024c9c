"""workbook/package.py: cells written at the package level, typed as Excel types them, the rest of the
package kept byte for byte, and (workbook/recalc.py) every formula's cached value current."""

from __future__ import annotations

import datetime
import hashlib
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.errors import InputError
from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from autofill.workbook.package import CellWrite, is_date_format, patch_cells
from autofill.workbook.writeback import write_results
from tests.workbook_builders import build_questionnaire, result_for, rewrite_zip

X14_DV = ('<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" '
          'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
          '<x14:dataValidations xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main" count="1">'
          '<x14:dataValidation type="list" allowBlank="1" showInputMessage="1" showErrorMessage="1">'
          '<x14:formula1><xm:f>Lists!$A$1:$A$3</xm:f></x14:formula1><xm:sqref>B9</xm:sqref>'
          '</x14:dataValidation></x14:dataValidations></ext></extLst>')


def build_form(path: Path, cached: bool = False) -> Path:
    """A small form: inputs, a total, a reporting period from year/month/day cells, a percentage, a
    cross-sheet reference, a defined name, a list drop-down and an x14 cross-sheet drop-down."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Form"
    ws["A1"] = "Reporting year"
    ws["B1"] = None
    ws["A2"] = "Month"
    ws["B2"] = 12
    ws["A3"] = "Day"
    ws["B3"] = 31
    ws["A4"] = "Period end"
    ws["B4"] = "=IF(B1=\"\",\"\",DATE(B1,B2,B3))"
    ws["B4"].number_format = "yyyy-mm-dd"
    ws["A5"] = "Scope 1 (t)"
    ws["A6"] = "Scope 2 (t)"
    ws["A7"] = "Total (t)"
    ws["B7"] = "=SUM(B5:B6)"
    ws["A8"] = "Scope 1 share"
    ws["B8"] = "=IF(B7=0,0,B5/B7)"
    ws["B8"].number_format = "0.0%"
    ws["A9"] = "Currency"
    ws["A10"] = "Listed"
    ws["A11"] = "Started"
    ws["B11"].number_format = "dd/mm/yyyy"
    ws["A13"] = "Total (kg)"
    ws["B13"] = "=total_emissions*1000"
    ws["A12"] = "Name"
    ws["B12"] = "old name"
    ws["B12"].font = openpyxl.styles.Font(bold=True)
    lists = wb.create_sheet("Lists")
    for i, v in enumerate(["EUR", "USD", "GBP"], start=1):
        lists.cell(row=i, column=1, value=v)
    lists["C1"] = "=Form!B7*2"
    lists.sheet_state = "hidden"
    wb.defined_names["total_emissions"] = DefinedName("total_emissions", attr_text="Form!$B$7")
    dv = DataValidation(type="list", formula1='"Yes,No"', allow_blank=True)
    dv.add("B10")
    ws.add_data_validation(dv)
    wb.save(path)
    rewrite_zip(path, {"xl/worksheets/sheet1.xml": lambda x: x.replace("</worksheet>", X14_DV + "</worksheet>")})
    return path


def parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def cell(path: Path, ref: str, part: str = "xl/worksheets/sheet1.xml") -> str:
    xml = parts(path)[part].decode()
    m = re.search(rf'<c r="{ref}"[^>]*?(?:/>|>.*?</c>)', xml, re.S)
    return m.group(0) if m else ""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_typed_cells_are_written_with_excel_types_and_the_input_is_untouched(tmp_path):
    src = build_form(tmp_path / "form.xlsx")
    before = digest(src)
    out = tmp_path / "out.xlsx"
    patch_cells(src, out, [CellWrite("Form", "B1", 2024), CellWrite("Form", "B5", 120.5),
                           CellWrite("Form", "B6", 79.5), CellWrite("Form", "B9", "EUR"),
                           CellWrite("Form", "B10", True), CellWrite("Form", "B11", datetime.date(2024, 3, 1)),
                           CellWrite("Form", "B12", "  Company XYZ & <Sons>\n"), CellWrite("Form", "C20", 7)])
    assert digest(src) == before
    assert cell(out, "B1") == '<c r="B1"><v>2024</v></c>'
    assert cell(out, "B5") == '<c r="B5"><v>120.5</v></c>'
    assert cell(out, "B10") == '<c r="B10" t="b"><v>1</v></c>'
    assert re.fullmatch(r'<c r="B9" t="inlineStr"><is><t>EUR</t></is></c>', cell(out, "B9"))
    assert '<t xml:space="preserve">  Company XYZ &amp; &lt;Sons&gt;\n</t>' in cell(out, "B12")
    # the date: serial number 45352 (2024-03-01) in the cell's own dd/mm/yyyy style
    src_style = re.search(r's="(\d+)"', cell(src, "B11")).group(1)
    assert cell(out, "B11") == f'<c r="B11" s="{src_style}"><v>45352</v></c>'
    # the bold style of B12 stays
    assert re.search(r's="(\d+)"', cell(src, "B12")).group(1) == re.search(r's="(\d+)"', cell(out, "B12")).group(1)
    wb = openpyxl.load_workbook(out)
    ws = wb["Form"]
    assert ws["B1"].value == 2024 and ws["B5"].value == 120.5 and ws["B10"].value is True
    assert ws["B11"].value == datetime.datetime(2024, 3, 1) and ws["B11"].number_format == "dd/mm/yyyy"
    assert ws["B12"].value == "  Company XYZ & <Sons>\n" and ws["B12"].font.b
    assert ws["C20"].value == 7
    # a reader that trusts the dimension (openpyxl read-only, as pandas reads) sees the new row
    ro = openpyxl.load_workbook(out, read_only=True)
    assert ("C20", 7) in [(c.coordinate, c.value) for r in ro["Form"].iter_rows() for c in r if c.value == 7]


def _without(xml: str, refs: tuple[str, ...]) -> str:
    """Sheet XML without the cells in `refs` and with every formula cell reduced to its formula."""
    for ref in refs:
        xml = re.sub(rf'<c r="{ref}"[^>]*?(?:/>|>.*?</c>)', "", xml, flags=re.S)
    return re.sub(r'<c r="([A-Z]+\d+)"[^>]*>(<f>[^<]*</f>).*?</c>', r"\1\2", xml, flags=re.S)


def test_only_the_written_cells_and_cached_values_change_in_the_package(tmp_path):
    src = build_form(tmp_path / "form.xlsx")
    out = tmp_path / "out.xlsx"
    patch_cells(src, out, [CellWrite("Form", "B5", 1), CellWrite("Form", "B12", None)])
    old, new = parts(src), parts(out)
    assert list(old) == list(new)
    differing = [name for name in old if old[name] != new[name]]
    assert differing == ["xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"]  # Lists!C1 got its value
    for name in differing:
        assert _without(old[name].decode(), ("B5", "B12")) == _without(new[name].decode(), ("B5", "B12"))
    assert "x14:dataValidation" in new["xl/worksheets/sheet1.xml"].decode()  # the cross-sheet drop-down
    assert cell(out, "B12").startswith('<c r="B12" s=') and cell(out, "B12").endswith("/>")
    wb = openpyxl.load_workbook(out)
    assert wb.defined_names["total_emissions"].attr_text == "Form!$B$7"
    assert wb["Lists"].sheet_state == "hidden" and wb["Form"]["B7"].value == "=SUM(B5:B6)"


def test_a_date_in_a_cell_without_a_date_style_gets_a_copy_of_its_style_with_a_date_format(tmp_path):
    src = build_form(tmp_path / "form.xlsx")
    out = tmp_path / "out.xlsx"
    patch_cells(src, out, [CellWrite("Form", "B12", datetime.date(2023, 12, 31)),
                           CellWrite("Form", "D3", datetime.date(1900, 3, 1))])
    ws = openpyxl.load_workbook(out)["Form"]
    assert ws["B12"].value == datetime.datetime(2023, 12, 31) and ws["B12"].font.b  # bold kept, date shown
    assert ws["D3"].value == datetime.datetime(1900, 3, 1)
    assert "<v>61</v>" in cell(out, "D3")  # Excel's serial for 1900-03-01 (after its 1900-02-29)


def test_refused_writes_name_the_cell_and_write_nothing(tmp_path):
    src = build_form(tmp_path / "form.xlsx")
    wb = openpyxl.load_workbook(src)
    wb["Form"].merge_cells("A3:B3")
    wb["Form"]["D1"] = openpyxl.worksheet.formula.ArrayFormula("D1:D3", "=B5:B7*2")
    merged = tmp_path / "merged.xlsx"
    wb.save(merged)
    out = tmp_path / "out.xlsx"
    with pytest.raises(InputError, match=r"Form!B7 holds a formula"):
        patch_cells(src, out, [CellWrite("Form", "B5", 1), CellWrite("Form", "B7", 5)])
    with pytest.raises(InputError, match=r"Form!B3 is covered by the merged cells A3:B3 \(write A3\)"):
        patch_cells(merged, out, [CellWrite("Form", "B3", 1)])
    with pytest.raises(InputError, match=r"Form!D3 is part of the array formula of D1 \(D1:D3\)"):
        patch_cells(merged, out, [CellWrite("Form", "D3", 1)])
    with pytest.raises(InputError, match="no sheet named 'Nope'"):
        patch_cells(src, out, [CellWrite("Nope", "A1", 1)])
    with pytest.raises(InputError, match="not a cell reference"):
        patch_cells(src, out, [CellWrite("Form", "B", 1)])
    with pytest.raises(InputError, match="not a number"):
        patch_cells(src, out, [CellWrite("Form", "B5", float("nan"))])
    with pytest.raises(InputError, match="input workbook itself"):
        patch_cells(src, src, [CellWrite("Form", "B5", 1)])
    assert not out.exists()


def test_text_that_xml_cannot_hold_is_stored_the_ooxml_way(tmp_path):
    src = build_form(tmp_path / "form.xlsx")
    out = tmp_path / "out.xlsx"
    patch_cells(src, out, [CellWrite("Form", "B12", "bell\x07 and _x0041_ stay")])
    assert openpyxl.load_workbook(out)["Form"]["B12"].value in ("bell\x07 and _x0041_ stay",
                                                               "bell_x0007_ and _x005F_x0041_ stay")
    assert "bell_x0007_ and _x005F_x0041_ stay" in cell(out, "B12")


def test_date_formats_are_told_apart():
    assert is_date_format("dd/mm/yyyy") and is_date_format("[$-409]mmm d, yyyy;@")
    assert not is_date_format("0.0%") and not is_date_format('#,##0 "days"') and not is_date_format("General")


def values(path: Path, sheet: str = "Form") -> dict:
    """What a reader of cached values (EFRAG's converter, pandas) sees: openpyxl with data_only."""
    ws = openpyxl.load_workbook(path, data_only=True)[sheet]
    return {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value is not None}


def test_every_formula_has_its_current_value_as_excel_computes_it(tmp_path):
    src = build_form(tmp_path / "form.xlsx")  # made by openpyxl: no cached value at all
    out = tmp_path / "out.xlsx"
    patch_cells(src, out, [CellWrite("Form", "B1", 2024), CellWrite("Form", "B5", 120.5),
                           CellWrite("Form", "B6", 79.5)])
    got = values(out)
    assert got["B4"] == datetime.datetime(2024, 12, 31)  # DATE(year, month, day): the reporting period
    assert got["B7"] == 200  # the total
    assert got["B8"] == pytest.approx(0.6025)  # a percentage
    assert got["B13"] == 200000  # through a defined name
    assert values(out, "Lists")["C1"] == 400  # a cross-sheet reference, on a hidden sheet
    # written again: the values follow the inputs (and the period is empty again without a year)
    again = tmp_path / "again.xlsx"
    patch_cells(out, again, [CellWrite("Form", "B1", None), CellWrite("Form", "B6", 0)])
    got = values(again)
    assert "B4" not in got and got["B7"] == 120.5 and got["B8"] == 1 and values(again, "Lists")["C1"] == 241


def _with_cached(xml: str, ref: str, formula: str, kind: str, cached: str) -> str:
    new = f'<c r="{ref}" t="{kind}"><f>{formula}</f><v>{cached}</v></c>'
    return re.sub(rf'<c r="{ref}"[^>]*?(?:/>|>.*?</c>)', lambda m: new, xml, count=1, flags=re.S)


def test_excel_values_stay_where_nothing_written_changes_them(tmp_path):
    """A formula the engine computes otherwise than Excel (CELL("filename")) keeps Excel's cached value
    while no write reaches it; a stale cached value of a formula the writes reach is replaced."""
    src = build_form(tmp_path / "form.xlsx")
    wb = openpyxl.load_workbook(src)
    wb["Form"]["D1"] = '=CELL("filename",A1)'
    wb.save(src)
    where = "C:\\Reports\\[form.xlsx]Form"
    rewrite_zip(src, {"xl/worksheets/sheet1.xml": lambda x: _with_cached(
        _with_cached(x, "D1", 'CELL("filename",A1)', "str", where), "B7", "SUM(B5:B6)", "n", "999")
        .replace('<c r="D1" t="str">', '<c r="D1" t="str" s="1">')})
    assert values(src)["D1"] == where and values(src)["B7"] == 999
    out = tmp_path / "out.xlsx"
    patch_cells(src, out, [CellWrite("Form", "B5", 3), CellWrite("Form", "B6", 4)])
    got = values(out)
    assert got["D1"] == where
    assert got["B7"] == 7
    assert cell(out, "D1") == cell(src, "D1")  # the received cell, byte for byte


def test_a_workbook_the_engine_refuses_keeps_the_values_it_had_and_says_so(tmp_path, caplog):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Form"
    ws["A1"] = 5
    ws["D1"] = "=SEQUENCE(3)"  # spills into merged cells: the engine refuses the workbook
    ws.merge_cells("D2:E2")
    ws["F1"] = "=A1*2"
    src = tmp_path / "spill.xlsx"
    wb.save(src)
    rewrite_zip(src, {"xl/worksheets/sheet1.xml": lambda x: _with_cached(x, "F1", "A1*2", "n", "10")})
    out = tmp_path / "out.xlsx"
    with caplog.at_level("WARNING"):
        patch_cells(src, out, [CellWrite("Form", "A2", "note")])
    assert "could not be computed" in caplog.text and "Excel recalculates them on opening" in caplog.text
    assert values(out)["F1"] == 10 and values(out)["A2"] == "note"
    assert 'fullCalcOnLoad="1"' in parts(out)["xl/workbook.xml"].decode()


def test_a_filled_questionnaire_keeps_current_formula_values(tmp_path):
    """writeback (openpyxl adds the answer, Evidence and Run info sheets and drops every cached value):
    the formulas of the customer's workbook are computed again, those over the answers included."""
    src = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(src)
    summary = wb.create_sheet("Summary")
    summary["A1"] = "=COUNTIF(Questionnaire!F4:F20,\"Yes*\")"
    summary["A2"] = "=DATE(2024,12,31)"
    summary["A2"].number_format = "yyyy-mm-dd"
    summary["A3"] = "=ROWS(Questionnaire!A1:A10)*10%"
    wb.save(src)
    layout, rows = read_questions(Settings(), src)
    out = write_results(Settings(), src, layout, [result_for(q) for q in rows], tmp_path / "out" / "out.xlsx", {})
    got = values(out, "Summary")
    answers = openpyxl.load_workbook(out)["Questionnaire"]
    answered = sum(1 for r in range(4, 21) if str(answers[f"F{r}"].value or "").startswith("Yes"))
    assert answered > 0 and got["A1"] == answered
    assert got["A2"] == datetime.datetime(2024, 12, 31) and got["A3"] == 1


def test_a_questionnaire_without_formulas_is_not_given_to_the_engine(tmp_path, monkeypatch):
    """The engine loads the whole workbook, Evidence rows included: at 5,000 rows most of a run's peak
    memory (benchmarks/run_rows.py). Without a formula cell (drop-down lists and conditional formats are
    no formula cells) it has nothing to compute and is not run; the workbook is written as before."""
    import formualizer

    calls = []
    real = formualizer.recalculate_xlsx_bytes
    monkeypatch.setattr(formualizer, "recalculate_xlsx_bytes", lambda data: calls.append(len(data)) or real(data))
    src = build_questionnaire(tmp_path / "q.xlsx")  # drop-downs, a conditional format, a defined name
    layout, rows = read_questions(Settings(), src)
    out = write_results(Settings(), src, layout, [result_for(q) for q in rows], tmp_path / "out" / "out.xlsx", {})
    assert calls == []
    answers = openpyxl.load_workbook(out)["Questionnaire"]
    assert any(str(answers[f"F{r}"].value or "").startswith("Yes") for r in range(4, 21))
    assert 'fullCalcOnLoad="1"' in parts(out)["xl/workbook.xml"].decode()  # Excel still recalculates on opening
    wb = openpyxl.load_workbook(src)
    wb["Questionnaire"]["K1"] = "=1+1"  # one formula: computed again
    wb.save(src)
    write_results(Settings(), src, layout, [result_for(q) for q in rows], tmp_path / "out" / "out2.xlsx", {})
    assert calls and values(tmp_path / "out" / "out2.xlsx", "Questionnaire")["K1"] == 2


def test_autofill_run_writes_a_workbook_whose_formulas_show_the_answers(workspace, llm_server):
    """The real CLI in a fresh process: `autofill run` fills a questionnaire whose summary sheet counts
    the answers and dates the period; a reader of cached values sees them (openpyxl alone: nothing)."""
    from tests.rows_helpers import cli, company_reports, env_for, last_json, questionnaire, responder

    llm_server.responder = responder()
    env = env_for(llm_server)
    company_reports(workspace / "reports", "Acme", 31, 1200)
    wb = openpyxl.load_workbook(questionnaire(workspace / "q.xlsx"))
    summary = wb.create_sheet("Summary")
    summary["A1"] = '=COUNTIF(Questionnaire!F4:F12,"*FY2024*")'
    summary["A2"] = "=DATE(2024,12,31)"
    summary["A2"].number_format = "yyyy-mm-dd"
    wb.save(workspace / "q.xlsx")
    assert cli(workspace, env, "ingest", "--company", "Acme", "reports", "--json").returncode == 0
    proc = cli(workspace, env, "run", "--company", "Acme", "--questionnaire", "q.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr
    out = Path(last_json(proc)["output"])
    assert "could not be computed" not in proc.stderr
    answers = [c.value for c in openpyxl.load_workbook(out)["Questionnaire"]["F"] if "FY2024" in str(c.value or "")]
    assert answers == ["31% in FY2024.", "1,200 in FY2024."]
    assert values(out, "Summary") == {"A1": 2, "A2": datetime.datetime(2024, 12, 31)}


def test_a_reviewer_decision_written_back_updates_the_formulas_over_it(tmp_path):
    """review_app/apply.py saves with openpyxl too: the count over the answers follows the edit."""
    from autofill.review_app.apply import apply_decisions
    from autofill.review.sidecar import Decision

    src = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(src)
    wb.create_sheet("Summary")["A1"] = "=COUNTIF(Questionnaire!F4:F20,\"Yes*\")"
    wb.save(src)
    layout, rows = read_questions(Settings(), src)
    out = write_results(Settings(), src, layout, [result_for(q) for q in rows], tmp_path / "out" / "out.xlsx", {})
    before = values(out, "Summary")["A1"]
    q = rows[0]
    answer = openpyxl.load_workbook(out)["Questionnaire"][f"F{q.row}"].value
    assert str(answer).startswith("Yes") and before >= 1
    decision = Decision(1, q.key, q.question, "Ana", "2026-01-01T00:00:00", "Edit",
                        {"answer": answer}, {"answer": "No, not this year."})
    assert apply_decisions(Settings(), out, [decision]) == [1]
    assert openpyxl.load_workbook(out)["Questionnaire"][f"F{q.row}"].value == "No, not this year."
    assert values(out, "Summary")["A1"] == before - 1


def test_a_macro_workbook_gets_its_values_and_keeps_its_macros(tmp_path, caplog):
    """The engine takes .xlsx only: a .xlsm is shown to it as one, and only its sheets' values come back."""
    from tests.test_workbook_inputs import _xlsm

    xlsm = _xlsm(tmp_path)
    wb = openpyxl.load_workbook(xlsm, keep_vba=True)
    wb.active["B1"] = 4
    wb.active["B2"] = "=B1*25%"
    wb.save(xlsm)
    before = parts(xlsm)
    out = tmp_path / "out.xlsm"
    with caplog.at_level("WARNING"):
        patch_cells(xlsm, out, [CellWrite(wb.active.title, "B1", 10)])
    assert "could not be computed" not in caplog.text
    assert values(out, wb.active.title)["B2"] == 2.5
    after = parts(out)
    assert after["xl/vbaProject.bin"] == before["xl/vbaProject.bin"]
    assert after["[Content_Types].xml"] == before["[Content_Types].xml"]
