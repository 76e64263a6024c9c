"""The loopback servers themselves: other tests rely on their scripting, faults and records."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from tests.llm_server import CohereServer, LLMServer, Reply, hash_vector, last_user_text


def _post(url: str, body: dict, timeout: float = 5.0, headers: dict | None = None) -> tuple[int, dict, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def _chat(server: LLMServer, text: str, base: str | None = None) -> tuple[int, dict, dict]:
    return _post(f"{base or server.base_url}/chat/completions",
                 {"model": "m", "messages": [{"role": "user", "content": text}]},
                 headers={"Authorization": "Bearer sk-test-secret"})


def test_faults_then_queue_then_responder_in_order(llm_server):
    llm_server.responder = lambda req: f"echo:{last_user_text(req)}"
    llm_server.queue(Reply(text="queued", prompt_tokens=11, completion_tokens=3))
    llm_server.fail_next(1, status=429, retry_after=0)
    status, headers, body = _chat(llm_server, "a")
    assert status == 429 and headers["Retry-After"] == "0" and "error" in body
    status, _, body = _chat(llm_server, "b")
    assert body["choices"][0]["message"]["content"] == "queued"
    assert body["usage"] == {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    _, _, body = _chat(llm_server, "c", base=llm_server.url)  # base URL without /v1 works too
    assert body["choices"][0]["message"]["content"] == "echo:c"
    assert [r.status for r in llm_server.chat_requests()] == [429, 200, 200]
    assert all("authorization" not in r.headers for r in llm_server.requests)
    assert llm_server.requests[1].json["messages"][0]["content"] == "b"


def test_stall_holds_the_request_and_skips_the_queue(llm_server):
    llm_server.stall_next(1, seconds=2.0)
    llm_server.queue("kept for the retry")
    try:
        _chat_timeout = _post(f"{llm_server.base_url}/chat/completions",
                              {"model": "m", "messages": [{"role": "user", "content": "x"}]}, timeout=0.3)
        raise AssertionError(f"expected a timeout, got {_chat_timeout}")
    except (TimeoutError, urllib.error.URLError):
        pass
    _, _, body = _chat(llm_server, "y")
    assert body["choices"][0]["message"]["content"] == "kept for the retry"


def test_embeddings_are_deterministic_and_latency_overlaps():
    with LLMServer(latency_s=0.3) as server:
        _, _, body = _post(f"{server.base_url}/embeddings", {"model": "e", "input": ["a", "b"]})
        assert [d["embedding"] for d in body["data"]] == [hash_vector("a"), hash_vector("b")]
        threads = [threading.Thread(target=_chat, args=(server, str(i))) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert server.max_in_flight >= 2  # the server answers concurrently
        assert server.count("chat") == 4 and server.count("embeddings") == 1


def test_cohere_rerank_orders_by_overlap():
    with CohereServer() as server:
        _, _, body = _post(f"{server.url}/v2/rerank",
                           {"model": "r", "query": "scope 3 emissions", "documents": ["cats", "scope 3 emissions", "emissions"],
                            "top_n": 2})
        assert [r["index"] for r in body["results"]] == [1, 2]


def test_by_marker_routes_and_responder_errors_become_500(llm_server):
    from tests.llm_server import by_marker

    llm_server.responder = by_marker({"HYDE": "passage", "RANK": lambda req: Reply(text="[2] > [1]")},
                                     default=lambda req: 1 / 0)
    assert _chat(llm_server, "HYDE please")[2]["choices"][0]["message"]["content"] == "passage"
    assert _chat(llm_server, "RANK these")[2]["choices"][0]["message"]["content"] == "[2] > [1]"
    status, _, body = _chat(llm_server, "anything else")
    assert status == 500 and "ZeroDivisionError" in body["error"]["message"]
    assert llm_server.responder_errors == ["ZeroDivisionError: division by zero"]
    assert len(llm_server.chat_requests(containing="RANK")) == 1


def test_base64_embeddings_and_raw_bodies(llm_server):
    import base64
    import struct

    _, _, body = _post(f"{llm_server.base_url}/embeddings", {"model": "e", "input": "x", "encoding_format": "base64"})
    raw = base64.b64decode(body["data"][0]["embedding"])
    assert list(struct.unpack(f"<{len(raw) // 4}f", raw)) == pytest.approx(hash_vector("x"), rel=1e-6)
    llm_server.queue(Reply(body={"not": "a completion"}))
    assert _chat(llm_server, "q")[2] == {"not": "a completion"}
