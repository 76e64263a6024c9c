"""`autofill ask`: one question answered from a company's store with its cited pages, no workbook;
with a model (HyDE, rerank, answer through the real openai SDK on loopback) and without one
(an evidence-only draft quoting pages)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from autofill.cli import cli
from tests.answer_helpers import FACTS, SAMPLE
from tests.pdf_factory import make_sample_company_pdf
from tests.portfolio_helpers import model_env, responder


def invoke(workspace, env, *args):
    return CliRunner(env=env).invoke(cli, ["--workspace", str(workspace), *map(str, args)])


@pytest.fixture
def ingested(workspace, llm_server):
    pdf = make_sample_company_pdf(workspace / SAMPLE)
    result = invoke(workspace, model_env(llm_server), "ingest", "--company", "Northwind Metals", pdf, "--json")
    assert result.exit_code == 0, result.output
    llm_server.reset()
    return workspace


def test_ask_with_a_model_cites_the_page(ingested, llm_server):
    llm_server.responder = responder()
    fact = FACTS[2]  # renewable electricity share, p. 5
    result = invoke(ingested, model_env(llm_server), "ask", "--company", "Northwind Metals", fact.question,
                    "--form", fact.form, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["answer"] == fact.answer and data["status"] == "Answered" and not data["evidence_only"]
    assert data["citations"] == [{"file": SAMPLE, "page": fact.page}]
    assert data["llm_calls"] == 3 and len(llm_server.chat_requests()) == 3
    assert any(fact.phrase in p["text"] for p in data["passages"])
    host = llm_server.base_url.split("//")[1].split("/")[0]
    assert data["plan"]["model"] == "gpt-4o-mini" and data["plan"]["endpoint"] == host
    plain = invoke(ingested, model_env(llm_server), "ask", "--company", "Northwind Metals", fact.question)
    text = plain.stdout
    assert text.startswith(fact.answer) and f"Cited: {SAMPLE} p. {fact.page}" in text
    # The first thing said (stderr): model, endpoint host (never the key), retrieval and reranker.
    assert plain.stderr.splitlines()[0] == \
        f"Using model gpt-4o-mini (openai) at {host}; retrieval hyde+hybrid, reranker llm; " \
        "questionnaire in English; 1 document in English"  # ask names the languages as run does
    assert "sk-test" not in plain.stderr + plain.stdout + result.stdout
    assert not list(ingested.rglob("*_filled.xlsx"))  # no workbook


def test_ask_without_a_model_drafts_from_evidence(ingested, llm_server):
    env = model_env(llm_server, AUTOFILL_LLM__PROVIDER="none")
    fact = FACTS[1]
    result = invoke(ingested, env, "ask", "--company", "Northwind Metals", fact.question, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["evidence_only"] and data["status"].startswith("Evidence only") and data["llm_calls"] == 0
    assert any(c["page"] == fact.page for c in data["citations"])
    assert llm_server.chat_requests() == []


def test_ask_bad_input(ingested, llm_server):
    env = model_env(llm_server)
    result = invoke(ingested, env, "ask", "--company", "Nobody", "Any question?")
    assert result.exit_code == 2 and "no evidence store for company 'Nobody'" in result.stderr
    result = invoke(ingested, env, "ask", "--company", "Northwind Metals", "   ")
    assert result.exit_code == 2 and "the question is empty" in result.stderr
    assert llm_server.chat_requests() == []


@pytest.mark.slow  # fresh `autofill` processes: a run's cold imports and model load each
def test_ask_takes_model_and_k_and_prints_tier_and_cost_lines_in_a_fresh_process(ingested, llm_server):
    """As `run` does: `--model` picks the chat model, `-k` the passages the answer step sees, and the
    output ends with the row's tier and the model usage line (cost unknown on a loopback server)."""
    from tests.answer_helpers import kind_of, passages_in
    from tests.llm_server import last_user_text
    from tests.test_cli_cost import autofill, last_json

    llm_server.responder = responder()
    fact = FACTS[2]
    env = model_env(llm_server)
    proc = autofill(ingested, env, "ask", "--company", "Northwind Metals", fact.question, "--form", fact.form,
                    "--model", "gpt-4.1-mini", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    chats = llm_server.chat_requests()
    assert [kind_of(r.json) for r in chats] == ["hyde", "rerank", "answer"]
    assert {r.json["model"] for r in chats} == {"gpt-4.1-mini"}
    assert len(passages_in(last_user_text(chats[2].json))) == 3
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == fact.answer and "Tier: Ready" in lines
    assert lines[-1].startswith("LLM: 3 calls (0 from cache), ") and lines[-1].endswith(
        'cost unknown (no price for gpt-4.1-mini at 127.0.0.1:%d (list prices apply only at the provider\'s own '
        'endpoint); set [cost.prices] "gpt-4.1-mini" = [input, output] (USD per million tokens) in autofill.toml)'
        % llm_server.port)

    data = last_json(autofill(ingested, env, "ask", "--company", "Northwind Metals", fact.question,
                              "--form", fact.form, "--model", "gpt-4.1-mini", "-k", "3", "--json"))
    assert data["model"] == "gpt-4.1-mini" and data["tier"] == "Ready" and data["checks"] is None
    assert (data["llm_calls"], data["cached_calls"]) == (0, 3) and data["cost_usd"] == 0  # all from the cache
    assert data["stages"]["answer"]["cached_calls"] == 1

    # Without a model: a draft, its tier, and a plain word that there is nothing to pay.
    draft = autofill(ingested, model_env(llm_server, AUTOFILL_LLM__PROVIDER="none"), "ask", "--company",
                     "Northwind Metals", fact.question)
    assert draft.returncode == 0, draft.stderr
    assert "Tier: " in draft.stdout
    assert draft.stdout.strip().splitlines()[-1] == "LLM: none configured (evidence-only drafts): no model calls, nothing to pay"
