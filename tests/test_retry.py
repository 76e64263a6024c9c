"""The shared retry policy, unit-level and through the real openai SDK against the loopback server."""

from __future__ import annotations

import random

import pytest

from autofill.errors import EndpointError, InputError, ProviderError
from autofill.providers.base import ChatMessage
from autofill.providers.openai_provider import OpenAIChat, OpenAIEmbedder
from autofill.providers.retry import (
    MAX_DELAY_S,
    Failure,
    backoff_delay,
    call_with_retries,
    parse_retry_after,
    scrub,
)
from autofill.settings import LLMSettings, Secret

KEY = "sk-retry-0123456789"
MSGS = [ChatMessage("user", "hello")]


def chat_for(server, **kw) -> OpenAIChat:
    values = dict(base_url=server.base_url, api_key=Secret(KEY), retry_base_delay_s=0.01, timeout_s=5.0)
    values.update(kw)
    return OpenAIChat(LLMSettings(**values), model="gpt-4o-mini")


@pytest.mark.parametrize("status", [429, 500, 502, 503])
def test_transient_status_then_success_is_retried(llm_server, status):
    llm_server.fail_next(2, status=status)
    assert chat_for(llm_server).complete(MSGS).text == "OK"
    assert [r.status for r in llm_server.requests] == [status, status, 200]


