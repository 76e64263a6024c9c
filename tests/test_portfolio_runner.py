"""`autofill batch` end to end: the real openai SDK against the loopback server for chat and
embeddings, real PDFs, real Chroma stores, real workbooks. Three companies from each manifest format;
a failing company; --estimate without a call; the cost cap and the run that finishes the rest; a
re-run that redoes nothing; resume after the process is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from autofill.records import LLM_STAGES
from autofill.cli import cli
from autofill.review.reader import read_filled_workbook
from autofill.states import parse_tier
from tests import cli_process
from tests.answer_helpers import FACTS
from tests.pdf_factory import make_corrupt_pdf
from tests.portfolio_helpers import (COMPANIES, QUESTIONS, check_unreadable_rows, entries, ingested_entries, model_env,
                                     price_loopback, responder, write_manifest)
from tests.workbook_builders import build_questionnaire

BATCH_KEYS = ["companies", "succeeded", "incomplete", "failed", "new_documents", "rows", "answered", "drafted",
              "unparsed_rows", "failed_rows", "not_written_rows", "pending_rows", "skipped_rows", "reused_rows",
              "cost_usd", "estimated_cost_usd", "cost_unknown_reason", "portfolio", "outputs", "stages", "seconds",
              "engine"]
ROOT = Path(__file__).resolve().parents[1]


def batch(workspace, server, *args, **env):
    price_loopback(workspace)  # the cost cap needs a price (batch --max-cost refuses an unknown one)
    result = CliRunner(env=model_env(server, **env)).invoke(
        cli, ["--workspace", str(workspace), "batch", *map(str, args), "--json"])
    lines = result.stdout.strip().splitlines()
    assert lines, (result.exit_code, result.output, result.exception)
    return result.exit_code, json.loads(lines[-1]), result


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "toml"])
def test_three_companies_then_a_rerun_that_redoes_nothing(workspace, llm_server, fmt):
    llm_server.responder = responder()
    # The .csv batch ingests the three reports; the others find them stored (a copy of the test process's one
    # ingest, ingested_entries): a manifest's format changes how its entries are read, not the ingest.
    ingests = fmt == "csv"
    rows = entries(workspace) if ingests else ingested_entries(workspace)
    # The third company answers the same questions in another order and spelling: matched by text.
    variant = workspace / "questionnaire_v2.xlsx"
    build_questionnaire(variant, questions=[("Climate", f.question.lower().rstrip("?") + " ?", f.form, f.dropdown)
                                            for f in reversed(FACTS)], extras=False)
    rows[2]["questionnaire"] = variant.name
    rows[2]["output"] = "gamma.xlsx"
    manifest = write_manifest(workspace, rows, fmt)

    code, data, result = batch(workspace, llm_server, manifest)
    assert code == 0 and list(data) == BATCH_KEYS, result.output
    assert (data["companies"], data["succeeded"], data["failed"], data["new_documents"]) == (3, 3, 0, 3 if ingests else 0)
    assert (data["rows"], data["answered"], data["drafted"], data["failed_rows"], data["pending_rows"]) == \
        (3 * QUESTIONS, 3 * QUESTIONS, 0, 0, 0)
    assert data["cost_usd"] > 0 and data["estimated_cost_usd"] > 0
    assert len(llm_server.chat_requests()) == 3 * QUESTIONS * 3  # HyDE, rerank, answer per row
    # Usage by stage per company: one call of each stage per row, the tokens adding up to the total.
    assert list(data["stages"]) == list(COMPANIES)
    for company, stages in data["stages"].items():
        assert list(stages) == list(LLM_STAGES)
        assert {s: u["calls"] for s, u in stages.items()} == {"hyde": QUESTIONS, "multiquery": 0, "rerank": QUESTIONS, "answer": QUESTIONS, "verify": 0}, company
        assert all(stages[s]["prompt_tokens"] > 0 and stages[s]["completion_tokens"] > 0 for s in ("hyde", "rerank", "answer"))
    assert round(sum(u["cost_usd"] for st in data["stages"].values() for u in st.values()), 4) == round(data["cost_usd"], 4)
    outputs = data["outputs"]
    assert list(outputs) == list(COMPANIES) and Path(outputs["Gamma Energy"]).name == "gamma.xlsx"
    assert all(Path(p).is_file() for p in outputs.values())

    book = openpyxl.load_workbook(data["portfolio"])
    ws = book["Portfolio"]
    assert [ws.cell(row=r, column=1).value for r in range(1, 5)] == ["Company", *COMPANIES]
    assert ws.max_column == 1 + QUESTIONS  # same questions, one column each, across both questionnaires
    col = next(c for c in range(2, ws.max_column + 1) if "renewable electricity" in ws.cell(row=1, column=c).value)
    assert [ws.cell(row=r, column=col).value for r in (2, 3)] == ["46% in FY2024."] * 2
    # Coloured by the answer's trust tier, as the company's own workbook states it.
    tiers = {q.question: q.tier for q in read_filled_workbook(Path(outputs["Alpha Mining"])).questions}
    tier = parse_tier(next(t for q, t in tiers.items() if "renewable electricity" in q))
    assert tier is not None and ws.cell(row=2, column=col).fill.fgColor.rgb.endswith(tier.fill)
    companies = book["Companies"]
    head = [c.value for c in companies[1]]
    alpha = dict(zip(head, [c.value for c in companies[2]]))
    assert (alpha["Status"], alpha["Documents"], alpha["Answered"], alpha["Pending"], alpha["Year"]) == \
        ("done", 1, QUESTIONS, 0, "2024")
    link = companies.cell(row=2, column=head.index("Review report") + 1).hyperlink.target
    assert (Path(data["portfolio"]).parent / link).is_file()
    index = (Path(data["portfolio"]).parent / "index.html").read_text()
    assert index.count("review report</a>") == 3 and "Gamma Energy" in index

    before = len(llm_server.requests)
    code, again, _ = batch(workspace, llm_server, manifest)
    assert code == 0 and len(llm_server.requests) == before  # no chat, no embedding call
    assert (again["new_documents"], again["answered"], again["cost_usd"], again["estimated_cost_usd"]) == \
        (0, 3 * QUESTIONS, 0, 0)
    assert again["stages"] == {}  # up to date: nothing run, nothing spent


def test_a_failing_company_does_not_stop_the_others(workspace, llm_server):
    llm_server.responder = responder()
    rows = ingested_entries(workspace)  # the good reports stored: what fails is what this batch ingests or reads
    make_corrupt_pdf(workspace / "reports" / "beta" / "Beta scan.pdf")  # Beta's folder now holds a bad PDF
    rows[1]["reports"] = "reports/beta"
    (workspace / "broken.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    rows[2]["questionnaire"] = "broken.xlsx"
    code, data, result = batch(workspace, llm_server, write_manifest(workspace, rows))
    assert code == 1 and (data["succeeded"], data["failed"]) == (1, 2)
    assert data["answered"] == QUESTIONS and data["outputs"]["Beta Metals"] is None
    assert "Beta scan.pdf" in result.stderr and "Gamma Energy" in result.stderr
    book = openpyxl.load_workbook(data["portfolio"])
    statuses = [c.value for c in book["Companies"]["B"]][1:]
    assert statuses == ["done", "failed", "failed"]
    head = [c.value for c in book["Companies"][1]]
    assert "Beta scan.pdf" in book["Companies"].cell(row=3, column=head.index("Error") + 1).value
    # Beta's bad PDF stopped it before any model call: only Alpha's rows were asked.
    assert len(llm_server.chat_requests()) == QUESTIONS * 3


def test_estimate_makes_no_call(workspace, llm_server):
    manifest = write_manifest(workspace, entries(workspace))
    code, data, _ = batch(workspace, llm_server, manifest, "--estimate")
    assert code == 0 and llm_server.requests == []
    assert not (workspace / "vectordb" / "chroma.sqlite3").exists()  # nothing ingested either
    assert not (workspace / "reports_out").exists()  # nor any folder made
    assert (data["rows"], data["calls"]) == (3 * QUESTIONS, 3 * QUESTIONS * 3)
    assert data["prompt_tokens"] > 3 * QUESTIONS * 1000 and data["estimated_cost_usd"] > 0
    assert [c["documents_to_ingest"] for c in data["companies"]] == [1, 1, 1]
    text = CliRunner(env=model_env(llm_server)).invoke(cli, ["--workspace", str(workspace), "batch", str(manifest),
                                                             "--estimate"]).stdout
    assert "Total: 15 rows, 45 calls" in text and llm_server.requests == []


def test_cap_leaves_rows_pending_and_the_next_run_finishes_them(workspace, llm_server):
    llm_server.responder = responder()
    manifest = write_manifest(workspace, entries(workspace))
    _, est, _ = batch(workspace, llm_server, manifest, "--estimate")
    per_row = est["estimated_cost_usd"] / est["rows"]
    code, capped, _ = batch(workspace, llm_server, manifest, "--max-cost", per_row * 1.5, AUTOFILL_LLM__CONCURRENCY="1")
    assert code == 0
    assert capped["pending_rows"] > 0 and 0 < capped["answered"] < 3 * QUESTIONS
    assert capped["answered"] + capped["pending_rows"] == 3 * QUESTIONS
    assert capped["cost_usd"] <= per_row * 1.5
    book = openpyxl.load_workbook(capped["portfolio"])
    cells = [c.value for row in book["Portfolio"].iter_rows(min_row=2, min_col=2) for c in row if c.value]
    assert "(pending)" in cells
    asked = len(llm_server.chat_requests())
    assert asked == capped["answered"] * 3

    code, done, _ = batch(workspace, llm_server, manifest)
    # The rows answered before are kept in the output (a living document): this run answers the rest.
    assert code == 0 and (done["answered"], done["pending_rows"]) == (3 * QUESTIONS - capped["answered"], 0)
    assert done["new_documents"] == 0
    assert len(llm_server.chat_requests()) == 3 * QUESTIONS * 3  # no finished row was asked again


def test_contextualising_is_priced_before_it_starts_and_held_to_the_cap(workspace, llm_server):
    llm_server.responder = responder()
    manifest = write_manifest(workspace, entries(workspace))
    on = {"AUTOFILL_INGEST__CONTEXTUALIZE": "true"}
    _, plain, _ = batch(workspace, llm_server, manifest, "--estimate")
    _, est, _ = batch(workspace, llm_server, manifest, "--estimate", **on)
    assert llm_server.requests == []
    ctx = [c["ingest_cost_usd"] for c in est["companies"]]
    assert all(c > 0 for c in ctx) and est["calls"] > plain["calls"]
    assert est["estimated_cost_usd"] == pytest.approx(plain["estimated_cost_usd"] + sum(ctx), rel=1e-6)

    # A cap below the first company's contextualising: nothing is ingested and no call is made.
    code, capped, result = batch(workspace, llm_server, manifest, "--max-cost", min(ctx) / 2, **on)
    assert llm_server.requests == [] and capped["answered"] == 0 and capped["new_documents"] == 0
    assert "more than is left of --max-cost" in result.stderr

    code, done, _ = batch(workspace, llm_server, manifest, **on)
    assert code == 0 and done["answered"] == 3 * QUESTIONS
    per_company = done["stages"].values()
    contextualised = sum(stages["contextualize"]["calls"] for stages in per_company)
    assert all(stages["contextualize"]["calls"] > 0 for stages in per_company)
    assert contextualised + 3 * QUESTIONS * 3 == len(llm_server.chat_requests())
    costs = [s["cost_usd"] for stages in per_company for s in stages.values()]
    # The total and each stage are rounded to 6 decimals on their own: equal within half a unit of each.
    assert done["cost_usd"] == pytest.approx(sum(costs), abs=0.5e-6 * (len(costs) + 1))


def test_without_a_model_rows_are_drafted_for_nothing(workspace, llm_server):
    manifest = write_manifest(workspace, ingested_entries(workspace))
    code, data, _ = batch(workspace, llm_server, manifest, "--companies", "Beta Metals",
                          AUTOFILL_LLM__PROVIDER="none", AUTOFILL_RUN__CONFIRM_ROWS="1")  # drafts need no consent
    assert code == 0 and (data["companies"], data["answered"], data["drafted"]) == (1, 0, QUESTIONS)
    assert (data["cost_usd"], data["estimated_cost_usd"]) == (0, 0) and llm_server.chat_requests() == []
    cells = list(openpyxl.load_workbook(data["portfolio"])["Portfolio"][2])[1:]
    assert len(cells) == QUESTIONS and all(c.value for c in cells)
    assert all(c.fill.fgColor.rgb.endswith("DDEBF7") for c in cells)  # coloured as evidence-only drafts


def test_consent_needed_for_a_large_portfolio(workspace, llm_server):
    manifest = write_manifest(workspace, entries(workspace))
    code, _, result = (lambda r: (r.exit_code, None, r))(CliRunner(env=model_env(llm_server, AUTOFILL_RUN__CONFIRM_ROWS="10")).invoke(
        cli, ["--workspace", str(workspace), "batch", str(manifest)]))
    assert code == 2 and "pass --yes" in result.stderr and "15 rows" in result.stderr
    assert llm_server.requests == []


def test_resume_after_the_process_is_killed(workspace, llm_server, tmp_path):
    llm_server.responder = responder()
    llm_server.latency_s = 0.3
    manifest = write_manifest(workspace, ingested_entries(workspace))  # about the answers' resume, not the ingest
    env = {**os.environ, **model_env(llm_server, AUTOFILL_LLM__CONCURRENCY="2"), "PYTHONPATH": str(ROOT)}
    cmd = ["--workspace", str(workspace), "batch", str(manifest), "--json"]
    proc = cli_process.popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False)
    checkpoints = workspace / "reports_out" / ".checkpoints"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        lines = sum(len(p.read_text().splitlines()) for p in checkpoints.glob("*.jsonl")) if checkpoints.is_dir() else 0
        if lines >= 3:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = sum(len(p.read_text().splitlines()) for p in checkpoints.glob("*.jsonl"))
    assert 3 <= done_before < 3 * QUESTIONS
    answers_before = len(llm_server.chat_requests("single JSON object"))

    llm_server.latency_s = 0.0
    code, data, _ = batch(workspace, llm_server, manifest)
    assert code == 0 and (data["answered"], data["pending_rows"]) == (3 * QUESTIONS, 0)
    # Rows finished before the kill came from the checkpoint: at most the rows left were answered again.
    assert len(llm_server.chat_requests("single JSON object")) - answers_before <= 3 * QUESTIONS - done_before
    assert len(list(checkpoints.glob("*.jsonl"))) == 0  # complete: checkpoints removed


def test_unreadable_replies_are_counted_as_run_counts_them_and_asked_again(workspace, llm_server):
    check_unreadable_rows(workspace, llm_server, "local", stored=True)  # about the counts: not the ingest


def test_a_workbook_in_an_earlier_batch_folder_is_continued_where_run_writes(workspace, llm_server):
    """Batches before this one kept their own copy of each workbook in the portfolio folder: the first batch
    now continues that copy where `run` writes, with the reviewer's decisions in it."""
    manifest = write_manifest(workspace, ingested_entries(workspace, companies=COMPANIES[:1]))
    drafts = {"AUTOFILL_LLM__PROVIDER": "none", "AUTOFILL_RUN__CONFIRM_ROWS": "1"}
    code, data, _ = batch(workspace, llm_server, manifest, **drafts)
    assert code == 0
    output = Path(data["outputs"][COMPANIES[0]])
    folder = Path(data["portfolio"]).parent
    earlier = folder / output.name  # as an earlier version left it: in the portfolio folder, recorded there
    output.rename(earlier)
    state = json.loads((folder / ".portfolio-state.json").read_text())
    state["companies"][COMPANIES[0]]["output"] = str(earlier)
    (folder / ".portfolio-state.json").write_text(json.dumps(state))
    book = openpyxl.load_workbook(earlier)
    ws = book["Questionnaire"]
    heads = {ws.cell(row=3, column=c).value: c for c in range(1, ws.max_column + 1)}
    first = next(r for r in range(4, ws.max_row + 1) if ws.cell(row=r, column=heads["Question"]).value)
    ws.cell(row=first, column=heads["Review"], value="Approved")
    book.save(earlier)

    code, again, _ = batch(workspace, llm_server, manifest, **drafts)
    assert code == 0 and again["outputs"][COMPANIES[0]] == str(output) and earlier.is_file()
    assert [q.review for q in read_filled_workbook(output).questions].count("Approved") == 1
    head, row = list(openpyxl.load_workbook(again["portfolio"])["Companies"].iter_rows(values_only=True))
    assert dict(zip(head, row))["Approved"] == 1
