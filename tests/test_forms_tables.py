"""forms.tables: an open table of a form (tests/form_builders.build_table_form: pollutants, 3 blank rows, a
drop-down and two tonnes columns, opened by a yes / no) through `autofill run` in fresh processes: offline
the table's evidence is listed for the reviewer and nothing is written; with the loopback model the rows
the cited passages support are written, one typed value per cell, a row whose figure is on no cited page
waits, never more rows than the table has; a re-run keeps what the first one filled; `inspect --json`
lists the table with its columns; the review page resolves a table cell's row."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl

from tests.answer_helpers import passages_in
from tests.form_builders import TABLE_SHEET, build_table_form, evidence_rows
from tests.llm_server import by_marker, last_user_text
from tests.pdf_factory import make_pdf
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"


def _report(folder):
    folder.mkdir()
    filler = [("p", f"Site {i} operations: maintenance, logistics and training continued through the year.")
              for i in range(1, 4)]
    return make_pdf(folder / "Acme report 2024.pdf", [
        [("h1", "Acme Fabrication sustainability report 2024"), *filler],
        [("h1", "Pollution"), ("p", "We report our pollutant emissions under the E-PRTR regulation every year."),
         ("table", ["Pollutant", "Air emissions 2024 (t)", "Water emissions 2024 (t)"],
          [["Ammonia (NH3)", "12.5", "0.4"], ["Nitrogen oxides (NOx)", "48.0", "-"], ["Sulphur oxides (SOx)", "7.2", "-"],
           ["Benzene", "0.8", "-"]])],
        [("h1", "People"), *filler]])


ROWS = [  # the model's rows: the third states a figure the report does not have (9.9 t), the fourth is one too many
    ({"TypeOfPollutantAxis": {"value": "Ammonia (NH3)"}, "AmountOfEmissionToAir": {"value": "12.5", "unit": "t"},
      "AmountOfEmissionToWater": {"value": "0.4", "unit": "t"}}, "Ammonia (NH3)"),
    ({"TypeOfPollutantAxis": {"value": "Nitrogen oxides (NOx/NO2)"},
      "AmountOfEmissionToAir": {"value": "48", "unit": "tonnes"}}, "Nitrogen oxides"),
    ({"TypeOfPollutantAxis": {"value": "Sulphur oxides (SOx/SO2)"},
      "AmountOfEmissionToAir": {"value": "9.9", "unit": "t"}}, "Sulphur oxides"),
    ({"TypeOfPollutantAxis": {"value": "Benzene"}, "AmountOfEmissionToAir": {"value": "0.8", "unit": "t"}}, "Benzene"),
]


def _cites(prompt: str, phrase: str) -> list[int]:
    return [n for n, _, _, t in passages_in(prompt) if phrase in " ".join(t.split())][:1]


def _table(req: dict) -> str:
    prompt = last_user_text(req)
    assert "The table has at most 3 rows" in prompt and "AmountOfEmissionToAir: Emission to air (t)" in prompt
    rows = [{"values": values, "citations": _cites(prompt, phrase), "quote": phrase, "year": "2024"}
            for values, phrase in ROWS]
    return json.dumps({"reasoning": "The pollution table.", "answer": "4 rows", "rows": rows,
                       "citations": sorted({c for r in rows for c in r["citations"]}), "confidence": "high"})


def _field(req: dict) -> str:
    prompt = last_user_text(req)
    field = re.search(r"^Field: (.*)$", prompt, re.MULTILINE).group(1)
    if "pollutant emissions" in field:
        return json.dumps({"reasoning": "Stated.", "answer": "Yes", "quote": "We report our pollutant emissions",
                           "citations": _cites(prompt, "We report our pollutant emissions"), "confidence": "high"})
    return json.dumps({"reasoning": "none", "answer": "Not disclosed", "citations": []})


def test_an_open_table_is_listed_offline_and_filled_row_by_row_with_the_loopback_model(tmp_path, llm_server):
    llm_server.responder = by_marker({"Fill one table": _table, "Fill one field": _field}, default="ok")
    env = env_for(llm_server)
    _report(tmp_path / "reports")
    form = build_table_form(tmp_path / "form.xlsx")
    before = form.read_bytes()
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0

    inspect = last_json(cli(tmp_path, env, "inspect", "form.xlsx", "--json"))["form"]
    table = inspect["tables"][0]
    assert (table["name"], table["rows"], table["answered"]) == ("AmountOfEmissionsTable", 3, True)
    assert [(c["key"], c["type"], c.get("unit")) for c in table["columns"]] == [
        ("TypeOfPollutantAxis", "enumeration", None), ("AmountOfEmissionToAir", "number", "t"),
        ("AmountOfEmissionToWater", "number", "t")]

    offline = cli(tmp_path, env_for(llm_server, offline=True), "run", "--company", COMPANY, "--questionnaire",
                  "form.xlsx", "--year", "2024", "--json", "--out", "offline")
    assert offline.returncode == 0, offline.stderr
    wb, rows = evidence_rows(last_json(offline)["output"])
    assert all(wb[TABLE_SHEET][f"{c}{r}"].value is None for c in "CDE" for r in (11, 12, 13))
    listed = [r for r in rows if r["Named range"] == "AmountOfEmissionsTable"]
    assert listed and listed[0]["Status"] == "draft" and listed[0]["Cell"] == f"{TABLE_SHEET}!C11:E13"
    assert listed[0]["Label"].startswith("Table: B4 - Pollution of air, water and soil (columns: Pollutant")
    assert any(r["Page"] == 2 and r["File"] == "Acme report 2024.pdf" for r in listed)

    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "form.xlsx", "--year", "2024",
               "--json", "--yes", "--out", "model")
    assert proc.returncode == 0, proc.stderr
    output = last_json(proc)["output"]
    wb, rows = evidence_rows(output)
    ws = wb[TABLE_SHEET]
    assert form.read_bytes() == before
    assert ws["G5"].value is True  # the gate that opens the table
    filled = [[ws[f"{c}{r}"].value for c in "CDE"] for r in (11, 12, 13)]
    assert filled == [["Ammonia (NH3)", 12.5, 0.4], ["Nitrogen oxides (NOx/NO2)", 48, None], ["Benzene", 0.8, None]]
    air = {r["Named range"]: r for r in rows if r["Named range"].startswith("AmountOfEmissionToAir[")}
    assert air["AmountOfEmissionToAir[1]"]["Cell"] == f"{TABLE_SHEET}!D11" and air["AmountOfEmissionToAir[1]"]["Page"] == 2
    assert air["AmountOfEmissionToAir[1]"]["Status"] == "written" and air["AmountOfEmissionToAir[1]"]["Value"] == 12.5
    beyond = [r for r in rows if r["Named range"] == "AmountOfEmissionToAir[beyond]"]
    assert beyond and beyond[0]["Status"] == "waiting for approval" and beyond[0]["Value"] == 9.9
    assert "9.9 t not in cited passages" in beyond[0]["Checks"] and "only 3 rows" in beyond[0]["Checks"]
    head = [r for r in rows if r["Named range"] == "AmountOfEmissionsTable"][0]
    assert head["Status"] == "written" and "3 of 4 rows pass" in head["Checks"]

    # The review page's reader resolves a table cell's row to that row's cell of the column.
    from autofill.forms.reader import read_form
    from autofill.forms.tables import cell_datapoint

    filled_form = read_form(output)
    cell = cell_datapoint(filled_form, "AmountOfEmissionToAir[2]")
    assert (cell.cell.ref, cell.kind.value, cell.unit) == ("D12", "number", "t")

    # The review page lists the table with its evidence and each filled cell as a row; a reviewer's edit of
    # the second row's emission to air goes into that row's cell.
    from tests.review_app_helpers import ReviewServer, server_env
    from tests.test_review_app_forms import Client

    with ReviewServer(tmp_path, Path(output), env=server_env()) as server:
        c = Client(server)
        page = c.page()
        assert "AmountOfEmissionsTable" in page and "AmountOfEmissionToAir[2]" in page
        assert c.decide(f"{TABLE_SHEET}!D12", "Edit", answer="50").status_code == 200
        table = c.decide(f"{TABLE_SHEET}!C11:E13", "Edit", answer="12")
        assert table.status_code == 400, table.text  # the table's own row has no cell to write
        assert server.stop() == 0, server.stderr
    assert openpyxl.load_workbook(output)[TABLE_SHEET]["D12"].value == 50
    filled[1][1] = 50

    again = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "form.xlsx", "--year", "2024",
                "--json", "--yes", "--out", "model")
    assert again.returncode == 0, again.stderr
    wb, rows = evidence_rows(last_json(again)["output"])
    assert [[wb[TABLE_SHEET][f"{c}{r}"].value for c in "CDE"] for r in (11, 12, 13)] == filled
    assert [r["Status"] for r in rows if r["Named range"] == "AmountOfEmissionsTable"] == ["kept: edited by hand"]


def test_a_table_row_is_checked_for_the_reporting_year_and_its_own_citations(tmp_path):
    from autofill.forms.answer import Decision
    from autofill.forms.reader import read_form
    from autofill.forms.tables import assess_table, table_row
    from autofill.records import Answer, Passage, RowResult

    form = read_form(build_table_form(tmp_path / "form.xlsx"))
    table = form.tables[0]
    passages = [Passage("a", "r.pdf", 2, 2, "", "Pollutant | Air emissions 2024 (t)\nAmmonia (NH3) | 12.5\nBenzene | 0.8"),
                Passage("b", "r.pdf", 5, 5, "", "Pollutant | Air emissions 2023 (t)\nBenzene | 0.9")]
    rows = [{"values": {"TypeOfPollutantAxis": "Ammonia (NH3)", "AmountOfEmissionToAir": "12.5 t"}, "citations": [1],
             "year": "2024"},
            {"values": {"TypeOfPollutantAxis": "Benzene", "AmountOfEmissionToAir": "0.9 t"}, "citations": [2],
             "year": "2023"},  # last year's figure: on its cited page, but not for the reporting year
            {"values": {"TypeOfPollutantAxis": "Benzene", "AmountOfEmissionToAir": "0.8 t"}, "citations": []}]
    raw = json.dumps({"reasoning": "r", "answer": "3 rows", "rows": rows, "citations": [1, 2]})
    result = RowResult(table_row(form, table, "2024"), Answer("3 rows", cited_passages=[1, 2], raw=raw),
                       passages=passages)
    ta = assess_table(form, table, result, 2024, {"r.pdf": "2024"})
    assert ta.decision is Decision.WRITTEN and [r.ok for r in ta.rows] == [True, False, False]
    assert ta.cells() == [(TABLE_SHEET, "C11", "Ammonia (NH3)"), (TABLE_SHEET, "D11", 12.5)]
    assert any("not the reporting year 2024" in c.reason for c in ta.rows[1].checks)
    assert any("cites no passage" in c.reason for c in ta.rows[2].checks)
    assert [r.index for r in ta.rows] == [1, 2, 3]  # waiting rows take the rows after the written ones
