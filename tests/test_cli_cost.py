"""What a run costs, said truly, through the real CLI in fresh processes (`python -m autofill`): a model
served by a loopback OpenAI-compatible server has cost *unknown* (never OpenAI's price, never $0) in
the run summary, `--json`, the Run info sheet, `ask` and `batch --estimate`, until the user prices it in
[cost.prices]; `batch --max-cost` refuses an unknown price before any call; an estimate without a
model says there is nothing to pay; `batch` says the same counts on stderr and stdout."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import openpyxl
import pytest

from tests import cli_process
from tests.answer_helpers import make_questionnaire
from tests.portfolio_helpers import (COMPANIES, QUESTIONS, entries, ingested_entries, model_env, price_loopback,
                                     responder, write_manifest)

ROOT = Path(__file__).resolve().parents[1]
COMPANY = COMPANIES[0]


def autofill(workspace: Path, env: dict[str, str], *args) -> subprocess.CompletedProcess:
    """One fresh `python -m autofill` process, with none of the caller's provider settings."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOFILL_", "OPENAI_", "COHERE_"))}
    return cli_process.run(["--workspace", str(workspace), *args], env={**clean, "PYTHONPATH": str(ROOT), **env},
                           timeout=300)


def last_json(proc: subprocess.CompletedProcess) -> dict:
    lines = proc.stdout.strip().splitlines()
    assert lines, (proc.returncode, proc.stdout, proc.stderr)
    return json.loads(lines[-1])


@pytest.fixture
def ingested(workspace, llm_server):
    """The sample report ingested for COMPANY (`autofill ingest`, the loopback embeddings), a copy of the
    test process's one ingest: these tests are about what runs cost, not about the ingest."""
    ingested_entries(workspace, companies=(COMPANY,))
    llm_server.responder = responder()
    return workspace


def run_info(path: str) -> dict:
    ws = openpyxl.load_workbook(path, read_only=True)["Run info"]
    return {row[0]: row[1] for row in ws.iter_rows(values_only=True) if row and row[0]}


