"""On-disk LLM response cache: hits make no requests, keys cover every parameter, writes are atomic."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from autofill.providers.base import ChatMessage, ChatModel, ChatResult
from autofill.providers.cache import CachedChat, cache_key
from autofill.providers.openai_provider import OpenAIChat
from autofill.settings import LLMSettings, Secret
from tests.llm_server import Reply

MSGS = [ChatMessage("system", "s"), ChatMessage("user", "What is the Scope 1 total?")]


class CountingChat:
    """A scripted ChatModel that counts calls (the cache logic alone, without HTTP)."""

    def __init__(self, model: str = "m") -> None:
        self.model = model
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, messages, *, temperature=0.0, max_tokens=1200, json_mode=False) -> ChatResult:
        with self._lock:
            self.calls += 1
            n = self.calls
        return ChatResult(text=f"reply {n}: {messages[-1].content}", model=self.model, prompt_tokens=10 * n,
                          completion_tokens=n)


def test_identical_call_hits_disk_with_zero_requests(llm_server, tmp_path):
    llm_server.queue(Reply(text="9.1 Mt", prompt_tokens=321, completion_tokens=12))
    settings = LLMSettings(base_url=llm_server.base_url, api_key=Secret("sk-x"), retry_base_delay_s=0.01)
    chat = CachedChat(OpenAIChat(settings, model="gpt-4o-mini"), tmp_path / "cache", provider="openai")
    assert isinstance(chat, ChatModel) and chat.model == "gpt-4o-mini"
    first = chat.complete(MSGS, temperature=0.0, max_tokens=100, json_mode=True)
    assert (first.text, first.cached, first.prompt_tokens) == ("9.1 Mt", False, 321)
    assert llm_server.count() == 1

    # A fresh wrapper (a new run) over a fresh client: served from disk, no request at all.
    again = CachedChat(OpenAIChat(settings, model="gpt-4o-mini"), tmp_path / "cache", provider="openai")
    second = again.complete(MSGS, temperature=0.0, max_tokens=100, json_mode=True)
    assert second.cached and second.text == "9.1 Mt"
    assert (second.prompt_tokens, second.completion_tokens, second.model) == (321, 12, "gpt-4o-mini")
    assert llm_server.count() == 1
    assert (again.hits, again.misses) == (1, 0)


def test_on_miss_runs_once_before_the_first_call_that_goes_out_and_never_on_hits(tmp_path):
    inner = CountingChat()
    seen = []
    chat = CachedChat(inner, tmp_path / "cache", provider="openai")
    chat.complete(MSGS)  # fills the cache: no hook set yet
    chat.on_miss = lambda: seen.append(inner.calls)
    chat.complete(MSGS)  # a hit
    assert seen == []
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: chat.complete([ChatMessage("user", f"q{i}")]), range(16)))
    assert seen == [1]  # once, before the first miss reached the model (which had 1 call then)
    assert chat.on_miss is None and inner.calls == 17


def test_every_parameter_is_part_of_the_key(tmp_path):
    inner = CountingChat()
    chat = CachedChat(inner, tmp_path, provider="openai")
    base = dict(temperature=0.0, max_tokens=100, json_mode=False)
    chat.complete(MSGS, **base)
    chat.complete(MSGS, **base)
    assert inner.calls == 1
    chat.complete(MSGS, **{**base, "temperature": 0.5})
    chat.complete(MSGS, **{**base, "max_tokens": 101})
    chat.complete(MSGS, **{**base, "json_mode": True})
    chat.complete([ChatMessage("system", "s"), ChatMessage("user", "other")], **base)
    chat.complete([ChatMessage("user", "s"), ChatMessage("user", "What is the Scope 1 total?")], **base)
    assert inner.calls == 6
    other_model = CachedChat(CountingChat(model="m2"), tmp_path, provider="openai")
    other_model.complete(MSGS, **base)
    assert other_model.chat.calls == 1
    other_provider = CachedChat(CountingChat(), tmp_path, provider="cohere")
    other_provider.complete(MSGS, **base)
    assert other_provider.chat.calls == 1


def test_key_is_stable_and_int_float_temperature_agree():
    a = cache_key("openai", "m", MSGS, 0, 100, False)
    assert a == cache_key("openai", "m", MSGS, 0.0, 100, False)
    assert a == cache_key("openai", "m", [{"role": "system", "content": "s"},
                                          {"role": "user", "content": "What is the Scope 1 total?"}], 0.0, 100, False)
    assert len(a) == 64


def test_entries_are_sharded_files_without_temp_leftovers(tmp_path):
    chat = CachedChat(CountingChat(), tmp_path, provider="openai")
    for i in range(5):
        chat.complete([ChatMessage("user", f"q{i}")])
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert len(files) == 5
    for f in files:
        assert f.parent.name == f.name[:2] and f.suffix == ".json"
        entry = json.loads(f.read_text())
        assert entry["text"].startswith("reply") and "messages" not in entry
    assert not list(tmp_path.rglob(".tmp-*"))


def test_corrupt_entry_is_a_miss_and_is_replaced(tmp_path):
    inner = CountingChat()
    chat = CachedChat(inner, tmp_path, provider="openai")
    chat.complete(MSGS)
    (path,) = [p for p in tmp_path.rglob("*.json")]
    path.write_text("{not json")
    result = chat.complete(MSGS)
    assert not result.cached and inner.calls == 2
    assert chat.complete(MSGS).cached and inner.calls == 2


def test_concurrent_threads_share_the_cache(tmp_path):
    inner = CountingChat()
    chat = CachedChat(inner, tmp_path, provider="openai")
    prompts = [[ChatMessage("user", f"q{i % 4}")] for i in range(40)]
    with ThreadPoolExecutor(8) as pool:
        for messages in prompts[:4]:
            chat.complete(messages)  # warm: one entry per distinct prompt
        results = list(pool.map(chat.complete, prompts))
    assert inner.calls == 4
    assert all(r.cached for r in results)
    assert {r.text.split(": ")[1] for r in results} == {"q0", "q1", "q2", "q3"}


def test_unwritable_cache_does_not_fail_the_call(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    chat = CachedChat(CountingChat(), blocker, provider="openai")
    assert chat.complete(MSGS).text.startswith("reply 1")


_WRITER = """
import json, sys
from autofill.providers.base import ChatMessage, ChatResult
from autofill.providers.cache import CachedChat

