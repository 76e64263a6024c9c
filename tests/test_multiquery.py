"""Multi-query retrieval (autofill/search/multiquery.py and retrieve's extra_queries): the reply parsed
into search queries, each query's dense and BM25 lists fused with the question's own on a real Chroma
store, and `autofill run --multi-query` end to end through the real openai SDK against the loopback
server: one more cached, costed call per row whose queries find a passage the question alone misses."""

from __future__ import annotations

import json

import pytest

from autofill.search.query import lexical_query
from autofill.search.multiquery import QUERIES, multiquery_messages, parse_queries
from autofill.answer.pipeline import _RunPlan, run_questionnaire
from autofill.plan import resolve_plan
from autofill.search.retrieval import build_query, retrieve, rrf
from autofill.ingest.pipeline import ingest_paths
from autofill.records import QuestionRow
from autofill.settings import Settings
from autofill.store.chroma_store import open_store
from tests import pdf_factory as pf
from tests.answer_helpers import passages_in, read_output
from tests.fakes import FakeEmbedder
from tests.llm_server import LLMServer, last_user_text
from tests.workbook_builders import build_questionnaire

COMPANY = "Acme"
SENTENCES = [
    "Our medium term target is a 30 per cent reduction in operational emissions by FY2030",
    "Water withdrawal was 12.4 GL in FY2024, mostly from seawater desalination",
    "The Sustainability Committee of the Board oversees climate related risks and opportunities",
    "Purchases of property, plant and equipment were 1,577 million dollars in FY2024",
    "Safety performance improved with fewer recordable injuries across sites",
    "Scope 3 emissions from steelmaking customers dominate the value chain footprint",
    "We have committed to net zero operational emissions by 2050",
    "Community investment supported local schools and health clinics near our operations",
]
QUESTION = "How much did the company invest in capex during the year?"
# Worded so that neither the question nor its synonyms (search/query.py) reach the cash-flow page.
RUN_QUESTION = "How much did the company spend on new machinery during the year?"
TARGET = "Purchases of property, plant and equipment"
QUERY_REPLY = ("Here are the queries:\n1. purchases of property, plant and equipment\n"
               "2. \"capital expenditure FY2024\"\n3. - cash flows from investing activities\n"
               "4. a fourth query that is one too many")


def test_parse_queries_lists_bullets_json_and_noise():
    assert parse_queries(QUERY_REPLY) == ["purchases of property, plant and equipment", "capital expenditure FY2024",
                                          "cash flows from investing activities"]
    assert parse_queries('```json\n["Scope 1 emissions tCO2e", "direct GHG emissions"]\n```') == [
        "Scope 1 emissions tCO2e", "direct GHG emissions"]
    assert parse_queries('{"queries": ["a b", "c d"]}') == ["a b", "c d"]
    # Duplicates (case, spacing), the question itself, empty and overlong lines are dropped.
    assert parse_queries("* Water use\n*  water   USE\n\nWhat is water use?\n" + "x" * 400,
                         question="What is  water use?") == ["Water use"]
    assert parse_queries("Query 1: energy intensity\nQ2) renewable share", limit=1) == ["energy intensity"]
    assert parse_queries("") == [] and parse_queries("   \n  ") == []


def test_prompt_asks_for_the_queries_of_the_row(tmp_path):
    row = QuestionRow("S", 3, QUESTION, form_of_answer="Number", explanation="USD <million>")
    [message] = multiquery_messages(Settings(workspace=tmp_path), COMPANY, row)
    assert QUESTION in message.content and f"Write {QUERIES} different search queries" in message.content
    assert "<million>" not in message.content  # untrusted text cannot forge a tag


class Counting:
    """The real store, counting the BM25 searches retrieval makes."""

    def __init__(self, store):
        self.store, self.bm25_queries = store, []

    def query(self, embedding, n):
        return self.store.query(embedding, n)

    def bm25_search(self, query, n):
        self.bm25_queries.append(query)
        return self.store.bm25_search(query, n)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("mq")
    settings = Settings(workspace=root)
    settings.ingest.ocr = False
    pdf = pf.make_text_pdf(root / "Acme Annual Report.pdf", [" ".join([s + "."] * 9) for s in SENTENCES])
    emb = FakeEmbedder()
    assert ingest_paths(settings, COMPANY, [pdf], embedder=emb).to_json()["chunks"] >= len(SENTENCES)
    return root, emb


