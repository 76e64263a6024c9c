"""OpenAI and every OpenAI-compatible server (Azure OpenAI, Ollama, vLLM, llama.cpp server) through
the `openai` SDK. The only module that imports `openai`.

- `llm.base_url` (OPENAI_BASE_URL) points the client anywhere; self-hosted servers need no key, but
  the SDK insists on one, so NO_KEY is sent when a base URL is set without a key.
- A base URL on *.openai.azure.com selects `AzureOpenAI` with `llm.azure_api_version`; the model
  name is then the deployment name. Azure's ".../openai/v1/" URL works with the plain client.
- The SDK's own retries are off; `autofill.providers.retry` decides, so request counts are exact.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Sequence
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from autofill import imports
from autofill.errors import InputError, ProviderError
from autofill.providers.base import ChatMessage, ChatResult, EmbedUsage
from autofill.providers.reachability import Endpoint, connect_failure
from autofill.providers.retry import Failure, call_with_retries, is_transient_status, parse_retry_after, scrub
from autofill.settings import LLMSettings

# Sent as the API key to self-hosted OpenAI-compatible servers that ignore it; the SDK refuses none.
NO_KEY = "no-key-required"
AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MALFORMED_HINT = ("check that OPENAI_BASE_URL (llm.base_url) is an OpenAI-compatible API root (ending in /v1), "
                  "and the server's or proxy's log for replies cut short")


def endpoint(llm: LLMSettings, provider: str, model: str) -> Endpoint:
    """Where this client's calls go, for the run-level errors of reachability.py."""
    return Endpoint(provider, model, llm.base_url or DEFAULT_BASE_URL, "OPENAI_BASE_URL", "OPENAI_API_KEY",
                    api_version=llm.azure_api_version if provider == "azure" else "")


def is_azure(base_url: str) -> bool:
    """An Azure resource URL that needs the deployments API (AzureOpenAI client). Azure's newer
    ".../openai/v1" endpoint speaks the plain OpenAI API and is served by the ordinary client."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if parts.path.rstrip("/").endswith("/openai/v1"):
        return False
    return any(host.endswith(suffix) for suffix in AZURE_HOST_SUFFIXES)


def _api_key(llm: LLMSettings) -> str:
    if llm.api_key:
        return str(llm.api_key)
    if llm.base_url:
        return NO_KEY
    raise InputError("the OpenAI provider needs OPENAI_API_KEY, or OPENAI_BASE_URL for a self-hosted server")


def make_client(llm: LLMSettings, azure: bool | None = None) -> Any:
    """An SDK client from settings. `azure` forces (True) or forbids (False) the Azure client;
    None decides from the base URL's host."""
    # openai 3.x reads the legacy `httpx` from sys.modules on every request: import it completely
    # before the first request, so a thread importing chromadb (which imports httpx) meanwhile can never
    # leave it half-initialised under a request (autofill/imports.py).
    imports.load("httpx")
    openai = imports.load("openai")

    key = _api_key(llm)
    use_azure = is_azure(llm.base_url) if azure is None else azure
    if use_azure:
        if not llm.base_url:
            raise InputError("Azure OpenAI needs OPENAI_BASE_URL=https://<resource>.openai.azure.com")
        parts = urlsplit(llm.base_url)
        # The SDK builds /openai/deployments/<model>/... itself: give it the resource root only.
        endpoint = f"{parts.scheme}://{parts.netloc}"
        return openai.AzureOpenAI(azure_endpoint=endpoint, api_key=key, api_version=llm.azure_api_version,
                                  timeout=llm.timeout_s, max_retries=0)
    # A query in the URL (a proxy's ?api-key=...) goes with every request: the SDK appends paths to the
    # base URL's text, so a query left there would swallow them.
    parts = urlsplit(llm.base_url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True)) or None
    base_url = urlunsplit(parts._replace(query="", fragment="")) if query else llm.base_url
    return openai.OpenAI(api_key=key, base_url=base_url or None, default_query=query, timeout=llm.timeout_s,
                         max_retries=0)


