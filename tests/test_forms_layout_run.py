"""`autofill run` on a form without names (issue 45 part B): a bank's label / input layout
(tests/form_builders.build_bank_form: labels in A, inputs in B, a unit column C, drop-downs) filled as a
named form is, in fresh processes as users run it: offline (evidence and candidates per cell, nothing
written), then with the loopback model (typed values in the form's units, a figure on no cited page
waiting), and read back by the review page's reader."""

from __future__ import annotations

import json
import re

import openpyxl

from tests.answer_helpers import passages_in
from tests.form_builders import BANK_SHEET, build_bank_form, evidence_rows
from tests.llm_server import by_marker, last_user_text
from tests.pdf_factory import make_pdf
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"


def _report(folder):
    folder.mkdir()
    filler = [("p", f"Site {i} operations: maintenance, logistics and training continued through the year.")
              for i in range(1, 4)]
    return make_pdf(folder / "Acme report 2024.pdf", [
        [("h1", "Acme Fabrication sustainability report 2024"),
         ("p", "Acme Fabrication NV is incorporated in Belgium, with its seat in Ghent."), *filler],
        [("h1", "Climate"), ("p", "In 2024 our gross Scope 1 GHG emissions were 1.25 kt CO2e, from two gas boilers."),
         ("p", "We adopted a climate transition plan in March 2024, with a target of net zero by 2045."),
         ("table", ["Energy", "FY2024 (GJ)", "FY2023 (GJ)"],
          [["Electricity", "3,000", "3,300"], ["Natural gas", "1,500", "1,700"],
           ["Total energy consumption", "4,500", "5,000"]])],
        [("h1", "People"), ("p", "Employees are counted as headcount at the end of the year: 84 people."), *filler]])


REPLIES = {  # field label -> (reply, phrase of the passage it cites)
    "Gross Scope 1": ({"answer": "1.25", "unit": "kt CO2e"}, "1.25 kt CO2e"),
    "Total energy": ({"answer": "4,500", "unit": "GJ"}, "Total energy consumption"),
    "water withdrawal": ({"answer": "12.5", "unit": "megalitres"}, "1.25 kt CO2e"),  # on no page: must wait
    "transition plan": ({"answer": "Yes"}, "adopted a climate transition plan"),
    "Country": ({"answer": "belgium"}, "incorporated in Belgium"),
    "Number of employees": ({"answer": "84"}, "84 people"),
}


def _reply(req: dict) -> str:
    prompt = last_user_text(req)
    field = re.search(r"^Field: (.*)$", prompt, re.MULTILINE).group(1)
    for marker, (reply, phrase) in REPLIES.items():
        if marker in field:
            cited = [n for n, _, _, t in passages_in(prompt) if phrase in " ".join(t.split())]
            return json.dumps({"reasoning": "Stated.", **reply, "year": "2024", "quote": phrase, "citations": cited[:1],
                               "confidence": "high"})
    return json.dumps({"reasoning": "none", "answer": "Not disclosed", "citations": []})


def test_run_fills_a_bank_layout_form_offline_then_with_the_loopback_model(tmp_path, llm_server):
    llm_server.responder = by_marker({"Fill one field": _reply}, default="ok")
    env = env_for(llm_server)
    _report(tmp_path / "reports")
    form = build_bank_form(tmp_path / "bank.xlsx")
    before = form.read_bytes()
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0

    offline = cli(tmp_path, env_for(llm_server, offline=True), "run", "--company", COMPANY, "--questionnaire",
                  "bank.xlsx", "--year", "2024", "--json", "--out", "offline")
    assert offline.returncode == 0, offline.stderr
    result = last_json(offline)
    assert result["form"] and result["evidence_only"] and result["written"] == 0 and result["datapoints"] == 7
    wb, rows = evidence_rows(result["output"])
    assert all(wb[BANK_SHEET][f"B{r}"].value is None for r in (4, 5, 8, 9, 10, 11, 14))
    scope1 = [r for r in rows if r["Named range"] == f"{BANK_SHEET}!B8"]
    assert scope1 and scope1[0]["Cell"] == f"{BANK_SHEET}!B8" and scope1[0]["Label"] == "Gross Scope 1 GHG emissions"
    units = {r["Named range"]: r["Unit"] for r in rows}
    assert units[f"{BANK_SHEET}!B8"] == "t" and units[f"{BANK_SHEET}!B9"] == "MWh"  # from the form's unit column
    assert any(r["Page"] == 2 and r["File"] == "Acme report 2024.pdf" for r in scope1)
    assert any(r["Rank"] == "candidate" and r["Value"] == 1250 for r in scope1)

    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "bank.xlsx", "--year", "2024", "--json",
               "--yes", "--out", "model")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    wb, rows = evidence_rows(result["output"])
    statuses = sorted({(r["Named range"], r["Status"], r["Checks"]) for r in rows}, key=str)
    assert result["written"] == 5 and result["waiting_for_approval"] == 1, statuses
    assert form.read_bytes() == before
    ws = wb[BANK_SHEET]
    assert ws["B8"].value == 1250  # 1.25 kt CO2e in the unit column's tCO2e
    assert ws["B9"].value == 1250  # 4,500 GJ in MWh
    assert ws["B5"].value == "Belgium" and ws["B11"].value == "Yes" and ws["B14"].value == 84
    assert ws["B10"].value is None  # 12.5 megalitres is on no cited page: it waits for a reviewer
    waiting = [r for r in rows if r["Named range"] == f"{BANK_SHEET}!B10"]
    assert waiting[0]["Status"] == "waiting for approval"
    assert ws["C8"].value == "tCO2e" and ws["A8"].value == "Gross Scope 1 GHG emissions"  # the form kept
    assert openpyxl.load_workbook(result["output"]).sheetnames[:1] == [BANK_SHEET]

    # The filled copy is read back as the same form (the review page's reader): its own sheets are no inputs.
    from autofill.forms.reader import read_form

    again = read_form(result["output"])
    assert again is not None and {d.key for d in again.datapoints} == {
        f"{BANK_SHEET}!B{r}" for r in (4, 5, 8, 9, 10, 11, 14)}


def test_batch_plans_a_bank_layout_form_as_a_form(tmp_path, llm_server):
    import csv

    _report(tmp_path / "reports")
    build_bank_form(tmp_path / "bank.xlsx")
    with open(tmp_path / "portfolio.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["company", "reports", "questionnaire", "year"])
        w.writerow([COMPANY, "reports", "bank.xlsx", "2024"])
    proc = cli(tmp_path, env_for(llm_server), "batch", "portfolio.csv", "--estimate", "--json")
    assert proc.returncode == 0, proc.stderr
    company = last_json(proc)["companies"][0]
    assert company["form"] is True and company["rows"] == 7, company