def test_extra_queries_join_the_fusion(ingested):
    root, emb = ingested
    settings = Settings(workspace=root)
    # Plain RRF without synonyms, so the fused scores can be recomputed here.
    r = settings.retrieval
    r.keyword_weight, r.synonyms = 1.0, False
    store = Counting(open_store(settings, COMPANY))
    row = QuestionRow("S", 3, QUESTION)
    alone = retrieve(settings, store, emb, row, "hybrid", n=2)
    assert not any(TARGET in p.text for p in alone)  # the question's words miss the cash-flow page
    extra = ["purchases of property, plant and equipment", "capital expenditure"]
    store.bm25_queries.clear()
    fused = retrieve(settings, store, emb, row, "hybrid", n=2, extra_queries=extra)
    assert any(TARGET in p.text for p in fused)
    keywords = lexical_query(row, expand=False)
    assert store.bm25_queries == [keywords, *extra]  # each extra query searched by BM25 too
    # The fused score is RRF over the question's dense and BM25 lists and each query's two lists.
    depth, real = 4, store.store
    lists = [real.query(emb.embed_query(build_query(row)), depth + 10)[:depth],
             real.bm25_search(keywords, depth + 10)[:depth]]
    for q in extra:
        lists += [real.query(emb.embed_query(q), depth + 10)[:depth], real.bm25_search(q, depth + 10)[:depth]]
    expected = dict(rrf([[p.chunk_id for p in sorted(lst, key=lambda p: (-round(p.score, 4), p.chunk_id))]
                         for lst in lists], k=r.rrf_k))
    assert [p.chunk_id for p in fused] == list(expected)[:2]
    assert [p.score for p in fused] == pytest.approx([expected[p.chunk_id] for p in fused])

    # Dense mode: the queries' embeddings only, no keyword search; blank queries change nothing.
    assert not any(TARGET in p.text for p in retrieve(settings, store, emb, row, "dense", n=2))
    store.bm25_queries.clear()
    dense = retrieve(settings, store, emb, row, "dense", n=2, extra_queries=extra)
    assert any(TARGET in p.text for p in dense) and store.bm25_queries == []
    same = retrieve(settings, store, emb, row, "dense", n=2, extra_queries=["  "])
    assert [p.chunk_id for p in same] == [p.chunk_id for p in retrieve(settings, store, emb, row, "dense", n=2)]


def test_extra_queries_join_the_default_fusion(ingested):
    root, emb = ingested
    settings = Settings(workspace=root)  # the defaults: weighted RRF, a page cap, cleaned BM25 query with synonyms
    store = open_store(settings, COMPANY)
    row = QuestionRow("S", 3, "How much did the company spend on new schools?")
    assert not any(TARGET in p.text for p in retrieve(settings, store, emb, row, "hybrid", n=2))
    fused = retrieve(settings, store, emb, row, "hybrid", n=2, extra_queries=["purchases of property, plant"])
    assert any(TARGET in p.text for p in fused) and [p.rank for p in fused] == [1, 2]


def responder(req: dict):
    prompt = last_user_text(req)
    if "different search queries" in prompt:
        return QUERY_REPLY
    passages = passages_in(prompt)
    if "Rank all" in prompt:
        return " > ".join(f"[{n}]" for n, *_ in passages)
    cited = [n for n, _, _, text in passages if TARGET in text]
    return "```json\n" + json.dumps({"reasoning": "From the cash flow statement.", "citations": cited[:1],
                                     "answer": "1,577 million dollars" if cited else "Not disclosed",
                                     "confidence": "high"}) + "\n```"


def run_settings(root, server, multi_query: bool) -> Settings:
    s = Settings(workspace=root)
    s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = "openai", server.base_url, "sk-test", "gpt-4o-mini"
    s.retrieval.mode, s.retrieval.candidates, s.retrieval.final_k = "hybrid", 2, 2
    s.retrieval.multi_query = multi_query
    return s


def test_run_with_multi_query_makes_one_more_call_and_finds_the_passage(ingested, tmp_path):
    root, emb = ingested
    from autofill.providers.base import Providers
    from autofill.providers.factory import make_chat

    questionnaire = build_questionnaire(tmp_path / "q.xlsx", questions=[("Finance", RUN_QUESTION, "Number", False)],
                                        extras=False)
    with LLMServer(responder=responder) as server:
        def run(multi_query: bool, out: str, resume: bool = False):
            s = run_settings(root, server, multi_query)
            return run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path / out, resume=resume,
                                     providers=Providers(embedder=emb, chat=make_chat(s)))

        plain = run(False, "plain")
        assert [r for r in server.chat_requests() if "different search queries" in last_user_text(r.json)] == []
        assert not any(TARGET in t for r in server.chat_requests() for *_, t in passages_in(last_user_text(r.json)))
        assert "multiquery" not in plain.usage
        before = len(server.chat_requests())

        report = run(True, "multi")
        calls = server.chat_requests()[before:]
        kinds = ["multiquery" if "different search queries" in last_user_text(r.json) else
                 "rerank" if "Rank all" in last_user_text(r.json) else "answer" for r in calls]
        assert kinds == ["multiquery", "rerank", "answer"]
        assert any(TARGET in t for *_, t in passages_in(last_user_text(calls[1].json)))  # the fused candidates
        assert report.usage["multiquery"].calls == 1 and report.usage["multiquery"].prompt_tokens > 0
        out = read_output(report.output)
        assert out["rows"][RUN_QUESTION]["Answer"] == "1,577 million dollars"
        assert out["info"]["multiquery calls"] == 1

        # Identical, without --fresh (which refreshes the response cache): every call from the cache.
        again = run(True, "again", resume=True)
        assert len(server.chat_requests()) == before + 3 and again.usage["multiquery"].cached_calls == 1


def test_multi_query_is_part_of_the_checkpoint_key(tmp_path):
    class Chat:
        model = "gpt-4o-mini"

    def key(settings, chat):
        return _RunPlan(resolve_plan(settings, chat=chat, embedder="fake"), {}).fingerprint(settings)

    on, off = Settings(workspace=tmp_path), Settings(workspace=tmp_path)
    on.retrieval.multi_query = True
    assert key(on, Chat()) != key(off, Chat())
    assert key(on, None) == key(off, None)  # no model: no queries, same run
