"""Merged cells (workbook/layout._merged_answers, workbook/writeback), through the real CLI: an answer
whose cell is the top-left of its merged range, or sits in a range whose top-left belongs to no other
row, is written there; an Answer cell inside the question's merged cell or inside another row's range,
and an answer that is not one of the drop-down values, is named in Status and never counted or shown
as Answered (workbook, summary, --json, review report)."""

from __future__ import annotations

import re

import openpyxl
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.states import Outcome, parse_status
from tests.rows_helpers import cli, company_reports, env_for, last_json, responder

COMPANY = "Merged Cells Co"
RENEWABLE, EMPLOYEES = 40, 900
Q = {2: "What share of electricity consumption was renewable in FY2024?",
     3: "How many employees did the company have at the end of FY2024?",  # question merged B3:C3
     5: "What share of the electricity used in FY2024 was renewable?",  # answer in C4:C5 (row 4 blank)
     6: "How many employees worked for the company at the end of FY2024?",  # C6:C7 top-left: its own
     7: "What was the renewable share of electricity use in FY2024?",  # inside row 6's range
     8: "Is renewable electricity more than half of consumption in FY2024?"}  # drop-down Yes/No


def build(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["No.", "Question", "Answer"])
    for row, text in Q.items():
        ws.cell(row=row, column=1, value=f"{row - 1}")
        ws.cell(row=row, column=2, value=text)
    ws.merge_cells("B3:C3")
    ws.merge_cells("C4:C5")
    ws.merge_cells("C6:C7")
    dv = DataValidation(type="list", formula1='"Yes,No"', allow_blank=True)
    dv.add("C8")
    ws.add_data_validation(dv)
    wb.save(path)
    return path


def test_merged_answer_cells_are_written_or_named(tmp_path, llm_server):
    build(tmp_path / "merged.xlsx")
    company_reports(tmp_path / "reports", COMPANY, RENEWABLE, EMPLOYEES)
    llm_server.responder = responder()
    env = env_for(llm_server)
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0
    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "merged.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)
    assert (data["answered"], data["not_written"], data["failed"]) == (3, 3, 0), data

    wb = openpyxl.load_workbook(data["output"])
    ws = wb["Questionnaire"]
    header = {c.value: c.column for c in ws[1] if c.value}
    status = {r: ws.cell(row=r, column=header["Status"]).value for r in Q}
    tier = {r: ws.cell(row=r, column=header["Tier"]).value for r in Q}
    reasoning = {r: ws.cell(row=r, column=header["Reasoning"]).value or "" for r in Q}
    # Written: its own cell, the top-left of a range over a blank row, the top-left of its own range.
    assert ws["C2"].value == ws["C4"].value == f"{RENEWABLE}% in FY2024." and ws["C6"].value == f"{EMPLOYEES} in FY2024."
    assert all(parse_status(status[r]) is Outcome.ANSWERED for r in (2, 5, 6))
    # Named: which cell, which range and why; the model's answer kept in Reasoning; never Answered.
    assert status[3].startswith("Answer not written: the Answer cell C3 is inside the merged cell B3:C3, which "
                                "holds the question")
    assert status[7].startswith("Answer not written: the Answer cell C7 is inside the merged cell C6:C7, whose "
                                "text belongs to row 6")
    assert status[8].startswith("Answer not written: '40% in FY2024.' is not one of the drop-down values (Yes, No)")
    for r in (3, 7, 8):
        assert tier[r] == "Needs work" and reasoning[r].startswith("Model answer (not written): ")
    assert ws["B3"].value == Q[3] and ws["C8"].value is None
    # Run info counts the same way.
    info = {r[0].value: r[1].value for r in wb["Run info"].iter_rows(min_row=2)}
    assert (info["rows answered"], info["rows answered, answer not written"]) == (3, 3)

    # Review report: no row without an answer gets a green badge; the merged answer of row 5 is read.
    html = open(data["report"], encoding="utf-8").read()
    classes = {int(r): c for c, r in re.findall(r'<article class="question (\w+)" id="q-questionnaire-(\d+)"', html)}
    assert classes == {2: "ok", 3: "bad", 5: "ok", 6: "ok", 7: "bad", 8: "bad"}, classes

    # The summary (not --json) says the same.
    again = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "merged.xlsx", "--fresh")
    assert again.returncode == 0, again.stderr
    assert "3 answered" in again.stdout and "3 answered but not written (see Status)" in again.stdout


def test_a_question_merged_over_the_answer_column_is_reported_not_dropped(tmp_path, llm_server):
    """Row 6's question cell is merged B6:E6, over the Answer column C: it is a question row (not a
    section heading dropped without a word), named with its cell and why by `inspect` and `run`."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["No.", "Question", "Answer", "Notes", "Owner"])
    for row in range(2, 7):
        ws.cell(row=row, column=1, value=f"{row - 1}")
        ws.cell(row=row, column=2, value=Q[2] if row % 2 else Q[3])
    ws.merge_cells("B6:E6")
    wb.save(tmp_path / "wide.xlsx")
    company_reports(tmp_path / "reports", COMPANY, RENEWABLE, EMPLOYEES)
    llm_server.responder = responder()
    env = env_for(llm_server)
    why = "the Answer cell C6 is inside the merged cell B6:E6, which holds the question"
    shown = cli(tmp_path, env, "inspect", "wide.xlsx")
    assert shown.returncode == 0, shown.stderr
    assert "5 question rows" in shown.stdout and "question rows (5): 2-6" in shown.stdout
    assert f"row 6: its answer cannot be written: {why}" in shown.stdout
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0
    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "wide.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)
    assert (data["rows"], data["answered"], data["not_written"]) == (5, 4, 1), data
    assert f"row 6: its answer cannot be written: {why}" in proc.stderr
    out = openpyxl.load_workbook(data["output"])["Questionnaire"]
    header = {c.value: c.column for c in out[1] if c.value}
    assert out.cell(row=6, column=header["Status"]).value.startswith(f"Answer not written: {why}")
    assert out["B6"].value == Q[3]  # the question cell is left as it was
