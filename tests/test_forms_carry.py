"""forms/carry.py: a re-run of a form keeps what people did, through `autofill run` in fresh processes as
users run it (tests/forms_answer_helpers: a small VSME-like form and a generated report; the loopback
model). A person corrects a value and types another in the filled form with openpyxl, a reviewer writes
"Approved" in the Evidence sheet's Review column of a waiting value; the next run, with the model
answering something else, keeps their values, writes the approved one, keeps the earlier run's values
and answers only what was empty; `--fresh` answers the earlier run's values again, never a person's."""

from __future__ import annotations

import json
import re

import openpyxl

from autofill.forms.carry import EVIDENCE_COLUMNS, RECORD_SHEET
from tests.forms_answer_helpers import ENV, build_form, build_report, form_reply
from tests.llm_server import by_marker, last_user_text
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"


def _field(req) -> str:
    found = re.search(r"^Field: (.*)$", last_user_text(req), re.MULTILINE)
    return found.group(1) if found else ""


def _not_disclosed(req) -> str:
    return json.dumps({"reasoning": "none", "answer": "Not disclosed", "citations": []})


def _replying(answers):
    """The model: `answers(field)` gives the reply function for a field (form_reply: the sensible one)."""
    return by_marker({"Fill one field": lambda req: answers(_field(req))(req)}, default="ok")


def _evidence(path) -> dict[str, list[dict]]:
    wb = openpyxl.load_workbook(path, read_only=True)
    rows = wb["Evidence"].iter_rows(values_only=True)
    head = list(next(rows))
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(dict(zip(head, row)))
    wb.close()
    return out


def _run(tmp_path, env, *extra):
    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "vsme-small.xlsx", "--json", "--yes",
               "--no-cache", "--out", "out", *extra)
    assert proc.returncode in (0, 1), proc.stderr
    return last_json(proc)


