"""Cohere provider: the real cohere SDK (ClientV2) against the loopback Cohere-compatible server."""

from __future__ import annotations

import pytest

from autofill.errors import EndpointError, InputError, ProviderError
from autofill.providers.base import ChatMessage, ChatModel, Embedder, Reranker
from autofill.providers.cohere_provider import CohereChat, CohereEmbedder, CohereReranker
from autofill.settings import LLMSettings, Secret
from tests.llm_server import CohereServer, Reply, hash_vector, system_text

# The SDK's own pydantic-v1-style access warns on every parsed chat reply; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")

KEY = "co-test-abcdef123456"
MSGS = [ChatMessage("system", "Answer in JSON."), ChatMessage("user", "Scope 1 emissions 2023?")]


def llm_for(server: CohereServer, **kw) -> LLMSettings:
    values = dict(cohere_base_url=server.base_url, cohere_api_key=Secret(KEY), retry_base_delay_s=0.01,
                  timeout_s=5.0)
    values.update(kw)
    return LLMSettings(**values)


def test_chat_roundtrip_with_usage(cohere_server):
    cohere_server.responder = lambda req: Reply(text=f"sys={system_text(req)}", prompt_tokens=40, completion_tokens=9)
    chat = CohereChat(llm_for(cohere_server), model="command-r-plus")
    assert isinstance(chat, ChatModel)
    result = chat.complete(MSGS, temperature=0.0, max_tokens=300, json_mode=True)
    assert result.text == "sys=Answer in JSON."
    assert (result.prompt_tokens, result.completion_tokens, result.model) == (40, 9, "command-r-plus")
    (req,) = cohere_server.requests
    assert req.path == "/v2/chat"
    assert req.json["messages"][0] == {"role": "system", "content": "Answer in JSON."}
    assert req.json["response_format"] == {"type": "json_object"}
    assert req.json["max_tokens"] == 300 and req.json["temperature"] == 0.0
    assert "authorization" in req.auth_headers


def test_chat_json_mode_falls_back_on_400(cohere_server):
    cohere_server.responder = lambda req: (Reply.error(400, "json mode unsupported")
                                           if "response_format" in req else '{"a": 1}')
    chat = CohereChat(llm_for(cohere_server), model="command-r")
    assert chat.complete(MSGS, json_mode=True).text == '{"a": 1}'
    assert [r.status for r in cohere_server.requests] == [400, 200]


def test_chat_retries_429_and_500_then_succeeds(cohere_server):
    cohere_server.fail_next(1, status=429, retry_after=0)
    cohere_server.fail_next(1, status=500)
    assert CohereChat(llm_for(cohere_server), model="command-r").complete(MSGS).text == "OK"
    assert [r.status for r in cohere_server.requests] == [429, 500, 200]


def test_chat_timeout_then_success(cohere_server):
    cohere_server.stall_next(1, seconds=3.0)
    assert CohereChat(llm_for(cohere_server, timeout_s=0.3), model="command-r").complete(MSGS).text == "OK"
    assert cohere_server.count("cohere-chat") == 2


def test_wrong_key_fails_at_once_without_leaking_it():
    with CohereServer(require_key="the-right-key") as server:
        with pytest.raises(EndpointError) as err:
            CohereChat(llm_for(server), model="command-r").complete(MSGS)
        assert "HTTP 401" in str(err.value) and KEY not in str(err.value)
        assert server.base_url in str(err.value) and "COHERE_API_KEY" in str(err.value)
        assert server.count() == 1


def test_embedder_input_types_and_batches(cohere_server):
    embedder = CohereEmbedder(llm_for(cohere_server), model="embed-english-v3.0", batch_size=2)
    assert isinstance(embedder, Embedder) and embedder.name == "cohere:embed-english-v3.0"
    vectors = embedder.embed_documents(["a", "b", "c"])
    assert len(vectors) == 3 and vectors[2] == pytest.approx(hash_vector("c"))
    query = embedder.embed_query("what?")
    assert query == pytest.approx(hash_vector("what?"))
    reqs = cohere_server.requests
    assert [r.path for r in reqs] == ["/v2/embed"] * 3
    assert [r.json["input_type"] for r in reqs] == ["search_document", "search_document", "search_query"]
    assert [len(r.json["texts"]) for r in reqs] == [2, 1, 1]
    assert reqs[0].json["embedding_types"] == ["float"]
    assert embedder.usage.calls == 3


def test_embedder_batch_is_capped_at_api_limit(cohere_server):
    assert CohereEmbedder(llm_for(cohere_server), model="e", batch_size=500).batch_size == 96


def test_reranker_returns_indexes_best_first(cohere_server):
    reranker = CohereReranker(llm_for(cohere_server), model="rerank-v3.5")
    assert isinstance(reranker, Reranker)
    docs = ["The cafeteria menu.", "Scope 1 emissions were 9.1 Mt in FY2023.", "Emissions policy overview."]
    results = reranker.rerank("Scope 1 emissions FY2023", docs, top_n=2)
    assert [r.index for r in results] == [1, 2]
    assert results[0].score > results[1].score
    (req,) = cohere_server.requests
    assert req.path == "/v2/rerank" and req.json["top_n"] == 2 and req.json["model"] == "rerank-v3.5"
    assert reranker.rerank("q", [], top_n=5) == []
    assert cohere_server.count() == 1  # no request for nothing to rank


def test_reranker_top_n_is_capped_to_documents(cohere_server):
    CohereReranker(llm_for(cohere_server), model="rerank-v3.5").rerank("q", ["a", "b"], top_n=6)
    assert cohere_server.requests[0].json["top_n"] == 2


def test_missing_key_is_an_input_error():
    with pytest.raises(InputError, match="COHERE_API_KEY"):
        CohereChat(LLMSettings(), model="command-r")


def test_a_2xx_body_that_is_not_json_is_a_malformed_reply_retried_and_counted(cohere_server):
    """The SDK wraps a 200 body it cannot parse in an ApiError: that is the server's fault, retried as a
    malformed reply (the breaker stops a run against a server sending only these), never a permanent
    'HTTP 200' failure on the first try."""
    from autofill.providers.cohere_provider import classify

    cohere_server.responder = lambda req: Reply(body=b"<html>502 Bad Gateway</html>")
    with pytest.raises(ProviderError) as err:
        CohereChat(llm_for(cohere_server, max_retries=2), model="command-r").complete(MSGS)
    assert "malformed response body" in str(err.value)
    assert cohere_server.count("cohere-chat") == 3  # the first try and two retries
    ApiError = __import__("cohere.core.api_error", fromlist=["ApiError"]).ApiError  # noqa: N806
    failure = classify(ApiError(status_code=200, body="<html>"))
    assert failure.malformed and failure.transient
    assert not classify(ApiError(status_code=400, body={"message": "bad"})).malformed
