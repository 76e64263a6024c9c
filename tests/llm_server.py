"""Loopback API servers for tests and benchmarks: OpenAI-compatible and Cohere-compatible.

The real SDKs (openai 3.x uses httpx2, which respx cannot intercept; cohere uses httpx) talk HTTP to a
standard-library `ThreadingHTTPServer` on 127.0.0.1 in a daemon thread, so tests exercise the exact
requests and response parsing the product uses in the field.

Use as pytest fixtures (`llm_server`, `cohere_server`, registered for every test through
tests/conftest.py) or as context managers (benchmarks):

    with LLMServer(latency_s=1.0) as server:
        settings.llm.base_url = server.base_url          # "http://127.0.0.1:PORT/v1"

Scripting replies to chat requests, first match wins:
  1. injected faults:  server.fail_next(2, status=429, retry_after=0)  /  server.stall_next(1, 5.0)
  2. queued replies:   server.queue("text", Reply(text="{...}", prompt_tokens=10))
  3. the responder:    server.responder = lambda req: "text" | Reply(...) | dict (raw JSON body)
  4. default:          DEFAULT_TEXT
  `by_marker({"marker": reply_or_callable, ...}, default)` builds a responder that routes by prompt text.
`req` is the request JSON; `message_text(req)` joins its message contents, `last_user_text(req)` and
`system_text(req)` pick parts, so a responder can tell HyDE, rerank and answer prompts apart.

`LLMServer(require_key="sk-...")` answers 401 (echoing the key sent, as real APIs do) to any other key.
Every request is recorded (`server.requests`, `server.chat_requests()`, `server.count(...)`) with path,
headers (authorization headers removed) and JSON body. Embedding routes return deterministic
hash-based unit vectors (`hash_vector`). Cohere rerank scores documents by word overlap with the query.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import time
from typing import Any

import pytest

from tests.loopback import (  # noqa: F401 - re-exported: tests import everything from here
    DEFAULT_TEXT,
    EMBED_DIM,
    LoopbackServer,
    RecordedRequest,
    Reply,
    by_marker,
    estimate_tokens,
    hash_vector,
    last_user_text,
    message_text,
    overlap_score,
    system_text,
)


class LLMServer(LoopbackServer):
    """OpenAI-compatible: POST .../chat/completions and .../embeddings, with or without /v1, and
    Azure's /openai/deployments/<name>/... paths (any path ending in those suffixes)."""

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def chat_requests(self, containing: str | None = None) -> list[RecordedRequest]:
        """Chat requests, optionally only those whose message text contains `containing`."""
        return [r for r in self.requests if r.route == "chat"
                and (containing is None or containing in message_text(r.json or {}))]

    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.route == "embeddings"]

    def _error_body(self, status: int, message: str) -> Any:
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}
        return {"error": {"message": message, "type": kind.get(status, "server_error"), "code": str(status)}}

    def _success_body(self, route: str, req: dict, reply: Reply) -> Any:
        if route == "embeddings":
            return self._embeddings(req)
        prompt = reply.prompt_tokens if reply.prompt_tokens is not None else estimate_tokens(message_text(req))
        completion = reply.completion_tokens if reply.completion_tokens is not None else estimate_tokens(reply.text)
        return {
            "id": f"chatcmpl-{hashlib.sha1(message_text(req).encode()).hexdigest()[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": req.get("model", ""),
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": {"role": "assistant", "content": reply.text}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }

    def _embeddings(self, req: dict) -> dict:
        texts = req.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        as_base64 = req.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vec = hash_vector(str(text), self.embed_dim)
            emb: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if as_base64 else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(estimate_tokens(str(t)) for t in texts)
        return {"object": "list", "data": data, "model": req.get("model", ""),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


class CohereServer(LoopbackServer):
    """Cohere-compatible for the cohere SDK's ClientV2: POST /v2/chat, /v2/embed, /v2/rerank.
    Pass `server.url` as the client's base_url (the SDK appends "v2/...")."""

    @property
    def base_url(self) -> str:
        return self.url

    def chat_requests(self, containing: str | None = None) -> list[RecordedRequest]:
        return [r for r in self.requests if r.route == "cohere-chat"
                and (containing is None or containing in message_text(r.json or {}))]

    def _error_body(self, status: int, message: str) -> Any:
        return {"message": message}

    def _success_body(self, route: str, req: dict, reply: Reply) -> Any:
        meta = {"api_version": {"version": "2"}}
        if route == "cohere-embed":
            texts = list(req.get("texts") or [])
            tokens = sum(estimate_tokens(t) for t in texts)
            return {"id": "embed-1", "response_type": "embeddings_by_type", "texts": texts,
                    "embeddings": {"float": [hash_vector(f"{t}", self.embed_dim) for t in texts]},
                    "meta": {**meta, "billed_units": {"input_tokens": tokens}}}
        if route == "cohere-rerank":
            query, docs = req.get("query", ""), list(req.get("documents") or [])
            docs = [d.get("text", "") if isinstance(d, dict) else str(d) for d in docs]
            scored = sorted(range(len(docs)), key=lambda i: (-overlap_score(query, docs[i]), i))
            top_n = req.get("top_n") or len(docs)
            results = [{"index": i, "relevance_score": round(overlap_score(query, docs[i]), 6)} for i in scored[:top_n]]
            return {"id": "rerank-1", "results": results, "meta": {**meta, "billed_units": {"search_units": 1}}}
        prompt = reply.prompt_tokens if reply.prompt_tokens is not None else estimate_tokens(message_text(req))
        completion = reply.completion_tokens if reply.completion_tokens is not None else estimate_tokens(reply.text)
        finish = {"stop": "COMPLETE", "length": "MAX_TOKENS"}.get(reply.finish_reason, reply.finish_reason)
        tokens = {"input_tokens": prompt, "output_tokens": completion}
        return {"id": "chat-1", "finish_reason": finish,
                "message": {"role": "assistant", "content": [{"type": "text", "text": reply.text}]},
                "usage": {"billed_units": tokens, "tokens": tokens}}


# --------------------------------------------------------------------------- pytest fixtures


@pytest.fixture
def llm_server():
    """A started LLMServer; `llm_server.base_url` goes into settings.llm.base_url."""
    with LLMServer() as server:
        yield server


@pytest.fixture
def cohere_server():
    """A started CohereServer; `cohere_server.base_url` goes into settings.llm.cohere_base_url."""
    with CohereServer() as server:
        yield server
