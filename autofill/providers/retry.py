"""One retry policy for every provider SDK.

The SDKs' own retries are switched off (max_retries=0) so that the number of requests is exactly
what this module decides: transient failures (429, 408, 409, 5xx, timeouts, connection errors) are
retried up to `max_retries` times with exponential backoff and jitter, honouring a server's
Retry-After, and malformed or truncated reply bodies (a proxy or an overloaded server cutting a reply
short); anything else (400, 401, 403, 404) fails at once. The final error is
an `autofill.errors.ProviderError` with a one-line reason that never contains an API key.

A malformed reply (HTTP 200 with a body that is not JSON, or not the API's shape) was answered by the
server, and may have been billed: each one is counted as a call (`unread_replies`, which the row's call
opens around each model call) whether or not the call ends well, and counts towards the endpoint's
breaker (breaker.py), so a server that only ever sends such bodies stops the run.
"""

from __future__ import annotations

import dataclasses
import email.utils
import logging
import random
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, TypeVar

from autofill.errors import ProviderError
from autofill.redact import safe_text

log = logging.getLogger("autofill.providers")

T = TypeVar("T")

TRANSIENT_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_DELAY_S = 60.0  # never wait longer than this between attempts, whatever Retry-After says
MAX_MESSAGE_CHARS = 300


def _sleep(seconds: float) -> None:
    """Indirection so tests can observe the waits without sleeping."""
    time.sleep(seconds)


def _wait_on(breaker: Any) -> Callable[[float], None]:
    """A retry delay that ends when the endpoint's breaker opens (`_sleep` when tests replace it)."""
    return breaker.wait if _sleep is _real_sleep else _sleep


_real_sleep = _sleep


@dataclass
class Failure:
    """What went wrong in one attempt, as a provider module classifies its SDK's exception."""

    transient: bool
    reason: str  # short, e.g. "HTTP 429: rate limit exceeded" or "timed out after 30s"
    retry_after: float | None = None  # seconds the server asked us to wait
    status: int | None = None
    connect: bool = False  # no connection could be made (refused, unknown host): see reachability.py
    hint: str = ""  # what to check, added to the final error (a malformed body: the URL, a proxy)
    malformed: bool = False  # the server answered 200 with a body that is not a reply (counted, see above)


_UNREAD: ContextVar[list[int] | None] = ContextVar("autofill_unread_replies", default=None)


@contextmanager
def unread_replies():
    """Count the malformed replies of the calls made inside (this thread's): `with unread_replies() as n:`
    ... `n[0]`. The calls are synchronous, so the count is exactly this call's, whatever other rows do."""
    box = [0]
    token = _UNREAD.set(box)
    try:
        yield box
    finally:
        _UNREAD.reset(token)


def is_transient_status(status: int | None) -> bool:
    return status is not None and (status in TRANSIENT_STATUS or status >= 500)


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (delta-seconds or an HTTP date); None if absent."""
    if not headers:
        return None
    lower = {str(k).lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def scrub(text: str, secrets: Iterable[str]) -> str:
    """One line, bounded, with every secret replaced (servers echo wrong keys in 401 messages) and
    made safe to show (autofill/redact.py: URL credentials, key headers, the secrets the CLI knows)."""
    out = safe_text(" ".join(str(text).split()))
    for secret in secrets:
        if secret and len(secret) >= 4:
            out = out.replace(secret, "***")
    if len(out) > MAX_MESSAGE_CHARS:
        out = out[: MAX_MESSAGE_CHARS - 3] + "..."
    return out


def backoff_delay(attempt: int, base_delay_s: float, retry_after: float | None, rng: random.Random) -> float:
    """Delay before retry number `attempt` (0-based): the server's Retry-After when given, else
    base * 2**attempt scaled by a random factor in [0.5, 1.0] so concurrent rows do not retry in step."""
    if retry_after is not None:
        return min(retry_after, MAX_DELAY_S)
    return min(base_delay_s * (2**attempt) * rng.uniform(0.5, 1.0), MAX_DELAY_S)


def call_with_retries(
    fn: Callable[[], T],
    *,
    classify: Callable[[BaseException], Failure | None],
    what: str,
    max_retries: int,
    base_delay_s: float,
    secrets: Iterable[str] = (),
    sleep: Callable[[float], None] | None = None,
    rng: random.Random | None = None,
    fatal: Callable[[Failure], Exception | None] | None = None,
    breaker: Any = None,
) -> T:
    """Run `fn`, retrying transient failures. `classify` maps an SDK exception to a Failure, or None
    for exceptions that are not provider failures (programming errors propagate unchanged).
    `what` names the call in messages, e.g. "openai chat gpt-4o-mini". `fatal` (reachability.py)
    turns a failure that makes the whole endpoint unusable into the error to raise at once. `breaker`
    (breaker.py, shared by every row calling the endpoint): an open one stops this call before each
    attempt and cuts its retry delays short; a success closes the count."""
    secrets = [s for s in secrets if s]
    rng = rng or random.Random()
    attempts = max(0, max_retries) + 1
    for attempt in range(attempts):
        if breaker is not None:
            breaker.check()
        try:
            result = fn()
        except ProviderError:
            raise
        except Exception as exc:  # noqa: BLE001 - classified below, re-raised when unknown
            failure = classify(exc)
            if failure is None:
                raise
            reason = scrub(failure.reason, secrets)
            if failure.malformed:
                box = _UNREAD.get()
                if box is not None:
                    box[0] += 1
            stop = fatal(dataclasses.replace(failure, reason=reason)) if fatal is not None else None
            if stop is not None:
                raise stop from None
            hint = f"; {failure.hint}" if failure.hint else ""
            if not failure.transient:
                raise ProviderError(f"{what} failed: {reason}{hint}") from None
            if attempt + 1 >= attempts:
                tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
                raise ProviderError(f"{what} failed after {tries}: {reason}{hint}") from None
            delay = backoff_delay(attempt, base_delay_s, failure.retry_after, rng)
            log.warning("%s: %s; retry %d of %d in %.2fs", what, reason, attempt + 1, attempts - 1, delay)
            (sleep or _sleep)(delay) if breaker is None else (sleep or _wait_on(breaker))(delay)
            continue
        if breaker is not None:
            breaker.success()
        return result
    raise AssertionError("unreachable")  # pragma: no cover
