"""A run-wide circuit breaker: an endpoint that stops answering mid-run stops the run within seconds.

Without it, a server that died mid-run was retried row by row to the end: every remaining row went
through its own 5-attempt ladder (a 30-row run ground on for 70 s with 89 retry warnings; a 5,000-row
run would grind for hours). One `Breaker` belongs to an endpoint's client, which every row of a run
shares: it counts connection failures (connection refused, host not found) across rows, a success
resets the count, and after `threshold` in a row it opens. From then on every call of every row
raises `EndpointDown` at once, including calls waiting out a retry delay (they wait on the breaker).
The run keeps what finished (answer/pipeline.py writes it back and keeps the checkpoint) and exits
with one line naming the endpoint's host (never a key) and saying to re-run.

A failure to connect before the endpoint has ever answered stays reachability.py's EndpointError (the
run stops on its first call). Timeouts, 5xx and malformed bodies are the server being slow or buggy,
not gone: they keep the per-call retries."""

from __future__ import annotations

import threading
from urllib.parse import urlsplit

from autofill.errors import EndpointError

DEFAULT_THRESHOLD = 3  # consecutive connection failures, across rows, that stop the run


def host_of(base_url: str) -> str:
    """"host:port" of a base URL (no scheme, path, user info or query: nothing secret)."""
    parts = urlsplit(base_url if "://" in base_url else f"http://{base_url}")
    host = parts.hostname or base_url
    return f"{host}:{parts.port}" if parts.port else host


class EndpointDown(EndpointError):
    """The endpoint stopped answering during the run. Raised by every call once the breaker is open;
    the pipeline stops the run, writes back what finished and then raises it with `progress`."""

    def __init__(self, provider: str, model: str, base_url: str, reason: str, failures: int) -> None:
        self.provider, self.model, self.host, self.reason, self.failures = (
            provider, model, host_of(base_url), reason, failures)
        self.finished_note = ""
        super().__init__(self._text())

    def _text(self) -> str:
        return (f"the {self.provider} endpoint {self.host} (model {self.model!r}) stopped answering: "
                f"{self.reason}, {self.failures} times in a row{self.finished_note}; "
                "re-run the same command when it is back (finished rows are kept and not asked again)")

    def progress(self, finished: int, total: int, output: object | None = None) -> "EndpointDown":
        """The same error, saying how far the run got and where its finished rows were written."""
        where = f", written to {output}" if output else ""
        self.finished_note = f"; the run stopped with {finished} of {total} rows finished{where}"
        self.args = (self._text(),)
        return self


class Breaker:
    """Consecutive connection failures of one endpoint, shared by every thread calling it."""

    def __init__(self, provider: str, model: str, base_url: str, threshold: int = DEFAULT_THRESHOLD) -> None:
        self.provider, self.model, self.base_url = provider, model, base_url
        self.threshold = max(1, threshold)
        self._lock = threading.Lock()
        self._failures = 0
        self._open = threading.Event()
        self._error: EndpointDown | None = None

    @property
    def is_open(self) -> bool:
        return self._open.is_set()

    def check(self) -> None:
        """Before a call: raise the run-stopping error once the breaker is open."""
        if self._error is not None:
            raise self._error

    def success(self) -> None:
        with self._lock:
            self._failures = 0

    def failure(self, reason: str, connection: bool) -> EndpointDown | None:
        """Record a failed attempt; the error to raise when this failure opened (or found open) the breaker."""
        with self._lock:
            if self._error is not None:
                return self._error
            if not connection:
                return None  # a slow or buggy server is not a gone one: the count stands
            self._failures += 1
            if self._failures < self.threshold:
                return None
            self._error = EndpointDown(self.provider, self.model, self.base_url, reason, self._failures)
        self._open.set()
        return self._error

    def wait(self, seconds: float) -> None:
        """A retry delay that ends early when the breaker opens (the next attempt then raises)."""
        self._open.wait(seconds)