def classify(exc: BaseException) -> Failure | None:
    """Map an openai SDK exception to a retry decision; None for anything that is not an API failure."""
    openai = imports.load("openai")

    if isinstance(exc, openai.APITimeoutError):
        return Failure(transient=True, reason="request timed out")
    if isinstance(exc, openai.APIConnectionError):
        refused = connect_failure(exc)
        return Failure(transient=True, reason=refused or f"connection error: {exc.message}", connect=bool(refused))
    if isinstance(exc, openai.APIStatusError):
        return Failure(
            transient=is_transient_status(exc.status_code),
            reason=f"HTTP {exc.status_code}: {_error_message(exc)}",
            retry_after=parse_retry_after(exc.response.headers),
            status=exc.status_code,
        )
    if isinstance(exc, openai.OpenAIError):
        return Failure(transient=False, reason=f"{type(exc).__name__}: {exc}")
    if isinstance(exc, json.JSONDecodeError):  # the SDK parses the body itself and lets this through
        return Failure(transient=True, reason=f"malformed response body (not JSON: {exc.msg} at character {exc.pos})",
                       hint=MALFORMED_HINT, malformed=True)
    if isinstance(exc, MalformedReply):
        return Failure(transient=True, reason=f"malformed response body ({exc})", hint=MALFORMED_HINT, malformed=True)
    return None


class MalformedReply(Exception):
    """An HTTP 200 whose JSON is not a chat completion (no choices, no message): the server's fault."""