def test_retry_after_is_honoured(llm_server, monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr("autofill.providers.retry._sleep", slept.append)
    llm_server.fail_next(1, status=429, retry_after=7)
    chat_for(llm_server).complete(MSGS)
    assert slept == [7.0]
    assert llm_server.count() == 2


def test_timeout_then_success(llm_server):
    llm_server.stall_next(1, seconds=3.0)
    result = chat_for(llm_server, timeout_s=0.3).complete(MSGS)
    assert result.text == "OK"
    assert llm_server.count("chat") == 2


def test_persistent_failure_gives_up_after_max_retries(llm_server):
    llm_server.fail_next(10, status=503, message="overloaded")
    with pytest.raises(ProviderError) as err:
        chat_for(llm_server, max_retries=2).complete(MSGS)
    assert str(err.value) == (f"openai chat gpt-4o-mini at 127.0.0.1:{llm_server.port} failed after 3 attempts: "
                              "HTTP 503: overloaded")
    assert llm_server.count() == 3


def test_zero_retries_means_one_attempt(llm_server):
    llm_server.fail_next(1, status=500)
    with pytest.raises(ProviderError, match="after 1 attempt:"):
        chat_for(llm_server, max_retries=0).complete(MSGS)
    assert llm_server.count() == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_fail_at_once(llm_server, status):
    llm_server.fail_next(1, status=status, message=f"nope {status}")
    # 401/403 (key) and 404 (model or path) make the whole endpoint unusable: a run-level input error
    # naming the URL; a 400 is about this request only.
    expected = ProviderError if status == 400 else EndpointError
    with pytest.raises(expected, match=f"HTTP {status}: nope {status}") as err:
        chat_for(llm_server).complete(MSGS)
    assert llm_server.count() == 1
    if status != 400:
        assert isinstance(err.value, InputError) and llm_server.base_url in str(err.value)
        assert ("OPENAI_API_KEY" if status in (401, 403) else "model name") in str(err.value)


def test_wrong_key_fails_once_with_a_clear_message_and_no_key():
    from tests.llm_server import LLMServer

    with LLMServer(require_key="sk-the-right-one") as server:
        with pytest.raises(EndpointError) as err:
            chat_for(server).complete(MSGS)
        message = str(err.value)
        assert message.startswith(f"cannot use openai model 'gpt-4o-mini' at {server.base_url}: "
                                  "HTTP 401: Incorrect API key provided")
        assert message.endswith("check OPENAI_API_KEY: the server refused the key")
        assert KEY not in message and "\n" not in message
        assert err.value.__cause__ is None and err.value.__suppress_context__
        assert server.count() == 1


def test_connection_refused_on_the_first_call_stops_at_once():
    from tests.llm_server import LLMServer

    server = LLMServer().start()
    url = server.base_url
    server.stop()  # nothing listens on that port any more
    chat = OpenAIChat(LLMSettings(base_url=url, api_key=Secret(KEY), retry_base_delay_s=5, max_retries=4),
                      model="m")
    with pytest.raises(EndpointError) as err:
        chat.complete(MSGS)  # no retries: a 5 s base delay would make this test take a minute
    assert str(err.value) == (f"cannot use openai model 'm' at {url}: connection refused; check OPENAI_BASE_URL "
                              "(llm.base_url) and that the server is running")


def test_connection_refused_after_a_reply_is_transient_then_stops_the_run():
    """A refusal after the endpoint has answered is retried (a restart), but the third refusal in a row,
    whichever call meets it, opens the endpoint's breaker: every later call fails at once."""
    from autofill.providers.breaker import EndpointDown
    from tests.llm_server import LLMServer

    server = LLMServer().start()
    chat = OpenAIChat(LLMSettings(base_url=server.base_url, api_key=Secret(KEY), retry_base_delay_s=0.001,
                                  max_retries=1), model="m")
    chat.complete(MSGS)  # the endpoint answered once: it exists, a later refusal may be a restart
    port = server.port
    server.stop()
    with pytest.raises(ProviderError, match="after 2 attempts: connection refused"):
        chat.complete(MSGS)
    with pytest.raises(EndpointDown) as down:
        chat.complete(MSGS)
    assert f"127.0.0.1:{port}" in str(down.value) and KEY not in str(down.value)
    assert "3 times in a row" in str(down.value) and "re-run" in str(down.value)
    with pytest.raises(EndpointDown):  # open: no attempt at all
        chat.complete(MSGS)


def test_embeddings_are_retried_too(llm_server):
    llm_server.fail_next(1, status=500, routes=("embeddings",))
    embedder = OpenAIEmbedder(LLMSettings(base_url=llm_server.base_url, retry_base_delay_s=0.01),
                              model="text-embedding-3-small")
    assert len(embedder.embed_documents(["a", "b"])) == 2
    assert [r.status for r in llm_server.requests] == [500, 200]


# ---- pure parts


def test_parse_retry_after_forms():
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


def test_backoff_grows_with_jitter_and_is_capped():
    rng = random.Random(1)
    delays = [backoff_delay(i, 1.0, None, rng) for i in range(4)]
    for i, d in enumerate(delays):
        assert 0.5 * 2**i <= d <= 2**i
    assert backoff_delay(20, 1.0, None, rng) == MAX_DELAY_S
    assert backoff_delay(0, 1.0, 2.5, rng) == 2.5
    assert backoff_delay(0, 1.0, 1e6, rng) == MAX_DELAY_S


def test_unknown_exceptions_propagate_unchanged():
    calls = []

    def boom():
        calls.append(1)
        raise KeyError("bug")

    with pytest.raises(KeyError):
        call_with_retries(boom, classify=lambda e: None, what="x", max_retries=3, base_delay_s=0)
    assert calls == [1]


def test_scrub_removes_secrets_and_newlines():
    assert scrub("bad key sk-abcdef\nsecond line", ["sk-abcdef", ""]) == "bad key *** second line"
    assert len(scrub("x" * 1000, [])) == 300


def test_sleeps_between_attempts_only():
    slept: list[float] = []
    outcomes = iter([Failure(True, "HTTP 500: a"), Failure(True, "HTTP 500: b"), None])

    def fn():
        failure = next(outcomes)
        if failure is None:
            return "done"
        raise RuntimeError(failure.reason)

    def classify(exc):
        return Failure(True, str(exc))

    assert call_with_retries(fn, classify=classify, what="t", max_retries=4, base_delay_s=0.5,
                             sleep=slept.append, rng=random.Random(0)) == "done"
    assert len(slept) == 2 and 0.25 <= slept[0] <= 0.5 and 0.5 <= slept[1] <= 1.0
