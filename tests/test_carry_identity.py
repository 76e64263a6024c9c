"""Output identity (workbook/record.py, answer/checkpoint.safe_name, portfolio collision check), through
the real CLI in fresh processes: two companies named in Japanese script on one questionnaire fill two
workbooks, each with its own answers and its own recorded company; a workbook made for one company is
never continued or overwritten by another's run; `batch` refuses a manifest whose outputs collide."""

from __future__ import annotations

import csv
import shlex

import openpyxl
import pytest

from autofill.answer.checkpoint import safe_name
from autofill.workbook.record import RECORD_SHEET, made_for
from tests.answer_helpers import read_output
from tests.rows_helpers import cli, company_reports, env_for, last_json, questionnaire, responder

TOKYO, KANSAI = "東京電力", "関西電力"
FIGURES = {TOKYO: (31, 1200), KANSAI: (58, 3400)}


def test_safe_name_is_unique_and_readable():
    assert safe_name(TOKYO) == TOKYO and safe_name(KANSAI) == KANSAI  # letters of any script stay
    assert safe_name("Northwind Metals") == "Northwind_Metals"  # earlier outputs keep their names
    lossy = [safe_name(n) for n in ("AT&T", "AT T", "AT_T", "AT/T", "x" * 60, "x" * 60 + "y")]
    assert len(set(lossy)) == len(lossy)
    assert safe_name("AT&T") == safe_name("AT&T") and safe_name("AT&T").startswith("AT_T-")
    assert "/" not in safe_name("a/../b") and ".." != safe_name("..")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    questionnaire(root / "q12.xlsx")
    for company, (renewable, employees) in FIGURES.items():
        company_reports(root / "reports" / safe_name(company), company, renewable, employees)
    return root


def _ingest(root, env):
    for company in FIGURES:
        proc = cli(root, env, "ingest", "--company", company, f"reports/{safe_name(company)}", "--json")
        assert proc.returncode == 0, proc.stderr


def _answers(path):
    out = read_output(path)
    return [row["Answer"] for row in out["rows"].values()], out


@pytest.mark.slow  # fresh `autofill` processes: a run's cold imports and model load each
def test_two_companies_in_japanese_script_fill_two_workbooks(workspace, llm_server):
    llm_server.responder = responder()
    env = env_for(llm_server)
    _ingest(workspace, env)
    outputs = {}
    for company, (renewable, employees) in FIGURES.items():
        proc = cli(workspace, env, "run", "--company", company, "--questionnaire", "q12.xlsx", "--json")
        assert proc.returncode == 0, proc.stderr
        data = last_json(proc)
        assert data["answered"] == 2, data
        outputs[company] = data["output"]
        answers, out = _answers(data["output"])
        assert answers == [f"{renewable}% in FY2024.", f"{employees:,} in FY2024."]
        assert {e["File"] for e in out["evidence"]} == {f"report {renewable}-{employees}.pdf"}
        assert out["info"]["company"] == company and out["info"]["evidence store"]
        recorded = made_for(data["output"])
        assert recorded["company"] == company and recorded["questionnaire"] == "q12.xlsx"
        wb = openpyxl.load_workbook(data["output"])
        assert wb[RECORD_SHEET].sheet_state == "veryHidden"
    assert len(set(outputs.values())) == 2 and all(safe_name(c) in outputs[c] for c in FIGURES)

    # A second run of the first company continues its own workbook: nothing answered again.
    before = len(llm_server.chat_requests())
    proc = cli(workspace, env, "run", "--company", TOKYO, "--questionnaire", "q12.xlsx", "--json")
    assert proc.returncode == 0 and last_json(proc)["answered"] == 0
    assert len(llm_server.chat_requests()) == before

    # Pointing one company's run at the other's workbook: exit 2, one line, no model call, file untouched.
    theirs = outputs[TOKYO]
    stamp = open(theirs, "rb").read()
    proc = cli(workspace, env, "run", "--company", KANSAI, "--questionnaire", theirs)
    assert proc.returncode == 2
    assert f"made for company {TOKYO!r}, not {KANSAI!r}" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert len(llm_server.chat_requests()) == before and open(theirs, "rb").read() == stamp
    # Its advice is a command that works: the run from the customer's questionnaire (not --out elsewhere,
    # which met the same refusal).
    advice = proc.stderr.strip().rsplit(": ", 1)[1]
    assert advice == f"autofill run --company {shlex.quote(KANSAI)} --questionnaire q12.xlsx", proc.stderr
    args = shlex.split(advice)[1:]
    proc = cli(workspace, env, *args, "--json")
    assert proc.returncode == 0 and last_json(proc)["output"] == outputs[KANSAI], proc.stderr
    assert open(theirs, "rb").read() == stamp


def _manifest(root, rows):
    path = root / "portfolio.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["company", "reports", "questionnaire", "output", "year"])
        w.writeheader()
        w.writerows(rows)
    return path


def test_batch_fills_one_workbook_per_company_and_refuses_collisions(workspace, llm_server):
    llm_server.responder = responder()
    env = env_for(llm_server, AUTOFILL_RUN__CONFIRM_ROWS="1000")
    rows = [{"company": c, "reports": f"reports/{safe_name(c)}", "questionnaire": "q12.xlsx", "output": "",
             "year": "2024"} for c in FIGURES]
    before = len(llm_server.chat_requests())
    proc = cli(workspace, env, "batch", _manifest(workspace, rows), "--json", "--yes")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)
    # Each company's workbook is the one `run` writes (and the test above wrote): continued, never copied.
    assert data["answered"] + data["skipped_rows"] == 4 and len(set(data["outputs"].values())) == 2, data
    assert len(llm_server.chat_requests()) - before == 3 * data["answered"]  # kept rows asked nothing
    for company in FIGURES:
        assert data["outputs"][company] == str(workspace / "reports_out" / f"q12_{safe_name(company)}_filled.xlsx")
    for company, (renewable, employees) in FIGURES.items():
        answers, _ = _answers(data["outputs"][company])
        assert answers == [f"{renewable}% in FY2024.", f"{employees:,} in FY2024."]
        assert made_for(data["outputs"][company])["company"] == company

    # Two companies sent to one output file (spelled in two cases): refused before anything runs.
    calls = len(llm_server.requests)
    rows[0]["output"], rows[1]["output"] = "shared.xlsx", "SHARED.xlsx"
    proc = cli(workspace, env, "batch", _manifest(workspace, rows), "--json", "--yes")
    assert proc.returncode == 2 and len(llm_server.requests) == calls
    errors = [ln for ln in proc.stderr.splitlines() if "would all write" in ln]
    assert len(errors) == 1 and TOKYO in errors[0] and KANSAI in errors[0]
