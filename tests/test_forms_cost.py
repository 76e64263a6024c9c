"""The model cost of a form's run (portfolio/form_cost.py, issue 45): each datapoint priced as the question row it
is answered as, with the workspace's price; `run` on a form asks before an estimated cost over
run.confirm_above_usd as it does for a questionnaire; `batch --estimate` prices a portfolio holding a
form, a datapoint an earlier output keeps is not priced again, and `batch --max-cost` caps a form
datapoint by datapoint (those the cap refuses are left pending, not answered). Driven as users run it:
fresh processes, the loopback model over HTTP, real Chroma stores and workbooks."""

from __future__ import annotations

import csv
import json

import openpyxl

from autofill.settings import Settings
from tests.forms_answer_helpers import build_form, build_report, responder
from tests.portfolio_helpers import LOOPBACK_PRICES, price_loopback
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"


def _chats(server) -> int:
    return sum(1 for r in server.requests if "chat" in r.path)


def test_a_form_is_priced_as_the_datapoint_questions_it_answers(tmp_path):
    from autofill.forms.answer import datapoint_row
    from autofill.portfolio.form_cost import estimate_form, form_points
    from autofill.forms.reader import read_form
    from autofill.portfolio.estimate import estimate_rows

    path, _ = build_form(tmp_path / "form.xlsx")
    form = read_form(path)
    s = Settings(workspace=tmp_path)
    s.cost.prices = {"gpt-4o-mini": list(LOOPBACK_PRICES["gpt-4o-mini"])}
    est = estimate_form(s, COMPANY, form, "gpt-4o-mini", "hyde+hybrid", "llm")
    points = form_points(form)
    assert est.form and est.rows == len(points) >= 7 and est.rows_done == 0
    assert est.cost_known and est.cost_usd > 0
    assert est.stages["answer"].calls == est.rows and est.stages["hyde"].calls == est.rows
    # The answer prompt is the form's own (form_answer.j2: "Fill one field"), longer than a plain row's.
    plain = [datapoint_row(dp, "2024") for dp in points]
    for row in plain:
        row.answer_template = "answer"
    as_rows = estimate_rows(s, COMPANY, plain, "gpt-4o-mini", "hyde+hybrid", "llm")
    assert est.stages["answer"].prompt_chars != as_rows.stages["answer"].prompt_chars
    price_in, price_out = LOOPBACK_PRICES["gpt-4o-mini"]
    assert abs(est.cost_usd - (est.prompt_tokens * price_in + est.completion_tokens * price_out) / 1e6) < 1e-9
    # Without a price for the model: cost unknown, never $0.
    s.cost.prices = {}
    s.llm.base_url = "http://127.0.0.1:9/v1"
    assert not estimate_form(s, COMPANY, form, "gpt-4o-mini", "hyde+hybrid", "llm").cost_known


def test_run_asks_before_a_costly_form_and_batch_estimates_and_caps_it(tmp_path, llm_server):
    llm_server.responder = responder()
    build_report(tmp_path / "reports" / "acme")
    build_form(tmp_path / "form.xlsx")
    price_loopback(tmp_path)
    env = env_for(llm_server)
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports/acme").returncode == 0
    toml = tmp_path / "autofill.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[run]\nconfirm_above_usd = 0.0\n", encoding="utf-8")

    # `run` on the form: an estimated cost over run.confirm_above_usd asks first (no terminal: --yes), nothing spent.
    asked = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "form.xlsx", "--year", "2024")
    assert asked.returncode == 2, asked.stderr
    assert "datapoints to answer" not in asked.stderr and "an estimated $" in asked.stderr, asked.stderr
    assert "--yes" in asked.stderr and not _chats(llm_server)
    ran = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "form.xlsx", "--year", "2024",
              "--yes", "--json")
    assert ran.returncode == 0, ran.stderr
    written = last_json(ran)["written"]
    assert written >= 4
    # The run's usage calibrates the next estimate, as a questionnaire's does.
    calibration = json.loads((tmp_path / "vectordb" / ".usage-calibration.json").read_text(encoding="utf-8"))
    assert "answer" in calibration["models"]["gpt-4o-mini"]

    # A portfolio holding the form: the run's output is where batch writes, so the values it keeps are done.
    manifest = tmp_path / "portfolio.csv"
    with open(manifest, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["company", "reports", "questionnaire", "year"])
        w.writerow([COMPANY, "reports/acme", "form.xlsx", "2024"])
        w.writerow(["Beta Metals", "reports/acme", "form.xlsx", "2024"])
    est = last_json(cli(tmp_path, env, "batch", manifest.name, "--estimate", "--json"))
    by = {c["company"]: c for c in est["companies"]}
    assert by[COMPANY]["form"] and by[COMPANY]["rows_done"] == written
    assert by[COMPANY]["rows"] + written == by["Beta Metals"]["rows"] + by["Beta Metals"]["rows_done"]
    assert by["Beta Metals"]["cost_usd"] > by[COMPANY]["cost_usd"] > 0 and est["estimated_cost_usd"] > 0

    # A cap below one datapoint: Beta's datapoints are refused one by one, left pending, nothing answered.
    calls = _chats(llm_server)
    capped = cli(tmp_path, env, "batch", manifest.name, "--max-cost", "0.000001", "--yes", "--json")
    assert capped.returncode in (0, 1), capped.stderr
    assert _chats(llm_server) == calls
    beta = tmp_path / "reports_out" / "form_Beta_Metals_filled.xlsx"
    ev = openpyxl.load_workbook(beta)["Evidence"]
    head = [c.value for c in ev[1]]
    statuses = {r[head.index("Status")] for r in ev.iter_rows(min_row=2, values_only=True)}
    assert "pending: cost cap reached" in statuses, statuses
    assert "written" not in statuses
