"""Cohere chat, embeddings and Rerank through the `cohere` SDK's ClientV2 (/v2/chat, /v2/embed,
/v2/rerank). The only module that imports `cohere`.

`llm.cohere_base_url` (COHERE_BASE_URL) overrides the API root, for proxies and the tests' loopback
server. The SDK's own retries are off; `autofill.providers.retry` decides.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from autofill import imports
from autofill.errors import InputError, ProviderError
from autofill.extras import require
from autofill.providers.base import ChatMessage, ChatResult, EmbedUsage, RankQuery, RerankResult, ScoredDocument
from autofill.providers.reachability import Endpoint, connect_failure
from autofill.providers.retry import Failure, call_with_retries, is_transient_status, parse_retry_after
from autofill.settings import LLMSettings

NO_KEY = "no-key-required"  # for a COHERE_BASE_URL proxy that holds the key itself
EMBED_BATCH_LIMIT = 96  # texts per /v2/embed call the API accepts
DEFAULT_BASE_URL = "https://api.cohere.com"


def make_client(llm: LLMSettings) -> Any:
    require("cohere", "the Cohere provider")
    cohere = imports.load("cohere")

    if llm.cohere_api_key:
        key = str(llm.cohere_api_key)
    elif llm.cohere_base_url:
        key = NO_KEY
    else:
        raise InputError("the Cohere provider needs COHERE_API_KEY")
    return cohere.ClientV2(api_key=key, base_url=llm.cohere_base_url or None, timeout=llm.timeout_s,
                           max_retries=0, log_warning_experimental_features=False)


# The hint of a reply that is not the API's (the openai provider has its own, naming its variable).
MALFORMED_HINT = ("check that COHERE_BASE_URL (llm.cohere_base_url) is the Cohere API's root, and the server's "
                  "or proxy's log for replies cut short")


def classify(exc: BaseException) -> Failure | None:
    """Map a cohere SDK (or its httpx transport) exception to a retry decision."""
    httpx = imports.load("httpx")
    ApiError = imports.load("cohere.core.api_error").ApiError  # noqa: N806

    if isinstance(exc, httpx.TimeoutException):
        return Failure(transient=True, reason="request timed out")
    if isinstance(exc, httpx.TransportError):
        refused = connect_failure(exc)
        return Failure(transient=True, reason=refused or f"connection error: {type(exc).__name__}",
                       connect=bool(refused))
    if isinstance(exc, ApiError) and exc.status_code is not None and 200 <= exc.status_code < 300:
        # The SDK wraps a 2xx body it could not parse as JSON in an ApiError: the server's fault, retried,
        # counted as a malformed reply (the breaker stops a run against a server that sends only these).
        return Failure(transient=True, reason=f"malformed response body (HTTP {exc.status_code}, not JSON: "
                                              f"{_error_message(exc.body)[:80]})", hint=MALFORMED_HINT, malformed=True)
    if isinstance(exc, ApiError):
        status = exc.status_code
        return Failure(
            transient=is_transient_status(status),
            reason=f"HTTP {status}: {_error_message(exc.body)}",
            retry_after=parse_retry_after(exc.headers),
            status=status,
        )
    return None


def _error_message(body: Any) -> str:
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)
    return str(body)


class _CohereBase:
    def __init__(self, llm_settings: LLMSettings, model: str) -> None:
        self.model = model
        self._llm = llm_settings
        self._client = make_client(llm_settings)
        self.endpoint = Endpoint("cohere", model, llm_settings.cohere_base_url or DEFAULT_BASE_URL,
                                 "COHERE_BASE_URL", "COHERE_API_KEY")

    def _retrying(self, fn: Any, what: str) -> Any:
        result = call_with_retries(
            fn, classify=classify, what=f"cohere {what} {self.model} at {self.endpoint.host}",
            max_retries=self._llm.max_retries, base_delay_s=self._llm.retry_base_delay_s,
            secrets=[str(self._llm.cohere_api_key)], fatal=self.endpoint.check,
            breaker=self.endpoint.breaker,
        )
        self.endpoint.reached = True
        return result


class CohereChat(_CohereBase):
    def __init__(self, llm_settings: LLMSettings, model: str) -> None:
        super().__init__(llm_settings, model)
        self._json_mode_ok = True

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int = 1200,
        json_mode: bool = False,
    ) -> ChatResult:
        payload = [
            {"role": m["role"], "content": m["content"]} if isinstance(m, dict) else {"role": m.role, "content": m.content}
            for m in messages
        ]
        kwargs: dict[str, Any] = {"model": self.model, "messages": payload, "temperature": temperature,
                                  "max_tokens": max_tokens}
        if json_mode and self._json_mode_ok:
            try:
                response = self._retrying(
                    lambda: self._client.chat(**kwargs, response_format={"type": "json_object"}), "chat")
                return self._result(response)
            except ProviderError as exc:
                if "HTTP 400" not in str(exc):
                    raise
                # Older models reject JSON mode; the prompt asks for JSON anyway.
                response = self._retrying(lambda: self._client.chat(**kwargs), "chat")
                self._json_mode_ok = False
                return self._result(response)
        return self._result(self._retrying(lambda: self._client.chat(**kwargs), "chat"))

    def _result(self, response: Any) -> ChatResult:
        message = getattr(response, "message", None)
        parts = getattr(message, "content", None) or []
        text = "".join(getattr(p, "text", "") or "" for p in parts if getattr(p, "type", "text") == "text")
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "tokens", None) or getattr(usage, "billed_units", None)
        return ChatResult(
            text=text,
            model=self.model,
            prompt_tokens=int(getattr(tokens, "input_tokens", 0) or 0),
            completion_tokens=int(getattr(tokens, "output_tokens", 0) or 0),
        )


class CohereEmbedder(_CohereBase):
    """Cohere embeddings: documents as "search_document", queries as "search_query" (the v3+ models
    embed the two sides differently). Named "cohere:<model>"."""

    def __init__(self, llm_settings: LLMSettings, model: str, batch_size: int = 64) -> None:
        super().__init__(llm_settings, model)
        self.name = f"cohere:{model}"
        self.batch_size = max(1, min(batch_size, EMBED_BATCH_LIMIT))
        self._lock = threading.Lock()
        self.usage = EmbedUsage()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(self._embed(list(texts[start:start + self.batch_size]), "search_document"))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], "search_query")[0]

    def _embed(self, batch: list[str], input_type: str) -> list[list[float]]:
        inputs = [t if t.strip() else " " for t in batch]
        response = self._retrying(
            lambda: self._client.embed(model=self.model, texts=inputs, input_type=input_type,
                                       embedding_types=["float"]),
            "embed",
        )
        vectors = getattr(getattr(response, "embeddings", None), "float_", None) or []
        if len(vectors) != len(inputs):
            raise ProviderError(f"cohere embed {self.model} returned {len(vectors)} vectors for {len(inputs)} texts")
        billed = getattr(getattr(response, "meta", None), "billed_units", None)
        with self._lock:
            self.usage.calls += 1
            self.usage.tokens += int(getattr(billed, "input_tokens", 0) or 0)
        return [list(map(float, v)) for v in vectors]


class CohereReranker(_CohereBase):
    """Cohere Rerank: scores every document against the query and returns the best `top_n`; `rank` is the
    one scoring interface (providers/base.Scorer) over passages."""

    def rank(self, query: RankQuery, documents: Sequence[Any], top_n: int = 0) -> list[ScoredDocument]:
        """One rerank call over the passages' texts for `query.text`; the best `top_n` (0: all)."""
        return self.rerank(query.text, [d.text for d in documents], top_n if top_n > 0 else len(documents))

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[RerankResult]:
        if not documents:
            return []
        top_n = max(1, min(top_n, len(documents)))
        response = self._retrying(
            lambda: self._client.rerank(model=self.model, query=query, documents=list(documents), top_n=top_n),
            "rerank",
        )
        results = []
        for item in getattr(response, "results", None) or []:
            if 0 <= item.index < len(documents):
                results.append(RerankResult(index=int(item.index), score=float(item.relevance_score)))
        results.sort(key=lambda r: -r.score)
        return results[:top_n]
