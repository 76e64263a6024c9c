"""`autofill run` on a named-range form, in fresh processes as users run it: the form read by
forms/reader.py (tests/form_builders.build_named_form: labels through a translation table, an x14
cross-sheet drop-down, a formula total, date parts, an open table), a generated report, offline and with
the loopback model."""

from __future__ import annotations

import json
import re
import zipfile

import openpyxl

from tests.answer_helpers import passages_in
from tests.form_builders import build_named_form, evidence_rows
from tests.llm_server import by_marker, last_user_text
from tests.pdf_factory import make_pdf
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"
SHEET = "Disclosures"


def _report(folder):
    folder.mkdir()
    filler = [("p", f"Site {i} operations: maintenance, logistics and training continued through the year.")
              for i in range(1, 4)]
    return make_pdf(folder / "Acme report 2024.pdf", [
        [("h1", "Acme Fabrication sustainability report 2024"), *filler],
        [("h1", "Climate"), ("p", "In 2024 our gross Scope 1 GHG emissions were 1.25 kt CO2e, from two gas boilers."),
         ("p", "The Board adopted a climate policy covering all sites in 2022. Our base year is 2019."),
         ("p", "Renewable electricity made up 46% of the electricity we bought in 2024.")],
        [("h1", "Where we operate"), ("p", "All of our operations are in Belgium, near Ghent."), *filler]])


REPLIES = {  # field label -> (reply, phrase of the passage it cites)
    "Gross Scope 1": ({"answer": "1.25", "unit": "kt CO2e"}, "1.25 kt CO2e"),
    "Gross Scope 2": ({"answer": "640", "unit": "t CO2e"}, "1.25 kt CO2e"),  # on no page: must wait
    "climate policy": ({"answer": "Yes"}, "adopted a climate policy"),
    "Describe the policy": ({"answer": "A climate policy covering all sites, adopted in 2022."}, "adopted a climate policy"),
    "Country": ({"answer": "belgium"}, "operations are in Belgium"),
    "Base year": ({"answer": "2019"}, "base year is 2019"),
    "Share of renewable": ({"answer": "46", "unit": "%"}, "made up 46%"),
}


def _reply(req: dict) -> str:
    prompt = last_user_text(req)
    field = re.search(r"^Field: (.*)$", prompt, re.MULTILINE).group(1)
    for marker, (reply, phrase) in REPLIES.items():
        if marker in field and not re.match(r"\d+\. ", field):  # not the Scope 3 categories' "Base year"
            cited = [n for n, _, _, t in passages_in(prompt) if phrase in " ".join(t.split())]
            return json.dumps({"reasoning": "Stated.", **reply, "year": "2024", "quote": phrase, "citations": cited[:1],
                               "confidence": "high"})
    return json.dumps({"reasoning": "none", "answer": "Not disclosed", "citations": []})


def test_run_fills_a_named_range_form_offline_then_with_the_loopback_model(tmp_path, llm_server):
    llm_server.responder = by_marker({"Fill one field": _reply}, default="ok")
    env = env_for(llm_server)
    _report(tmp_path / "reports")
    form = build_named_form(tmp_path / "form.xlsx")
    before = form.read_bytes()
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0

    offline = cli(tmp_path, env_for(llm_server, offline=True), "run", "--company", COMPANY, "--questionnaire",
                  "form.xlsx", "--year", "2024", "--json", "--out", "offline")
    assert offline.returncode == 0, offline.stderr
    result = last_json(offline)
    assert result["form"] and result["evidence_only"] and result["written"] == 0 and result["draft"] >= 6
    wb, rows = evidence_rows(result["output"])
    assert wb[SHEET]["C4"].value is None and wb[SHEET]["C10"].value is None
    scope1 = [r for r in rows if r["Named range"] == "GrossScope1"]
    assert scope1[0]["Cell"] == f"{SHEET}!C4" and scope1[0]["Label"] == "Gross Scope 1 GHG emissions"
    assert any(r["Page"] == 2 and r["File"] == "Acme report 2024.pdf" for r in scope1)
    assert any(r["Rank"] == "candidate" and r["Value"] == 1250 and r["Year"] == 2024 for r in scope1)

    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "form.xlsx", "--year", "2024", "--json",
               "--yes", "--out", "model")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    wb, rows = evidence_rows(result["output"])
    statuses = {(r["Named range"], r["Status"], r["Checks"]) for r in rows if r["Status"] != "not disclosed"}
    assert result["written"] == 6 and result["waiting_for_approval"] == 1, sorted(map(str, statuses))
    assert form.read_bytes() == before
    ws = wb[SHEET]
    assert ws["C4"].value == 1250  # 1.25 kt CO2e in the form's tCO2e
    assert ws["C8"].value is True and ws["C10"].value == "Belgium" and ws["C11"].value == 2019
    assert ws["C12"].value == 0.46  # 46 % as the fraction a percent cell holds
    assert ws["C9"].value.startswith("A climate policy")
    assert ws["C5"].value is None  # 640 t CO2e is on no cited page: it waits for a reviewer
    waiting = [r for r in rows if r["Named range"] == "GrossScope2"]
    assert waiting[0]["Status"] == "waiting for approval" and "640 t not in cited passages" in waiting[0]["Checks"]
    assert ws["C6"].value == '=IF(AND(C4="",C5=""),"-",SUM(C4,C5))'  # the total stays a formula,
    assert openpyxl.load_workbook(result["output"], data_only=True)[SHEET]["C6"].value == 1250  # its value current
    with zipfile.ZipFile(form) as zin, zipfile.ZipFile(result["output"]) as zout:
        names = re.compile(r"<definedName [^>]*>[^<]*</definedName>")
        assert names.findall(zin.read("xl/workbook.xml").decode()) == names.findall(zout.read("xl/workbook.xml").decode())
        sheet = next(n for n in zin.namelist() if "x14:dataValidation" in zin.read(n).decode("utf-8", "replace"))
        ext = re.compile(r"<extLst>.*</extLst>", re.S)
        assert ext.findall(zin.read(sheet).decode()) == ext.findall(zout.read(sheet).decode())
        dv = re.compile(r"<dataValidations.*?</dataValidations>", re.S)
        assert dv.findall(zin.read(sheet).decode()) == dv.findall(zout.read(sheet).decode())
