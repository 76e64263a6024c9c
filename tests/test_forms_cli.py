"""`autofill inspect` on forms, run the way users run it (a fresh `python -m autofill` process): a
named-range form is listed with each datapoint's named range, cell, label, type, drop-down values and
VSME / framework requirements; a label / input layout is read when no question column is found; a
questionnaire is still inspected as one."""

from __future__ import annotations

import os

from tests.form_builders import build_layout_form, build_named_form
from tests.rows_helpers import ROOT, cli, last_json
from tests.workbook_builders import build_questionnaire


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "ANONYMIZED_TELEMETRY": "False"}


def test_inspect_json_lists_each_datapoint_of_a_named_form(tmp_path):
    form = build_named_form(tmp_path / "form.xlsx")
    proc = cli(tmp_path, _env(), "inspect", form, "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)["form"]
    assert data["source"] == "named" and data["language"] == "en"
    dps = {d["key"]: d for d in data["datapoints"]}
    assert dps["GrossScope1"] | {"frameworks": None} == {
        "key": "GrossScope1", "sheet": "Disclosures", "cell": "C4", "label": "Gross Scope 1 GHG emissions",
        "section": "B3", "type": "number", "unit": "tCO2e", "reference": "29(a)",
        "formula_cells": ["Disclosures!C6"], "frameworks": None}
    assert dps["CountryOfOperations"]["allowed"] == ["Andorra", "Belgium", "France"]
    assert dps["PolicyDescription"]["gate"] == {"key": "HasClimatePolicy", "opens": "yes", "via": "formula Disclosures!D9"}
    assert dps["ReportingPeriodStart"]["cells"] == ["C14", "D14", "E14"]
    assert [c["key"] for c in data["computed"]] == ["TotalScope1And2"]


def test_inspect_text_shows_labels_types_and_values(tmp_path):
    form = build_named_form(tmp_path / "form.xlsx")
    proc = cli(tmp_path, _env(), "inspect", form)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "read by named ranges; labels in en (the form offers en, fr)" in out
    assert "C10        CountryOfOperations  [enumeration]" in out
    assert "values: Andorra | Belgium | France" in out
    assert 'applies when HasClimatePolicy ("Does the undertaking have a climate policy?") is yes' in out
    assert "Country of primary operations" in out
    french = cli(tmp_path, _env(), "inspect", form, "--form-language", "fr")
    assert "labels in fr" in french.stdout and "Pays des opérations principales" in french.stdout, french.stderr


def test_inspect_reads_a_layout_form_when_no_question_column_is_found(tmp_path):
    form = build_layout_form(tmp_path / "bank.xlsx")
    proc = cli(tmp_path, _env(), "inspect", form, "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)["form"]
    assert data["source"] == "layout"
    assert [(d["key"], d["type"]) for d in data["datapoints"]][:2] == [
        ("Borrower ESG!B4", "text"), ("Borrower ESG!B5", "number")]


def test_inspect_of_a_questionnaire_is_unchanged(tmp_path):
    q = build_questionnaire(tmp_path / "q.xlsx")
    proc = cli(tmp_path, _env(), "inspect", q, "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)
    assert "form" not in data and data["sheets"]


def test_a_workbook_that_is_neither_keeps_the_one_line_error(tmp_path):
    import openpyxl

    path = tmp_path / "notes.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "Meeting notes"
    wb.active["A2"] = "Nothing to fill here"
    wb.save(path)
    proc = cli(tmp_path, _env(), "inspect", path)
    assert proc.returncode == 2
    assert "no question column found in notes.xlsx" in proc.stderr
