"""forms.gates: which gate opens each datapoint, from the template's own structure (conditional formats,
then formulas of the gate's sheet), never from nearness. A generated form laid out as the VSME template's
B3 block is: a targets question above the Scope 1 row whose status formula tests it, base / target year
columns that only the targets question opens, Scope 3 categories that need two gates, a policy whose
description a status formula opens; read directly, through `autofill inspect` in a fresh process, and
as `run` applies the gates."""

from __future__ import annotations

import os

import openpyxl
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import PatternFill, Protection
from openpyxl.workbook.defined_name import DefinedName

from autofill.forms.model import GateOpens
from autofill.forms.reader import read_form
from tests.rows_helpers import ROOT, cli, last_json

SHEET = "Environmental Disclosures"
GREY = PatternFill(start_color="FFDDDDDD", end_color="FFDDDDDD", fill_type="solid")


def build_gated_form(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = SHEET
    names = {"HasTargets": "J19", "GrossScope1": "D22", "GrossScope1_BaselineYearMember": "G22",
             "GrossScope1_TargetYearMember": "J22", "DisclosesScope3": "G29", "HasClimatePolicy": "D35",
             "PolicyDescription": "D36"}
    for name, ref in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=f"'{SHEET}'!${ref[0]}${ref[1:]}")
    ws["C2"] = "B3 - Energy and greenhouse gas emissions"
    ws["C19"] = "Has the undertaking established GHG emission reduction targets?"
    ws["D20"], ws["G20"], ws["J20"] = "Current reporting period", "Base year", "Target year"
    ws["C22"] = "Gross Scope 1 GHG emissions (tCO2e)"
    # The row's status formula tests the targets question and the current value: nearness is no gate.
    ws["L22"] = ('=IF(AND(D22<>"",J19=FALSE),"OK",IF(AND(D22<>"",G22<>"",J22<>"",J19=TRUE),"OK",'
                 '"MISSING VALUE"))')
    ws["C29"] = "Is the undertaking disclosing Scope 3 emissions?"
    for r, category in ((30, "1. Purchased goods and services"), (31, "2. Capital goods")):
        ws[f"C{r}"] = category
    ws["D32"] = '=IF(G29=TRUE,SUM(D30:D31),"-")'  # a total: the CF names G29, so formulas are not read for it
    ws["C35"] = "Does the undertaking have a climate policy?"
    ws["C36"] = "Describe the policy"
    ws["E36"] = '=IF(D35=TRUE,IF(D36="","MISSING VALUE","OK"),"")'
    for ref in ("J19", "G29", "D35"):
        ws[ref] = False
    inputs = ["J19", "D22", "G22", "J22", "G29", "D30", "G30", "J30", "D31", "G31", "J31", "D35", "D36"]
    for ref in inputs:
        ws[ref].protection = Protection(locked=False)
    for ref in ("D22", "G22", "J22", "D30", "G30", "J30", "D31", "G31", "J31"):
        ws[ref].number_format = "0.00"
    cf = ws.conditional_formatting
    cf.add("G21:J22", FormulaRule(formula=["$J$19=TRUE"], fill=GREY))
    cf.add("D30:F31", FormulaRule(formula=["$G$29=TRUE"], fill=GREY))
    cf.add("G30:J31", FormulaRule(formula=["AND($G$29=TRUE,$J$19=TRUE)"], fill=GREY))
    cf.add("K30:K32", FormulaRule(formula=["OR($J$19=FALSE,$G$29=FALSE)"], fill=GREY))  # no necessary condition
    ws.protection.sheet = True
    wb.save(path)
    return path


def _gates(dp):
    return {(g.key, g.opens) for g in dp.gates}


def test_gates_come_from_conditional_formats_and_formulas_not_nearness(tmp_path):
    form = read_form(build_gated_form(tmp_path / "gated.xlsx"))
    dp = form.datapoint
    assert dp("GrossScope1").gates == ()  # the current period applies with or without targets
    assert _gates(dp("GrossScope1_BaselineYearMember")) == {("HasTargets", GateOpens.YES)}
    assert dp("GrossScope1_TargetYearMember").gate.source == f"conditional format {SHEET}!G21:J22"
    assert _gates(dp(f"{SHEET}!D30")) == {("DisclosesScope3", GateOpens.YES)}
    assert _gates(dp(f"{SHEET}!J31")) == {("DisclosesScope3", GateOpens.YES), ("HasTargets", GateOpens.YES)}
    assert dp(f"{SHEET}!D31").gates == dp(f"{SHEET}!D30").gates  # not also HasTargets from the OR rule
    policy = dp("PolicyDescription").gate
    assert (policy.key, policy.opens, policy.source) == ("HasClimatePolicy", GateOpens.YES, f"formula {SHEET}!E36")
    assert dp("HasTargets").gates == () and dp("DisclosesScope3").gates == ()
    assert {d.key for d in form.gated_by("HasTargets")} == {
        "GrossScope1_BaselineYearMember", "GrossScope1_TargetYearMember", f"{SHEET}!G30", f"{SHEET}!J30",
        f"{SHEET}!G31", f"{SHEET}!J31"}


def test_inspect_shows_which_gate_opens_each_datapoint(tmp_path):
    build_gated_form(tmp_path / "gated.xlsx")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    text = cli(tmp_path, env, "inspect", "gated.xlsx")
    assert text.returncode == 0, text.stderr
    assert "applies when HasTargets (\"Has the undertaking established GHG emission reduction targets?\") is yes " \
           f"(conditional format {SHEET}!G21:J22)" in text.stdout
    assert "behind a gate" in text.stdout
    data = last_json(cli(tmp_path, env, "inspect", "gated.xlsx", "--json"))
    dps = {d["key"]: d for d in data["form"]["datapoints"]}
    assert "gate" not in dps["GrossScope1"]
    assert [g["key"] for g in dps[f"{SHEET}!G30"]["gates"]] == ["DisclosesScope3", "HasTargets"]
    assert dps["PolicyDescription"]["gate"]["via"] == f"formula {SHEET}!E36"


def test_a_datapoint_behind_two_gates_waits_when_either_is_answered_closed(tmp_path):
    from autofill.forms.answer import Decision, FormAnswer
    from autofill.forms.run import gated
    from autofill.forms.values import TypedValue
    from autofill.records import RowResult

    form = read_form(build_gated_form(tmp_path / "gated.xlsx"))

    def answer(key, value):
        dp = form.datapoint(key)
        return FormAnswer(dp, RowResult(question=None, answer=None), Decision.WRITTEN, TypedValue(value, str(value)))

    scope3 = gated([answer("DisclosesScope3", True), answer("HasTargets", False), answer(f"{SHEET}!G30", 12.0),
                    answer(f"{SHEET}!D30", 40.0), answer("GrossScope1", 1250.0)])
    by_key = {fa.datapoint.key: fa for fa in scope3}
    assert by_key[f"{SHEET}!G30"].decision is Decision.WAITING  # its base year needs targets too
    assert "HasTargets is answered no" in by_key[f"{SHEET}!G30"].checks[-1].reason
    assert by_key[f"{SHEET}!D30"].decision is Decision.WRITTEN
    assert by_key["GrossScope1"].decision is Decision.WRITTEN and not by_key["GrossScope1"].checks