def test_a_rerun_keeps_hand_edits_and_earlier_values_writes_approvals_and_fresh_spares_people(tmp_path, llm_server):
    env = env_for(llm_server)
    build_report(tmp_path / "docs")
    build_form(tmp_path / "vsme-small.xlsx")
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "docs").returncode == 0

    # Run 1: water not disclosed; Scope 2 (640 t, on no cited page) waits for approval.
    llm_server.responder = _replying(lambda f: _not_disclosed if "water" in f else form_reply)
    first = _run(tmp_path, env)
    out = first["output"]
    ws = openpyxl.load_workbook(out)[ENV]
    assert (ws["D5"].value, ws["D6"].value, ws["D7"].value, ws["D8"].value) == (1250, None, 1250, None)
    assert first["waiting_for_approval"] == 1
    assert openpyxl.load_workbook(out)[RECORD_SHEET].sheet_state == "veryHidden"
    assert _evidence(out)["GrossLocationBasedScope2GreenhouseGasEmissions"][0]["Review"] is None

    # A person corrects Scope 1 and chooses another type of employee count; a reviewer approves Scope 2.
    wb = openpyxl.load_workbook(out)
    wb[ENV]["D5"] = 1300
    wb[ENV]["D10"] = "Full-time equivalent (FTE)"
    ev = wb["Evidence"]
    review = EVIDENCE_COLUMNS.index("Review") + 1
    row = next(r for r in range(2, ev.max_row + 1)
               if ev.cell(r, 1).value == "GrossLocationBasedScope2GreenhouseGasEmissions")
    ev.cell(row, review).value = "Approved"
    wb.save(out)

    # Run 2: the model now answers water and says "not disclosed" to everything else.
    asked_before = len(llm_server.chat_requests("Fill one field"))
    llm_server.responder = _replying(lambda f: form_reply if "water" in f else _not_disclosed)
    second = _run(tmp_path, env)
    assert second["output"] == out
    wb = openpyxl.load_workbook(out)
    ws = wb[ENV]
    assert ws["D5"].value == 1300 and ws["D10"].value == "Full-time equivalent (FTE)"  # the person's values
    assert ws["D6"].value == 640  # approved: written into the form
    assert ws["D7"].value == 1250 and ws["D9"].value == "YES"  # the earlier run's values, not asked again
    assert ws["D8"].value == 12500  # empty before: answered now (12.5 megalitres)
    assert openpyxl.load_workbook(out, data_only=True)[ENV]["D11"].value == 1940  # the form's total: 1300 + 640
    asked = [_field(r.json) for r in llm_server.chat_requests("Fill one field")[asked_before:]]
    # Asked again: only what was empty (water; the year cell, not disclosed in run 1) and the form's total
    # (answered for comparison, never written).
    assert not [f for f in asked if not re.search(r"water|Reporting period|Total Scope 1 and 2", f)], asked
    assert any("water" in f for f in asked)
    evidence = _evidence(out)
    assert evidence["GrossScope1GreenhouseGasEmissions"][0]["Status"] == "kept: edited by hand"
    assert evidence["GrossScope1GreenhouseGasEmissions"][0]["Value"] == 1300
    assert evidence["TypeOfNumberOfEmployees"][0]["Status"] == "kept: edited by hand"
    assert {r["Status"] for r in evidence["GrossLocationBasedScope2GreenhouseGasEmissions"]} == {"approved"}
    assert evidence["TotalEnergyConsumption"][0]["Status"] == "kept: earlier run"
    assert evidence["TotalAmountOfWaterWithdrawnFromAllSites"][0]["Status"] == "written"
    assert (second["kept_edited_by_hand"], second["approved"], second["kept_earlier_run"], second["written"]) == \
        (2, 1, 2, 1), second

    # Run 3, --fresh: the earlier run's values are answered again (now "not disclosed": emptied); the
    # person's and the reviewer's stay.
    llm_server.responder = _replying(lambda f: _not_disclosed)
    third = _run(tmp_path, env, "--fresh")
    ws = openpyxl.load_workbook(out)[ENV]
    assert (ws["D5"].value, ws["D6"].value, ws["D10"].value) == (1300, 640, "Full-time equivalent (FTE)")
    assert ws["D7"].value is None and ws["D8"].value is None and ws["D9"].value is None
    assert (third["kept_edited_by_hand"], third["approved"], third["written"]) == (2, 1, 0), third
    assert third["not_disclosed"] >= 3 and _evidence(out)["TotalEnergyConsumption"][0]["Status"] == "not disclosed"


def test_an_approved_value_is_written_as_its_cell_takes_it_and_a_kept_gate_still_closes():
    from autofill.forms.answer import Decision, FormAnswer
    from autofill.forms.carry import Kept, approved_writes
    from autofill.forms.model import Datapoint, DatapointKind, FormCell, Gate
    from autofill.forms.run import gated, kept_gates
    from autofill.forms.values import TypedValue
    from autofill.records import RowResult

    share = Datapoint("RenewableShare", (FormCell("S", "C2"),), "Share of renewable electricity",
                      kind=DatapointKind.PERCENT)
    plan = Datapoint("HasPlan", (FormCell("S", "C3"),), "Has a plan?", kind=DatapointKind.BOOLEAN,
                     allowed=("YES", "NO"))
    assert approved_writes(share, 46) == [("S", "C2", 0.46)]  # the Evidence shows 46 (%): the cell holds 0.46
    assert approved_writes(plan, "Yes") == [("S", "C3", "YES")]  # as the drop-down spells it
    assert approved_writes(plan, "perhaps") == []  # no value of its type: not written

    describe = Datapoint("Describe", (FormCell("S", "C4"),), "Describe the plan", kind=DatapointKind.TEXT,
                         gate=Gate("HasPlan"))
    answer = FormAnswer(describe, RowResult(question=None, answer=None), Decision.WRITTEN, TypedValue("A plan.", "A plan."))
    kept = [Kept(plan, Decision.EDITED, [("S", "C3", "NO")], [])]  # a person answered the gate NO by hand
    assert kept_gates(kept) == {"HasPlan": False}
    assert gated([answer], kept_gates(kept))[0].decision is Decision.WAITING
