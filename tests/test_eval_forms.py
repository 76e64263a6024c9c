"""`autofill eval` on a named-range form (issue 45), in fresh processes as users run it: the small VSME-like
form and generated report of tests/forms_answer_helpers.py, the loopback model, a gold key per datapoint
(evaluate/forms.py): typed values scored by kind (numbers within a tolerance, booleans and enumerations
exactly) besides the pages of their evidence."""

from __future__ import annotations

import json

from autofill.evaluate.forms import value_matches
from tests.forms_answer_helpers import build_form, build_report, responder
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"
REPORT = "Acme report 2024.pdf"


def _gold(path, **extra):
    datapoints = [
        # 1.25 kt CO2e is written as 1250 tCO2e: within 1% of 1262.
        {"key": "GrossScope1GreenhouseGasEmissions", "value": 1262, "tolerance": 0.01, "pages": [f"{REPORT} p. 2"]},
        {"key": "TotalEnergyConsumption", "value": 1250, "pages": [{"file": REPORT, "page": 2}]},
        # 12.5 megalitres = 12,500 m3: 4% off 13,000, outside the default 2%.
        {"key": "TotalAmountOfWaterWithdrawnFromAllSites", "value": 13000, "pages": [f"{REPORT} p. 3"]},
        {"key": "HasTransitionPlan", "value": True, "pages": [f"{REPORT} p. 2"]},
        {"key": "TypeOfNumberOfEmployees", "value": "headcount", "pages": [f"{REPORT} p. 3"]},
    ]
    path.write_text(json.dumps({"datapoints": datapoints, **extra}), encoding="utf-8")
    return path


def test_values_are_compared_by_their_kind():
    assert value_matches("number", 1250, 1262, 0.01) and not value_matches("number", 1250, 1270, 0.01)
    assert value_matches("percent", "46", 46.0, 0.0) and value_matches("number", 0, 0, 0.02)
    assert value_matches("boolean", "Yes", True, 0) and not value_matches("boolean", "No", "YES", 0)
    assert value_matches("enumeration", "Headcount", " headcount ", 0)
    assert not value_matches("enumeration", "Full-time equivalent (FTE)", "Headcount", 0)
    assert value_matches("year", 2019, "2019", 0) and not value_matches("year", 2019, 2020, 0)
    assert value_matches("number", None, 5, 0.02) is False and value_matches("text", "a", "a", 0) is None


def test_eval_scores_a_forms_typed_values_and_their_pages(workspace, llm_server):
    llm_server.responder = responder()
    env = env_for(llm_server)
    build_form(workspace / "vsme-small.xlsx")
    build_report(workspace / "reports")
    gold = _gold(workspace / "gold.json")
    assert cli(workspace, env, "ingest", "--company", COMPANY, "reports").returncode == 0

    ran = cli(workspace, env, "eval", "--company", COMPANY, "--questionnaire", "vsme-small.xlsx", "--gold", gold.name,
              "--json")
    assert ran.returncode == 0, ran.stderr
    data = last_json(ran)
    assert data["questions"] == 5 and data["unmatched_gold"] == 0, data
    assert data["value_accuracy"] == 0.8 and data["yesno_accuracy"] == 1.0, data
    assert abs(data["number_accuracy"] - 2 / 3) < 1e-3, data
    assert data["hit_at_k"] > 0 and data["mrr"] > 0, data
    table = json.loads(open(data["table_json"], encoding="utf-8").read())["questions"]
    by_key = {q["number"]: q for q in table}
    assert by_key["GrossScope1GreenhouseGasEmissions"]["value_accuracy"] == 1.0
    assert by_key["GrossScope1GreenhouseGasEmissions"]["hit_at_k"] == 1.0
    assert by_key["TotalAmountOfWaterWithdrawnFromAllSites"]["value_accuracy"] == 0.0
    assert by_key["TotalAmountOfWaterWithdrawnFromAllSites"]["answer"] == "12500"

    # The same output scored again with --from: the same figures, no model call.
    calls = len(llm_server.requests)
    again = last_json(cli(workspace, env, "eval", "--company", COMPANY, "--questionnaire", "vsme-small.xlsx",
                          "--gold", gold.name, "--from", data["output"], "--json"))
    assert len(llm_server.requests) == calls
    assert (again["value_accuracy"], again["number_accuracy"], again["hit_at_k"]) == \
        (data["value_accuracy"], data["number_accuracy"], data["hit_at_k"])

    # Without a model (evidence-only drafts) each datapoint is scored on its first candidate value: the
    # figures are found, the yes / no and the enumeration have no candidate and count as wrong.
    offline = last_json(cli(workspace, env_for(llm_server, offline=True), "eval", "--company", COMPANY,
                            "--questionnaire", "vsme-small.xlsx", "--gold", gold.name, "--out", "offline", "--json"))
    assert offline["value_accuracy"] == 0.4 and abs(offline["number_accuracy"] - 2 / 3) < 1e-3, offline
    drafts = {q["number"]: q for q in json.loads(open(offline["table_json"], encoding="utf-8").read())["questions"]}
    assert drafts["GrossScope1GreenhouseGasEmissions"]["status"] == "draft"
    assert drafts["GrossScope1GreenhouseGasEmissions"]["answer"] == "1250"

    # A key naming a datapoint the form does not have: one line, exit 2.
    bad = workspace / "bad.json"
    bad.write_text(json.dumps({"datapoints": [{"key": "NoSuchRange", "value": 1}]}), encoding="utf-8")
    wrong = cli(workspace, env, "eval", "--company", COMPANY, "--questionnaire", "vsme-small.xlsx", "--gold",
                bad.name, "--from", data["output"])
    assert wrong.returncode == 2 and "'NoSuchRange' is not a datapoint of vsme-small.xlsx" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1, wrong.stderr
