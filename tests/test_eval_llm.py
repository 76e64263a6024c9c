"""`autofill eval` with a model: the full pipeline (HyDE, rerank, chain-of-thought answer) and the
judge run through the real openai SDK against the loopback server; answers are scored on verdicts and
figures, tokens and cost per question come from the run, and the judge uses its own model."""

from __future__ import annotations

import json

from autofill.evaluate.runner import run_eval
from autofill.providers.base import Providers
from autofill.providers.factory import make_chat
from autofill.settings import load_settings
from tests.answer_helpers import COMPANY, FACTS, MARKERS, SAMPLE, make_questionnaire, copied_workspace
from tests.loopback import by_marker
from tests.portfolio_helpers import LOOPBACK_PRICES
from tests.test_eval_judge import judge_responder

JUDGE_MARKERS = ("reference answer written by an expert", "split the answer into short",
                 "write 3 different questions", "numbered sentences")


def test_llm_eval_scores_answers_and_counts_tokens(tmp_path, llm_server):
    pipeline = by_marker(MARKERS)
    llm_server.responder = lambda req: (judge_responder(req) if any(m in json.dumps(req) for m in JUDGE_MARKERS)
                                        else pipeline(req))
    settings = load_settings(tmp_path / "ws", environ={}, overrides={
        "llm": {"provider": "openai", "base_url": llm_server.base_url, "api_key": "sk-test", "model": "gpt-4o-mini",
                "max_retries": 0, "cache": False, "concurrency": 2},
        "eval": {"judge_model": "judge-model"}, "cost": {"prices": LOOPBACK_PRICES}})
    (tmp_path / "ws").mkdir()
    _, embedder = copied_workspace(tmp_path / "ws")
    questionnaire = make_questionnaire(tmp_path / "questionnaire.xlsx")
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([
        {"question": f.question, "gold_answer": f.answer, "answer_type": "yesno" if f.dropdown else "text",
         "gold": [{"file": SAMPLE, "page": f.page, "evidence": f.phrase}]} for f in FACTS]))

    result = run_eval(settings, COMPANY, questionnaire, gold, k=6, out_dir=tmp_path / "out",
                      providers=Providers(embedder=embedder, chat=make_chat(settings)))
    data = result.to_json()
    assert data["questions"] == len(FACTS)
    assert data["hit_at_k"] == 1.0 and data["mrr"] == 1.0  # the scripted reranker puts the fact first
    assert data["yesno_accuracy"] == 1.0 and data["yesno_answered"] == 2  # "Yes. ..." answers, verdicts match
    assert data["llm_calls"] >= 3 * len(FACTS) and data["tokens_per_question"] > 0 and data["cost_per_question_usd"] > 0
    assert data["judge_model"] == "judge-model" and data["correctness"] == 0.5
    judged = [r for r in llm_server.chat_requests() if r.json["model"] == "judge-model"]
    answered = [r for r in llm_server.chat_requests() if r.json["model"] == "gpt-4o-mini"]
    assert judged and answered and len(judged) == 4 * len(FACTS)
    assert "| judge tokens |" in result.report.read_text()
