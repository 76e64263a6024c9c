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
run stops on its first call). Timeouts and 5xx are the server being slow, not gone: they keep the
per-call retries. Malformed replies (HTTP 200 with a body that is not JSON or not the API's shape) keep
them too, but `MALFORMED_THRESHOLD` of them in a row, across rows, with no good reply between, open the
breaker: such a server used to be retried five times a row to the end of the run (about 3 s a row)."""

from __future__ import annotations

import threading
from urllib.parse import urlsplit

from autofill.errors import EndpointError

DEFAULT_THRESHOLD = 3  # consecutive connection failures, across rows, that stop the run
MALFORMED_THRESHOLD = 5  # consecutive malformed replies (one call's attempts, or a few rows'), across rows


def host_of(base_url: str) -> str:
    """"host:port" of a base URL (no scheme, path, user info or query: nothing secret)."""
    parts = urlsplit(base_url if "://" in base_url else f"http://{base_url}")
    host = parts.hostname or base_url
    return f"{host}:{parts.port}" if parts.port else host


class EndpointDown(EndpointError):
    """The endpoint stopped answering during the run. Raised by every call once the breaker is open;
    the pipeline stops the run, writes back what finished and then raises it with `progress`."""

    def __init__(self, provider: str, model: str, base_url: str, reason: str, failures: int,
                 malformed: bool = False) -> None:
        self.provider, self.model, self.host, self.reason, self.failures = (
            provider, model, host_of(base_url), reason, failures)
        self.malformed = malformed
        self.finished_note = ""
        super().__init__(self._text())

    def _text(self) -> str:
        what = "keeps sending replies that cannot be read" if self.malformed else "stopped answering"
        check = "check that its URL is the API root and the server's log; " if self.malformed else ""
        return (f"the {self.provider} endpoint {self.host} (model {self.model!r}) {what}: "
                f"{self.reason}, {self.failures} times in a row{self.finished_note}; "
                f"{check}re-run the same command when it is back (finished rows are kept and not asked again)")

    def progress(self, finished: int, total: int, output: object | None = None) -> "EndpointDown":
        """The same error, saying how far the run got and where its finished rows were written."""
        where = f", written to {output}" if output else ""
        self.finished_note = f"; the run stopped with {finished} of {total} rows finished{where}"
        self.args = (self._text(),)
        return self


class Breaker:
    """Consecutive connection failures of one endpoint, shared by every thread calling it."""

    def __init__(self, provider: str, model: str, base_url: str, threshold: int = DEFAULT_THRESHOLD,
                 malformed_threshold: int = MALFORMED_THRESHOLD) -> None:
        self.provider, self.model, self.base_url = provider, model, base_url
        self.threshold = max(1, threshold)
        self.malformed_threshold = max(1, malformed_threshold)
        self._lock = threading.Lock()
        self._failures = 0
        self._malformed = 0
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
            self._failures = self._malformed = 0

    def failure(self, reason: str, connection: bool, malformed: bool = False) -> EndpointDown | None:
        """Record a failed attempt; the error to raise when this failure opened (or found open) the breaker."""
        with self._lock:
            if self._error is not None:
                return self._error
            if malformed:
                self._malformed += 1
                if self._malformed < self.malformed_threshold:
                    return None
                failures = self._malformed
            elif not connection:
                return None  # a slow server is not a gone one: the count stands
            else:
                self._failures += 1
                if self._failures < self.threshold:
                    return None
                failures = self._failures
            self._error = EndpointDown(self.provider, self.model, self.base_url, reason, failures, malformed)
        self._open.set()
        return self._error

    def wait(self, seconds: float) -> None:
        """A retry delay that ends early when the breaker opens (the next attempt then raises)."""
        self._open.wait(seconds)