class Fixed:
    model = "m"
    def complete(self, messages, **kw):
        return ChatResult(text="same answer " * 2000, model="m", prompt_tokens=5, completion_tokens=6)

chat = CachedChat(Fixed(), sys.argv[1], provider="openai")
torn = 0
for round in range(40):
    for i in range(10):
        chat.complete([ChatMessage("user", f"q{i}")])
    for p in list(chat.cache_dir.rglob("*.json")):
        try:
            json.loads(p.read_text())  # another process may be replacing it right now
        except FileNotFoundError:
            pass
        except ValueError:
            torn += 1
        p.unlink(missing_ok=True)  # so every process keeps rewriting the same entries
for i in range(10):
    chat.complete([ChatMessage("user", f"q{i}")])
sys.exit(1 if torn else 0)
"""


@pytest.mark.slow
def test_processes_writing_the_same_entries_never_leave_torn_files(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path)]) for _ in range(3)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    files = list(tmp_path.rglob("*.json"))
    assert len(files) == 10
    for f in files:
        assert json.loads(f.read_text())["text"].startswith("same answer")
    assert not list(tmp_path.rglob(".tmp-*"))


def test_the_endpoint_is_part_of_the_key(llm_server, tmp_path):
    """The same model name behind another base URL (or Azure API version) is another model."""
    llm_server.queue(Reply(text="from server A"))
    a = LLMSettings(base_url=llm_server.base_url, api_key=Secret("sk-x"), retry_base_delay_s=0.01)
    chat = CachedChat(OpenAIChat(a, model="gpt-4o-mini"), tmp_path, provider="openai")
    assert chat.complete(MSGS).text == "from server A"
    same = CachedChat(OpenAIChat(LLMSettings(base_url=llm_server.base_url + "/", api_key=Secret("sk-other")),
                                 model="gpt-4o-mini"), tmp_path, provider="openai")
    assert same.complete(MSGS).cached  # a trailing slash or another key is the same endpoint
    other = OpenAIChat(LLMSettings(base_url="http://127.0.0.1:9/v1", api_key=Secret("sk-x")), model="gpt-4o-mini")
    key_a = cache_key("openai", "gpt-4o-mini", MSGS, 0.0, 1200, False, chat.endpoint_identity)
    key_b = cache_key("openai", "gpt-4o-mini", MSGS, 0.0, 1200, False, CachedChat(other, tmp_path, "openai").endpoint_identity)
    assert key_a != key_b
    v1 = CachedChat(OpenAIChat(LLMSettings(base_url="https://r.openai.azure.com", api_key=Secret("k"),
                                           azure_api_version="2024-06-01"), model="dep"), tmp_path, "azure")
    v2 = CachedChat(OpenAIChat(LLMSettings(base_url="https://r.openai.azure.com", api_key=Secret("k"),
                                           azure_api_version="2024-10-21"), model="dep"), tmp_path, "azure")
    assert v1.endpoint_identity["api_version"] == "2024-06-01"
    assert cache_key("azure", "dep", MSGS, 0, 1, False, v1.endpoint_identity) != \
        cache_key("azure", "dep", MSGS, 0, 1, False, v2.endpoint_identity)
    entry = json.loads(next(tmp_path.rglob("*.json")).read_text())
    assert entry["base_url"] == llm_server.base_url and "sk-x" not in json.dumps(entry)


def test_refresh_skips_reading_and_rewrites_the_entry(tmp_path):
    inner = CountingChat()
    CachedChat(inner, tmp_path, provider="openai").complete(MSGS)
    fresh = CachedChat(inner, tmp_path, provider="openai", refresh=True)
    again = fresh.complete(MSGS)
    assert not again.cached and inner.calls == 2 and again.text.startswith("reply 2")
    later = CachedChat(inner, tmp_path, provider="openai").complete(MSGS)
    assert later.cached and later.text.startswith("reply 2")  # the refreshed answer replaced the old one


@pytest.mark.slow  # fresh `autofill` processes: a run's cold imports and model load each
def test_cli_run_at_a_dead_endpoint_answers_nothing_from_another_endpoints_cache(tmp_path):
    """Through the real CLI in fresh processes: answers cached from one server are never served to a run
    whose OPENAI_BASE_URL points elsewhere (here: a closed port), with or without --fresh."""
    import socket

    from tests.answer_helpers import COMPANY, MARKERS
    from tests.llm_server import LLMServer, by_marker
    from tests.race_helpers import cli, ingested_workspace, many_rows

    ws = ingested_workspace(tmp_path)
    questionnaire = many_rows(tmp_path, 6)
    args = [*ws, "run", "--company", COMPANY, "--questionnaire", str(questionnaire), "--llm", "openai", "--yes",
            "--json"]
    model = {"OPENAI_API_KEY": "sk-cache", "AUTOFILL_LLM__MODEL": "gpt-4o-mini"}
    with LLMServer() as server:
        server.responder = by_marker(MARKERS)
        first = cli([*args, "--out", str(tmp_path / "a")], {**model, "OPENAI_BASE_URL": server.base_url})
        assert first.returncode == 0, first.stderr[-2000:]
        assert json.loads(first.stdout.splitlines()[-1])["answered"] == 6
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    for extra in ([], ["--fresh"]):
        out = tmp_path / f"dead{len(extra)}"
        done = cli([*args, "--out", str(out), *extra], {**model, "OPENAI_BASE_URL": dead})
        assert done.returncode == 2, (done.stdout[-1000:], done.stderr[-2000:])
        assert "connection refused" in done.stderr and "127.0.0.1" in done.stderr
        assert not list(out.glob("*.xlsx"))  # nothing answered, nothing written


@pytest.mark.slow  # fresh `autofill` processes: a run's cold imports and model load each
def test_cli_rerun_asks_again_for_replies_that_could_not_be_read_or_failed_their_form(tmp_path):
    """Through the real CLI in fresh processes, response cache on: a reply that could not be parsed and
    one whose answer is off its drop-down list are not replayed by the next run; the model is asked
    again for exactly those rows (their HyDE and rerank replies were good: served from the cache)."""
    from tests.answer_helpers import COMPANY, FACTS, MARKERS, fact_for, make_questionnaire
    from tests.llm_server import LLMServer, by_marker, last_user_text
    from tests.race_helpers import cli, ingested_workspace

    ws = ingested_workspace(tmp_path)
    facts = FACTS[:3]
    questionnaire = make_questionnaire(tmp_path / "q.xlsx", facts)
    unreadable, off_list = facts[1], facts[0]  # facts[0] has the Yes/No/Partially/Not disclosed drop-down

    def answer(req):
        fact = fact_for(last_user_text(req))
        if fact is unreadable:
            return "The committee is probably the board one"
        reply = MARKERS["single JSON object"](req)
        return reply.replace(off_list.answer, "Maybe") if fact is off_list else reply

    args = [*ws, "run", "--company", COMPANY, "--questionnaire", str(questionnaire), "--llm", "openai", "--yes",
            "--json", "--out", str(tmp_path / "out")]
    with LLMServer() as server:
        server.responder = by_marker({**MARKERS, "single JSON object": answer})
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-cache", "AUTOFILL_LLM__MODEL": "gpt-4o-mini"}
        first = cli(args, env)
        assert first.returncode == 1, first.stderr[-2000:]  # an unparsed row
        data = json.loads(first.stdout.splitlines()[-1])
        assert data["unparsed"] == 1 and data["not_written"] == 1, data
        seen = len(server.chat_requests())
        second = cli(args, env)
        assert second.returncode == 1, second.stderr[-2000:]
        again = server.chat_requests()[seen:]
    asked = sorted(fact_for(last_user_text(r.json)).question for r in again)
    assert asked == sorted([unreadable.question, off_list.question]), asked  # their answer calls only
    assert all("single JSON object" in last_user_text(r.json) for r in again)
