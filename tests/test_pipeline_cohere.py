"""`autofill run` with Cohere: Cohere chat for HyDE and the answer, Cohere Rerank instead of the LLM
listwise rerank, through the real cohere SDK against the loopback Cohere server."""

from __future__ import annotations

import pytest

from autofill.answer.pipeline import run_questionnaire
from autofill.providers.base import Providers
from autofill.providers.factory import make_chat, make_reranker
from autofill.settings import Settings
from tests.answer_helpers import COMPANY, FACTS, MARKERS, SAMPLE, kind_of, make_questionnaire, \
    copied_workspace, passages_in, read_output
from tests.llm_server import by_marker, last_user_text


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx")


def test_cohere_chat_and_rerank(ingested, cohere_server, tmp_path):
    root, emb, questionnaire = ingested
    cohere_server.responder = by_marker(MARKERS)
    s = Settings(workspace=root)
    s.llm.provider = "cohere"
    s.llm.cohere_api_key = "co-test"
    s.llm.cohere_base_url = cohere_server.base_url
    s.llm.model = "command-r-plus"
    s.llm.cache = False
    s.retrieval.reranker = "cohere"
    s.retrieval.mode = "hyde+hybrid"
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path,
                               providers=Providers(embedder=emb, chat=make_chat(s), reranker=make_reranker(s)))
    assert report.answered == len(FACTS) and report.failed == 0

    chats = [r for r in cohere_server.requests if r.route == "cohere-chat"]
    reranks = [r for r in cohere_server.requests if r.route == "cohere-rerank"]
    assert sorted(kind_of(r.json) for r in chats) == sorted(["hyde", "answer"] * len(FACTS))
    assert len(reranks) == len(FACTS)
    for r in reranks:
        assert len(r.json["documents"]) == 30 and r.json["top_n"] == 6
        assert r.json["model"] == "rerank-v3.5"
    for r in chats:
        if kind_of(r.json) == "answer":
            assert [n for n, *_ in passages_in(last_user_text(r.json))] == [1, 2, 3, 4, 5, 6]

    out = read_output(report.output)
    for f in FACTS:
        row = out["rows"][f.question]
        # the loopback reranker scores by word overlap with the question; the fact passage is in the
        # top 6 for these questions, so the scripted answer cites it
        assert row["Sources"] == f"{SAMPLE} p. {f.page}", f.question
        ev = [e for e in out["evidence"] if e["Question"] == f.question]
        assert len(ev) == 6 and all(0.0 <= e["Score"] <= 1.0 for e in ev)
    info = out["info"]
    assert info["llm provider"] == "cohere" and info["reranker"] == "cohere (rerank-v3.5)"
    assert info["retrieval mode"] == "hyde+hybrid"
    assert report.to_json()["llm_calls"] == 3 * len(FACTS)  # hyde + rerank API call + answer
    assert "co-test" not in report.output.read_bytes().decode("latin-1")
