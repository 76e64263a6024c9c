"""Sources cells link to the cited page, relative to the workbook (autofill/workbook/hyperlinks.py),
through the real writeback and openpyxl."""

from __future__ import annotations

import json

import openpyxl

from autofill.records import Citation
from autofill.settings import Settings
from autofill.workbook.hyperlinks import link_sources, pdf_links
from autofill.workbook.layout import read_questions
from autofill.workbook.writeback import write_results
from tests.workbook_builders import build_questionnaire, result_for


def test_sources_cells_link_to_the_first_cited_page_relative_to_the_workbook(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    reports = tmp_path / "reports"
    reports.mkdir()
    layout, rows = read_questions(Settings(), src)

    def results(q):
        res = result_for(q)
        res.answer.citations = [Citation("Climate report.pdf", 26, "24"), Citation("other.pdf", 3)]
        return res

    docs = {"Climate report.pdf": str(reports / "Climate report.pdf")}
    out = write_results(Settings(), src, layout, [results(q) for q in rows], tmp_path / "out" / "filled.xlsx",
                        {"documents": json.dumps(docs)})
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    cell = ws[f"I{rows[0].row}"]
    assert cell.value == "Climate report.pdf p. 26 (printed 24); other.pdf p. 3"
    assert cell.hyperlink is not None and cell.hyperlink.target == "../reports/Climate%20report.pdf#page=26"
    assert ws[f"A{rows[0].row}"].hyperlink is None  # nothing else is linked


def test_no_link_without_a_known_pdf_and_no_sources_column_untouched(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Question", "Sources"])
    ws.append(["Q1", "unknown.pdf p. 4"])
    ws.append(["Q2", "known.pdf p. 9; unknown.pdf p. 1"])
    ws.append(["Q3", None])
    other = wb.create_sheet("Notes")
    other.append(["known.pdf p. 9"])
    links = pdf_links({"known.pdf": str(tmp_path / "pdfs" / "known.pdf")}, tmp_path)
    assert link_sources(wb, links) == 1
    assert ws["B2"].hyperlink is None and ws["B3"].hyperlink.target == "pdfs/known.pdf#page=9"
    assert other["A1"].hyperlink is None
    assert pdf_links("not json", tmp_path)("known.pdf", 1) == ""
