"""Judge reply parsers on messy model output, and one judged run through the real OpenAI SDK against
the loopback server."""

from __future__ import annotations


import pytest

from autofill.evaluate.judge import (Judge, context_sentences, cosine, json_values, parse_claims,
                                     parse_questions, parse_score, parse_sentence_ids)
from autofill.evaluate.metrics import RetrievedPassage
from autofill.settings import load_settings
from tests.fakes import FakeEmbedder
from tests.llm_server import message_text


@pytest.mark.parametrize("text, expected", [
    ('{"reason": "all facts present", "score": 0.9}', 0.9),
    ('```json\n{"score": "0.75", "reason": "x"}\n```', 0.75),
    ('Here is my grade:\n{"reason": "missing base year", "score": 0.5,}\nThanks', 0.5),
    ("{'score': 1, 'reason': 'ok'}", 1.0),
    ("Score: 8/10 because most facts match", 0.8),
    ("**Score**: 70%", 0.7),
    ('{"score": 85}', 0.85),
    ('{"score": 3}', 0.03),
    ('{"score": -0.2}', 0.0),
    ("0.4", 0.4),
    ("I cannot grade this.", None),
    ("", None),
])
def test_parse_score(text, expected):
    assert parse_score(text) == (pytest.approx(expected) if expected is not None else None)


def test_json_values_skips_prose_and_bad_brackets():
    assert json_values('see [1] and {"a": [1, 2]} then [broken') == [[1], {"a": [1, 2]}]
    assert json_values('{"text": "a } inside", "ok": True}') == [{"text": "a } inside", "ok": True}]


def test_parse_claims():
    reply = ('Sure.\n```json\n{"claims": [{"claim": "BHP targets net zero by 2050", "supported": true},'
             ' {"claim": "SBTi validated it", "supported": "no"}, {"Claim": "Offsets are used", "Supported": "Yes"}]}\n```')
    assert parse_claims(reply) == [("BHP targets net zero by 2050", True), ("SBTi validated it", False),
                                   ("Offsets are used", True)]
    assert parse_claims('[{"statement": "x", "verdict": 1}]') == [("x", True)]
    lines = "1. BHP targets net zero - supported: yes\n2. It was validated - no\n- Uses offsets [supported]"
    assert parse_claims(lines) == [("BHP targets net zero", True), ("It was validated", False),
                                   ("Uses offsets", True)]
    assert parse_claims('{"claims": []}') == []
    assert parse_claims("no idea") is None


def test_parse_questions():
    assert parse_questions('{"questions": ["Does BHP target net zero?", "By when?"], "noncommittal": 0}') == \
        (["Does BHP target net zero?", "By when?"], False)
    assert parse_questions('{"questions": ["What?"], "noncommittal": true}') == (["What?"], True)
    assert parse_questions("1. Does BHP target net zero?\n2. By when?\nNoncommittal: 1") == \
        (["Does BHP target net zero?", "By when?"], True)
    assert parse_questions("nothing useful") is None


def test_parse_sentence_ids():
    assert parse_sentence_ids('{"relevant": [3, 1, 3, 99]}', 5) == [3, 1]
    assert parse_sentence_ids("```json\n{\"relevant\": [\"[2]\", \"4\"]}\n```", 5) == [2, 4]
    assert parse_sentence_ids("[1], [4]", 5) == [1, 4]
    assert parse_sentence_ids("Relevant sentences: 2, 5", 5) == [2, 5]
    assert parse_sentence_ids('{"relevant": []}', 5) == []
    assert parse_sentence_ids("None of them are relevant.", 5) == []
    assert parse_sentence_ids("I am not sure.", 5) is None


def test_context_sentences_and_cosine():
    ps = [RetrievedPassage(2, "A.pdf", (2,), "Third. Fourth."), RetrievedPassage(1, "A.pdf", (1,), "First. Second.")]
    assert context_sentences(ps) == ["First.", "Second.", "Third.", "Fourth."]
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0) and cosine([1, 0], [0, 1]) == 0.0 and cosine([0, 0], [1, 0]) == 0.0


def judge_responder(req):
    """Scripted judge replies, told apart by their prompts (messy on purpose)."""
    text = message_text(req)
    if "reference answer written by an expert" in text:
        return 'Grade:\n```json\n{"reason": "verdict right, figure missing", "score": 0.5}\n```'
    if "split the answer into short" in text:
        return ('{"claims": [{"claim": "BHP has a net zero goal", "supported": true},'
                ' {"claim": "It was approved in 2019", "supported": false}]}')
    if "write 3 different questions" in text:
        return '{"questions": ["Does BHP have a net zero target?", "Net zero target?"], "noncommittal": 0}'
    if "numbered sentences" in text:
        return '{"relevant": [1]}'
    return "?"


def test_judged_scores_through_the_loopback_server(tmp_path, llm_server):
    llm_server.responder = judge_responder
    settings = load_settings(tmp_path, overrides={"llm": {"base_url": llm_server.base_url, "api_key": "k",
                                                          "max_retries": 0, "cache": False}},
                             environ={})
    from autofill.providers.factory import make_chat

    judge = Judge(settings, make_chat(settings, "judge-model"), FakeEmbedder())
    passages = [RetrievedPassage(1, "A.pdf", (8,), "BHP has a net zero goal. The sky is blue.", cited=True),
                RetrievedPassage(2, "A.pdf", (9,), "Unrelated text here.")]
    scores = judge.score("Does the company have a net zero target?", "Yes. BHP has a net zero goal approved in 2019.",
                         "Yes. Net zero by 2050.", passages)
    assert scores.correctness == 0.5
    assert scores.faithfulness == 0.5
    assert scores.context_relevancy == pytest.approx(1 / 3)  # 1 of 3 context sentences
    assert 0.0 < scores.answer_relevancy <= 1.0
    assert scores.usage.calls == 4 and scores.usage.prompt_tokens > 0
    requests = llm_server.chat_requests()
    assert {r.json["model"] for r in requests} == {"judge-model"}
    faithfulness = next(r for r in requests if "split the answer" in message_text(r.json))
    assert "BHP has a net zero goal" in message_text(faithfulness.json)
    assert "Unrelated text" not in message_text(faithfulness.json)  # only the cited passage is checked


def test_a_failing_judge_leaves_metrics_empty(tmp_path, llm_server):
    llm_server.responder = lambda req: "no json here at all"
    settings = load_settings(tmp_path, overrides={"llm": {"base_url": llm_server.base_url, "api_key": "k",
                                                          "max_retries": 0, "cache": False}}, environ={})
    from autofill.providers.factory import make_chat

    judge = Judge(settings, make_chat(settings, "judge-model"), None)
    scores = judge.score("Q?", "Yes.", "Yes.", [RetrievedPassage(1, "A.pdf", (1,), "Text.")])
    assert (scores.correctness, scores.faithfulness, scores.answer_relevancy, scores.context_relevancy) == \
        (None, None, None, None)
    llm_server.fail_next(10, status=400)
    scores = judge.score("Q?", "Yes.", "Yes.", [RetrievedPassage(1, "A.pdf", (1,), "Text.")])
    assert scores.correctness is None and scores.notes
