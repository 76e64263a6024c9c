"""`autofill batch` on a portfolio whose questionnaire is a named-range form (issue 45), in fresh processes
as users run it: two generated companies, the small VSME-like form of tests/forms_answer_helpers.py, the
loopback model (chat and embeddings over HTTP through the real SDK), real Chroma stores, real workbooks."""

from __future__ import annotations

import csv
import re

import openpyxl

from tests.forms_answer_helpers import ENV, build_form, build_report, responder
from tests.pdf_factory import make_sample_company_pdf
from tests.portfolio_helpers import price_loopback
from tests.rows_helpers import cli, env_for, last_json

ALPHA, BETA = "Alpha Fabrication", "Beta Metals"
DATAPOINTS = 8  # what run answers on this form: its seven named inputs and the computed total


def _portfolio(root):
    build_form(root / "vsme-small.xlsx")
    build_report(root / "reports" / "alpha")
    (root / "reports" / "beta").mkdir(parents=True)
    make_sample_company_pdf(root / "reports" / "beta" / "Beta report 2024.pdf")
    manifest = root / "portfolio.csv"
    with open(manifest, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["company", "reports", "questionnaire", "year"])
        w.writerow([ALPHA, "reports/alpha", "vsme-small.xlsx", "2024"])
        w.writerow([BETA, "reports/beta", "vsme-small.xlsx", "2024"])
    return manifest


def test_batch_fills_one_form_per_company_as_run_does(workspace, llm_server):
    llm_server.responder = responder()
    manifest = _portfolio(workspace)
    price_loopback(workspace)
    env = env_for(llm_server)
    form_bytes = (workspace / "vsme-small.xlsx").read_bytes()

    # --estimate: each company's datapoints, priced as the questions they are answered as (portfolio/form_cost.py;
    # tests/test_forms_cost.py checks the figures and the cap).
    est = cli(workspace, env, "batch", manifest.name, "--estimate")
    assert est.returncode == 0, est.stderr
    assert re.search(rf"^{ALPHA}: {DATAPOINTS} datapoints of a form, 1 PDF to ingest, \d+ calls, .*\$[0-9.]+$",
                     est.stdout, re.MULTILINE), est.stdout
    assert f"Total: {2 * DATAPOINTS} datapoints, " in est.stdout and not llm_server.requests
    as_json = last_json(cli(workspace, env, "batch", manifest.name, "--estimate", "--json"))
    assert as_json["estimated_cost_usd"] > 0 and [c["form"] for c in as_json["companies"]] == [True, True]

    # The batch, as a person reads it: one filled form per company, counted in run's words.
    ran = cli(workspace, env, "batch", manifest.name)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    lines = {c: re.search(rf"^  done +{re.escape(c)}: ({DATAPOINTS} datapoints: [^$]*), \$[0-9.]+, [0-9.]+ s$",
                          ran.stdout, re.MULTILINE) for c in (ALPHA, BETA)}
    assert all(lines.values()), ran.stdout
    assert "written" in lines[ALPHA].group(1) and "written" not in lines[BETA].group(1), ran.stdout
    outputs = {c: workspace / "reports_out" / f"vsme-small_{c.replace(' ', '_')}_filled.xlsx" for c in (ALPHA, BETA)}
    assert all(p.is_file() for p in outputs.values()), list((workspace / "reports_out").iterdir())
    ws = openpyxl.load_workbook(outputs[ALPHA])[ENV]
    assert ws["D5"].value == 1250 and ws["D9"].value == "YES" and ws["D10"].value == "Headcount"
    assert openpyxl.load_workbook(outputs[BETA])[ENV]["D5"].value is None
    assert (workspace / "vsme-small.xlsx").read_bytes() == form_bytes  # the input is only read

    # `autofill run` on the same company and form: the same counts in the same words.
    alone = cli(workspace, env, "run", "--company", ALPHA, "--questionnaire", "vsme-small.xlsx", "--year", "2024",
                "--out", "alone")
    assert alone.returncode == 0, alone.stderr
    assert f"({lines[ALPHA].group(1)})" in alone.stdout, (alone.stdout, lines[ALPHA].group(1))

    # The overview shows each company's datapoints with their values.
    overview = workspace / "reports_out" / "portfolio" / "portfolio_overview.xlsx"
    sheet = openpyxl.load_workbook(overview)["Portfolio"]
    head = [c.value for c in sheet[1]]
    alpha_row = next(r for r in sheet.iter_rows(min_row=2, values_only=True) if r[0] == ALPHA)
    assert alpha_row[head.index("Gross Scope 1 GHG emissions (tCO2e)")] == "1250", (head, alpha_row)
    companies = openpyxl.load_workbook(overview)["Companies"]
    chead = [c.value for c in companies[1]]
    crow = next(r for r in companies.iter_rows(min_row=2, values_only=True) if r[0] == ALPHA)
    assert crow[chead.index("Question rows")] == DATAPOINTS and crow[chead.index("Answered")] >= 5, (chead, crow)

    # Resumed: a finished form is not run again (no model call), its counts those of the run that did it.
    calls = len(llm_server.requests)
    again = last_json(cli(workspace, env, "batch", manifest.name, "--json"))
    assert len(llm_server.requests) == calls and again["cost_usd"] == 0
    assert again["rows"] == 2 * DATAPOINTS and again["outputs"][ALPHA] == str(outputs[ALPHA])