def test_a_loopback_model_costs_unknown_until_priced(ingested, llm_server):
    # One row at a time: this test is about money; the threaded-import race of cold processes under load
    # (issue 22, item 1) has its own test.
    env = model_env(llm_server, AUTOFILL_LLM__CONCURRENCY="1")
    q = make_questionnaire(ingested / "questionnaire.xlsx")
    where = f"127.0.0.1:{llm_server.port}"

    proc = autofill(ingested, env, "run", "--company", COMPANY, "--questionnaire", q, "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)
    assert data["llm_calls"] == 3 * QUESTIONS and data["prompt_tokens"] > 0
    assert data["cost_usd"] is None  # not gpt-4o-mini's OpenAI price, not 0
    reason = data["cost_unknown_reason"]
    assert f"no price for gpt-4o-mini at {where}" in reason and '[cost.prices] "gpt-4o-mini"' in reason
    assert all(s["cost_usd"] is None for s in data["stages"].values() if s["calls"])
    info = run_info(data["output"])
    assert info["total cost usd"] == "unknown" and info["answer cost usd"] == "unknown"
    assert where in info["cost unknown because"]

    proc = autofill(ingested, env, "run", "--company", COMPANY, "--questionnaire", q, "--fresh", "--no-cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    llm = next(line for line in proc.stdout.splitlines() if line.startswith("LLM:"))
    assert llm.startswith(f"LLM: {3 * QUESTIONS} calls (0 from cache)") and f"cost unknown (no price for gpt-4o-mini at {where}" in llm
    assert "$" not in proc.stdout

    asked = autofill(ingested, env, "ask", "--company", COMPANY, "What share of electricity was renewable?", "--json")
    assert asked.returncode == 0, asked.stderr
    a = last_json(asked)
    assert a["llm_calls"] + a["cached_calls"] == 3 and a["cost_usd"] is None and where in a["cost_unknown_reason"]

    # Priced by the user: the same calls now cost their tokens at that price.
    price_loopback(ingested)
    proc = autofill(ingested, env, "run", "--company", COMPANY, "--questionnaire", q, "--fresh", "--no-cache", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = last_json(proc)
    assert data["cost_unknown_reason"] is None
    assert data["cost_usd"] == pytest.approx((data["prompt_tokens"] * 0.15 + data["completion_tokens"] * 0.60) / 1e6,
                                             abs=1e-6)
    assert data["cost_usd"] > 0 and run_info(data["output"])["total cost usd"] == pytest.approx(data["cost_usd"])


def test_batch_estimate_and_cap_with_an_unknown_price(workspace, llm_server):
    manifest = write_manifest(workspace, entries(workspace))
    env = model_env(llm_server)

    proc = autofill(workspace, env, "batch", manifest, "--estimate")
    assert proc.returncode == 0, proc.stderr
    total = proc.stdout.strip().splitlines()[-1]
    assert total.startswith(f"Total: {3 * QUESTIONS} rows, {3 * QUESTIONS * 3} calls") and "cost unknown (no price for" in total
    assert "$" not in proc.stdout
    data = last_json(autofill(workspace, env, "batch", manifest, "--estimate", "--json"))
    assert data["estimated_cost_usd"] is None and "[cost.prices]" in data["cost_unknown_reason"]
    assert data["unpriced_models"] == ["gpt-4o-mini"] and not data["evidence_only"]

    # A cap cannot be kept without a price: one line, exit 2, no call made, nothing ingested.
    proc = autofill(workspace, env, "batch", manifest, "--max-cost", "1")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "--max-cost cannot be kept: no price for gpt-4o-mini" in proc.stderr
    assert "[cost.prices]" in proc.stderr and "nothing was spent" in proc.stderr
    assert llm_server.chat_requests() == [] and llm_server.embedding_requests() == []

    # Without a cap it runs, and every place that shows money says the cost is unknown. (The reports stored
    # first, a copy of the test process's one ingest: the refusal above ran before anything was stored.)
    ingested_entries(workspace)
    llm_server.responder = responder()
    serial = {**env, "AUTOFILL_LLM__CONCURRENCY": "1", "AUTOFILL_PORTFOLIO__COMPANIES_AT_ONCE": "1"}  # see above
    proc = autofill(workspace, serial, "batch", manifest, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = last_json(proc)
    assert data["answered"] == 3 * QUESTIONS and data["cost_usd"] is None and data["estimated_cost_usd"] is None
    assert "no price for gpt-4o-mini" in data["cost_unknown_reason"]
    out = Path(data["portfolio"]).parent
    assert "Cost unknown (no price for gpt-4o-mini" in (out / "index.html").read_text(encoding="utf-8")
    sheet = openpyxl.load_workbook(data["portfolio"], read_only=True)["Companies"]
    header, *rows = list(sheet.iter_rows(values_only=True))
    assert {row[header.index("Cost (USD)")] for row in rows} == {"unknown"}

    price_loopback(workspace)  # priced: a fresh output folder's estimate (the run above is up to date)
    data = last_json(autofill(workspace, env, "batch", manifest, "--estimate", "--json", "--out", workspace / "again"))
    assert data["estimated_cost_usd"] > 0 and data["cost_unknown_reason"] is None and data["unpriced_models"] == []


def test_estimate_without_a_model_says_nothing_to_pay(workspace):
    manifest = write_manifest(workspace, entries(workspace))
    proc = autofill(workspace, {}, "batch", manifest, "--estimate")  # no key, no base URL: no model
    assert proc.returncode == 0, proc.stderr
    assert "$0.0000" not in proc.stdout and "$" not in proc.stdout
    assert f"Total: {3 * QUESTIONS} rows. No model is configured: rows are drafted from evidence only" in proc.stdout
    assert "nothing to pay" in proc.stdout
    for company in COMPANIES:
        assert f"{company}: {QUESTIONS} rows, 1 PDF to ingest, evidence-only drafts (no model configured): " \
               "no model calls, nothing to pay" in proc.stdout
    data = last_json(autofill(workspace, {}, "batch", manifest, "--estimate", "--json"))
    assert data["evidence_only"] and data["calls"] == 0 and data["estimated_cost_usd"] == 0
    assert all(c["model"] is None and c["evidence_only"] for c in data["companies"])


def test_batch_says_the_same_counts_on_stderr_and_stdout(workspace, llm_server):
    """Evidence-only drafts (embeddings from the loopback server, no chat model): the per-company line on
    stderr used to say "15 rows answered" while the summary said "0 answered, 15 drafted"."""
    manifest = write_manifest(workspace, ingested_entries(workspace))  # the counts' words, not the ingest
    env = model_env(llm_server, AUTOFILL_LLM__PROVIDER="none")
    proc = autofill(workspace, env, "batch", manifest)
    assert proc.returncode == 0, proc.stderr
    assert llm_server.chat_requests() == []
    assert "answered" in proc.stderr and "rows answered" not in proc.stderr
    for company in COMPANIES:
        err = re.search(rf"{re.escape(company)}: done, (.*)$", proc.stderr, re.MULTILINE)
        out = re.search(rf"done\s+{re.escape(company)}: (.*)$", proc.stdout, re.MULTILINE)
        assert err and out, (proc.stderr, proc.stdout)
        assert err.group(1).startswith(f"0 answered, {QUESTIONS} drafted")
        assert out.group(1).startswith(err.group(1))  # same words and counts (stdout adds the seconds)
    total = proc.stdout.strip().splitlines()
    assert any(f"{3 * QUESTIONS} rows: 0 answered, {3 * QUESTIONS} drafted" in line and "nothing to pay" in line
               for line in total), proc.stdout