def _checked(response: Any) -> Any:
    """`response` when it has the shape of a chat completion; else MalformedReply (retried, counted)."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise MalformedReply("no choices in the reply")
    if getattr(choices[0], "message", None) is None:
        raise MalformedReply("no message in the reply's first choice")
    return response


def _error_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(getattr(exc, "message", "") or exc)


def _as_dict(message: ChatMessage | dict) -> dict[str, str]:
    if isinstance(message, dict):
        return {"role": message["role"], "content": message["content"]}
    return {"role": message.role, "content": message.content}


class OpenAIChat:
    """Chat completions. `complete` returns the text with the API's token usage.

    Compatible servers and newer models disagree on parameters. A 400 that names one we sent is
    answered by resending without it, and remembered for later calls: `response_format` (servers
    without JSON mode; the prompt asks for JSON anyway and the parser tolerates text around it),
    `temperature` (reasoning models accept only the default) and `max_tokens` (renamed
    `max_completion_tokens` for reasoning models)."""

    def __init__(self, llm_settings: LLMSettings, model: str, azure: bool | None = None) -> None:
        self.model = model
        self._llm = llm_settings
        self._azure = is_azure(llm_settings.base_url) if azure is None else azure
        _api_key(llm_settings)  # a missing key is bad input now, not at the first call
        if self._azure and not llm_settings.base_url:
            raise InputError("Azure OpenAI needs OPENAI_BASE_URL=https://<resource>.openai.azure.com")
        # The SDK client (and the openai import, ~1 s) waits for the first call: a re-run answered
        # from the response cache never makes one.
        self._sdk: Any = None
        self._sdk_lock = threading.Lock()
        self._provider = "azure" if self._azure else "openai"
        self.endpoint = endpoint(llm_settings, self._provider, model)
        self._json_mode_ok = True
        self._temperature_ok = True
        self._max_tokens_key = "max_tokens"

    @property
    def _client(self) -> Any:
        with self._sdk_lock:
            if self._sdk is None:
                self._sdk = make_client(self._llm, azure=self._azure)
            return self._sdk

    def prepare(self) -> None:
        """Build the SDK client now (or wait for the thread building it): the first call needs it."""
        self._client  # noqa: B018 - the property builds it

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int = 1200,
        json_mode: bool = False,
    ) -> ChatResult:
        payload = [_as_dict(m) for m in messages]
        wanted_json = json_mode = json_mode and self._json_mode_ok
        send_temperature, max_tokens_key = self._temperature_ok, self._max_tokens_key
        for _ in range(4):  # at most one adaptation per parameter, then the 400 stands
            kwargs: dict[str, Any] = {"model": self.model, "messages": payload, max_tokens_key: max_tokens}
            if send_temperature:
                kwargs["temperature"] = temperature
            if json_mode:
                kwargs["response_format"] = {"type": "json_object"}
            try:
                result = self._call(kwargs)
            except _BadRequest as bad:
                text = bad.message.lower()
                if max_tokens_key == "max_tokens" and "max_completion_tokens" in text:
                    max_tokens_key = "max_completion_tokens"
                elif send_temperature and "temperature" in text:
                    send_temperature = False
                elif json_mode:
                    json_mode = False  # servers word this many ways; try once without it
                else:
                    raise ProviderError(f"{self._provider} chat {self.model} failed: HTTP 400: "
                                        f"{scrub(bad.message, [str(self._llm.api_key)])}") from None
                continue
            # The request that worked shows what this endpoint accepts: remember it.
            self._max_tokens_key = max_tokens_key
            self._temperature_ok = self._temperature_ok and send_temperature
            if wanted_json and not json_mode:
                self._json_mode_ok = False
            return result
        raise ProviderError(f"{self._provider} chat {self.model} failed: HTTP 400 after adapting parameters")

    def _call(self, kwargs: dict[str, Any]) -> ChatResult:
        openai = imports.load("openai")

        def once() -> Any:
            try:
                response = self._client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                raise _BadRequest(_error_message(exc)) from exc
            return _checked(response)

        response = call_with_retries(
            once, classify=classify, what=f"{self._provider} chat {self.model} at {self.endpoint.host}",
            max_retries=self._llm.max_retries, base_delay_s=self._llm.retry_base_delay_s,
            secrets=[str(self._llm.api_key)], fatal=self.endpoint.check, breaker=self.endpoint.breaker,
        )
        self.endpoint.reached = True
        return _to_result(response, self.model, self._provider)


class _BadRequest(Exception):
    """A 400: not transient, but possibly fixed by resending without a parameter (see OpenAIChat)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _to_result(response: Any, model: str, provider: str) -> ChatResult:
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise ProviderError(f"{provider} chat {model} returned no choices")
    text = choices[0].message.content or ""
    usage = getattr(response, "usage", None)
    return ChatResult(
        text=text,
        # The served model ("gpt-4o-mini-2024-07-18", or the real model behind an Azure deployment)
        # prices the call; fall back to the configured name when a server leaves it out.
        model=getattr(response, "model", None) or model,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


class OpenAIEmbedder:
    """Embeddings endpoint, in batches. Named "openai:<model>" so a store remembers who built it."""

    def __init__(self, llm_settings: LLMSettings, model: str, batch_size: int = 64, azure: bool | None = None) -> None:
        self.model = model
        self.name = f"openai:{model}"
        self.batch_size = max(1, batch_size)
        self._llm = llm_settings
        self._client = make_client(llm_settings, azure=azure)
        self.endpoint = endpoint(llm_settings, "openai", model)
        self._lock = threading.Lock()
        self.usage = EmbedUsage()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(self._embed(list(texts[start:start + self.batch_size])))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text])[0]

    def _embed(self, batch: list[str]) -> list[list[float]]:
        # The API rejects empty strings; a blank keeps positions aligned.
        inputs = [t if t.strip() else " " for t in batch]
        response = call_with_retries(
            lambda: self._client.embeddings.create(model=self.model, input=inputs, encoding_format="float"),
            classify=classify, what=f"openai embeddings {self.model} at {self.endpoint.host}",
            max_retries=self._llm.max_retries, base_delay_s=self._llm.retry_base_delay_s,
            secrets=[str(self._llm.api_key)], fatal=self.endpoint.check, breaker=self.endpoint.breaker,
        )
        self.endpoint.reached = True
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(inputs):
            raise ProviderError(f"openai embeddings {self.model} returned {len(data)} vectors for {len(inputs)} texts")
        with self._lock:
            self.usage.calls += 1
            self.usage.tokens += int(getattr(response.usage, "prompt_tokens", 0) or 0)
        return [list(map(float, d.embedding)) for d in data]
