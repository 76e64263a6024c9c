"""The portfolio workbook's `By datapoint` sheet (autofill/frameworks/portfolio.py): two customers'
questionnaires worded differently line up under one datapoint column, never across scopes."""

from __future__ import annotations

from types import SimpleNamespace

import openpyxl

from autofill.portfolio.workbook import write_portfolio_workbook
from autofill.settings import Settings
from tests.workbook_builders import build_questionnaire


def outcome(company, questionnaire):
    return SimpleNamespace(company=company, questionnaire=str(questionnaire), output="", status="done", error="",
                           year="2024", documents=1, periods="FY2024", rows=2, answered=0, drafted=0, failed_rows=0,
                           pending_rows=2, cost_usd=0.0, seconds=1.0, last_cost_usd=0.0, last_seconds=1.0,
                           report="")


def test_companies_line_up_by_datapoint_across_wordings(tmp_path):
    a = build_questionnaire(tmp_path / "bank.xlsx", questions=[
        ("Emissions", "Please state the borrower's gross Scope 1 GHG emissions (tCO2e).", "Number", False),
        ("Emissions", "Scope 2 emissions, market-based", "Number", False)])
    b = build_questionnaire(tmp_path / "buyer.xlsx", questions=[
        ("Climate", "Direct emissions from sources your company owns or controls, last year?", "Number", False),
        ("Climate", "How many employees do you have?", "Number", False)])
    path, _counts = write_portfolio_workbook(Settings(workspace=tmp_path), tmp_path / "portfolio.xlsx",
                                    [outcome("Alpha", a), outcome("Beta", b)])
    book = openpyxl.load_workbook(path)
    assert book["Portfolio"].max_column == 1 + 4  # question texts do not line up
    ws = book["By datapoint"]
    heads = [ws.cell(row=1, column=c).value.splitlines()[0] for c in range(2, ws.max_column + 1)]
    assert heads == ["Gross Scope 1 GHG emissions", "Gross Scope 2 GHG emissions, market-based"]
    assert "GRI 305-1" in ws.cell(row=1, column=2).value
    assert [ws.cell(row=r, column=1).value for r in (2, 3)] == ["Alpha", "Beta"]
    assert ws.cell(row=2, column=2).value and ws.cell(row=3, column=2).value  # both companies under Scope 1
    assert ws.cell(row=3, column=3).value is None  # Beta was never asked for market-based Scope 2
