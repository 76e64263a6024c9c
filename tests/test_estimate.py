"""Pricing before paying: tokens from the rendered prompts with a characters-per-token ratio, the
ratio refined from the usage the API reports (remembered in the workspace), cost from the price
table, and the consent rule for large paid runs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from autofill.answer.generate import answer_messages
from autofill.search.hyde import hyde_messages
from autofill.cli import cli
from autofill.portfolio.estimate import calibrate, calibration_path, estimate_rows, row_prompt_chars
from autofill.portfolio.plan import consent_reason
from autofill.records import QuestionRow, StageUsage
from autofill.settings import Settings
from tests.answer_helpers import make_questionnaire
from tests.portfolio_helpers import model_env

ROW = QuestionRow(sheet="Q", row=4, question="Does the company have a net zero target for Scope 1 and 2?",
                  form_of_answer="Yes/No and a short explanation")


def test_tokens_come_from_the_rendered_prompts(workspace):
    s = Settings(workspace=workspace)
    chars = row_prompt_chars(s, "Acme", ROW, mode="hyde", rerank="llm")
    hyde = sum(len(m.content) for m in hyde_messages(s, "Acme", ROW))
    assert chars["hyde"] == (1, hyde)
    assert chars["rerank"][0] == 1 and chars["rerank"][1] > 30 * 900  # 30 candidates of ~1,000 characters
    assert 6 * 1000 < chars["answer"][1] < chars["rerank"][1]
    # A bigger chunk size means longer prompts; a small store caps the candidates.
    s.ingest.chunk_chars = 2000
    assert row_prompt_chars(s, "Acme", ROW, "hyde", "llm")["answer"][1] > chars["answer"][1] + 5000
    assert row_prompt_chars(s, "Acme", ROW, "hyde", "llm", chunks=4)["rerank"][1] < chars["rerank"][1] / 3
    # Without HyDE or an LLM reranker those calls are not counted.
    assert set(row_prompt_chars(s, "Acme", ROW, "hybrid", "none")) == {"answer"}


def test_cost_from_the_price_table_and_no_model_no_cost(workspace):
    s = Settings(workspace=workspace)
    s.cost.prices = {"m-1": [1.0, 10.0]}
    est = estimate_rows(s, "Acme", [ROW, ROW], "m-1", "hyde", "llm")
    assert (est.rows, est.calls) == (2, 6)
    chars = row_prompt_chars(s, "Acme", ROW, "hyde", "llm")
    assert est.stages["answer"].prompt_tokens == round(2 * chars["answer"][1] / 4.0)
    assert est.cost_usd == pytest.approx((est.prompt_tokens * 1.0 + est.completion_tokens * 10.0) / 1e6)
    assert est.priced and not estimate_rows(s, "Acme", [ROW], "other", "hyde", "llm").priced
    # A large questionnaire is priced from a sample of its rows, scaled: same figures per row.
    many = estimate_rows(s, "Acme", [ROW] * 1000, "m-1", "hyde", "llm")
    assert many.calls == 3000 and many.prompt_tokens == pytest.approx(500 * est.prompt_tokens, rel=0.001)
    none = estimate_rows(s, "Acme", [ROW], "", "hybrid", "none")
    assert (none.rows, none.calls, none.cost_usd) == (1, 0, 0.0)


def test_calibration_from_reported_usage_is_remembered(workspace):
    s = Settings(workspace=workspace)
    est = estimate_rows(s, "Acme", [ROW] * 4, "gpt-4o-mini", "hyde", "llm")
    before = est.stages["answer"].prompt_tokens
    # The API billed twice the tokens we guessed for answers (3 of the 4 calls made; 1 was cached)
    # and 50 completion tokens per answer.
    billed = int(est.stages["answer"].prompt_chars / 4.0 * 2 * 3 / 4)
    calibrate(s, est, {"answer": StageUsage(calls=3, prompt_tokens=billed, completion_tokens=150, cached_calls=1)})
    data = json.loads(calibration_path(s).read_text())
    assert data["models"]["gpt-4o-mini"]["answer"]["chars_per_token"] == pytest.approx(2.0, rel=0.01)
    again = estimate_rows(s, "Acme", [ROW] * 4, "gpt-4o-mini", "hyde", "llm")
    assert again.stages["answer"].prompt_tokens == pytest.approx(2 * before, rel=0.01)
    assert again.stages["answer"].completion_tokens == 4 * 50
    assert again.stages["hyde"].prompt_tokens == est.stages["hyde"].prompt_tokens  # no usage: unchanged
    # Another model keeps the defaults.
    assert estimate_rows(s, "Acme", [ROW] * 4, "gpt-4.1", "hyde", "llm").stages["answer"].prompt_tokens == before


def test_consent_rule(workspace):
    s = Settings(workspace=workspace)
    assert consent_reason(s, 500, 1.0, "gpt-4o-mini") == ""
    assert "501 rows to answer (over 500)" in consent_reason(s, 501, 1.0, "gpt-4o-mini")
    assert "an estimated $7.00 (over $5.00)" in consent_reason(s, 10, 7.0, "gpt-4o-mini")
    assert consent_reason(s, 10_000, 100.0, "") == ""  # evidence-only drafts cost nothing


def test_run_asks_before_a_large_paid_run(workspace, llm_server):
    q = make_questionnaire(workspace / "q.xlsx")
    env = model_env(llm_server, AUTOFILL_RUN__CONFIRM_ROWS="3")
    result = CliRunner(env=env).invoke(cli, ["--workspace", str(workspace), "run", "--company", "Acme",
                                             "--questionnaire", str(q)])
    assert result.exit_code == 2 and llm_server.requests == []
    # A loopback server has no price: the row count asks, and the question says the cost is unknown.
    assert "5 rows to answer (over 3), cost unknown" in result.stderr and "pass --yes" in result.stderr
    assert "nothing was spent" in result.stderr
    # With --yes it goes ahead (and then stops at the missing store: bad input, still no model call).
    result = CliRunner(env=env).invoke(cli, ["--workspace", str(workspace), "run", "--company", "Acme",
                                             "--questionnaire", str(q), "--yes"])
    assert result.exit_code == 2 and "no evidence store for company 'Acme'" in result.stderr
    assert llm_server.chat_requests() == []


def test_an_unpriced_model_and_no_model_are_said_plainly(workspace):
    from autofill.portfolio.estimate import PortfolioEstimate

    s = Settings(workspace=workspace)
    s.llm.provider, s.llm.base_url = "openai", "http://127.0.0.1:8000/v1"
    unknown = estimate_rows(s, "Acme", [ROW], "gpt-4o-mini", "hyde", "llm")
    assert not unknown.priced and not unknown.cost_known and unknown.calls == 3
    assert unknown.to_json()["cost_usd"] is None and "127.0.0.1:8000" in unknown.to_json()["cost_unknown_reason"]
    text = PortfolioEstimate([unknown]).describe()
    assert "$" not in text and "cost unknown (no price for gpt-4o-mini at 127.0.0.1:8000" in text
    assert PortfolioEstimate([unknown]).to_json()["estimated_cost_usd"] is None
    none = estimate_rows(s, "Acme", [ROW, ROW], "", "hybrid", "none")
    text = PortfolioEstimate([none]).describe()
    assert "$" not in text and "No model is configured" in text and "nothing to pay" in text
    assert PortfolioEstimate([none]).to_json()["evidence_only"] is True
    # Consent: an unknown cost cannot pass the dollar limit; the row count still asks, saying so.
    assert consent_reason(s, 10, None, "gpt-4o-mini") == ""
    assert consent_reason(s, 10_000, None, "gpt-4o-mini").endswith("rows to answer (over 500), cost unknown "
                                                                  "(no price in [cost.prices])")
