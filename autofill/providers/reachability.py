"""Run-level provider failures: an endpoint that cannot be used at all stops the run on its first call.

Connection refused, a host name that does not resolve, a refused key (401/403) and an unknown model or
path (404) are not a row's problem: every row would hit them, each after its retries, and a run would
end with an all-failed workbook. They raise `EndpointError` (an InputError: one line, exit 2) naming
the provider, model, base URL and what to check, before any output is written. Transient failures
(429, 5xx, timeouts) keep the retries in retry.py. A connection that fails after the endpoint has
answered once in this run is transient for that call (the server may be restarting), and counts towards
the run's circuit breaker (breaker.py): a few in a row, across rows, stop the run."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field

from autofill.errors import EndpointError
from autofill.providers.breaker import Breaker, host_of
from autofill.providers.retry import Failure
from autofill.redact import safe_text, safe_url

FATAL_STATUS = {401: "key", 403: "key", 404: "model"}


def connect_failure(exc: BaseException) -> str | None:
    """Why a connection could not be made at all ("connection refused", "host name not found"), from
    the exception's cause chain; None when `exc` is not a failure to connect (timeouts, resets)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    connect_error = None
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        if isinstance(current, socket.gaierror):
            return "host name not found"
        if type(current).__name__ == "ConnectError" and connect_error is None:
            connect_error = str(current) or "cannot connect"
        current = current.__cause__ or current.__context__
    if connect_error is not None:
        low = connect_error.lower()
        if "name or service not known" in low or "nodename nor servname" in low or "getaddrinfo" in low:
            return "host name not found"
        if "refused" in low:
            return "connection refused"
        return f"cannot connect ({connect_error})"
    return None


@dataclass
class Endpoint:
    """Where a client sends its calls, for messages: `provider` ("openai", "cohere", "azure"), the
    model, the base URL and the environment variables that set them."""

    provider: str
    model: str
    base_url: str
    url_variable: str  # OPENAI_BASE_URL / COHERE_BASE_URL
    key_variable: str  # OPENAI_API_KEY / COHERE_API_KEY
    reached: bool = False  # a call has succeeded: a later connection failure is transient
    api_version: str = ""  # Azure's api-version: part of the response cache's key (cache.py)
    # Connection failures across rows after the endpoint has answered: enough in a row stop the run.
    breaker: Breaker = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.breaker = Breaker(self.provider, self.model, self.base_url)

    @property
    def host(self) -> str:
        """Where calls go, for messages: host and port only (no path, user info or query)."""
        return host_of(self.base_url)

    def check(self, failure: Failure) -> EndpointError | None:
        """The run-level error for `failure`, or None when it is a row's (retried or failed) problem."""
        kind = FATAL_STATUS.get(failure.status or 0)
        if kind is None and failure.connect and not self.reached:
            kind = "connect"
        if kind is None:
            # Answered before: a failure to connect now counts towards stopping the run (breaker.py), and so
            # does a malformed reply (a server that only ever sends those is as good as gone).
            return self.breaker.failure(failure.reason, connection=failure.connect, malformed=failure.malformed)
        what = {"connect": f"check {self.url_variable} (llm.base_url) and that the server is running",
                "key": f"check {self.key_variable}: the server refused the key",
                "model": f"check the model name (--model, llm.model) and that {self.url_variable} is the API root "
                         "(ending in /v1 for OpenAI-compatible servers)"}[kind]
        return EndpointError(f"cannot use {self.provider} model {self.model!r} at {safe_url(self.base_url)}: "
                             f"{safe_text(failure.reason)}; {what}")
