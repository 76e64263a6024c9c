"""store/snapshot.py: a run reads the store's snapshot and cached searches, and opens Chroma only for a
search it has not seen; every completed write makes a new generation, so no result outlives the store it
was read from. Real Chroma store, real PDFs (FakeEmbedder vectors), real run through the openai SDK
against the loopback server."""

from __future__ import annotations

import openpyxl
import pytest

from autofill.answer.pipeline import run_questionnaire
from autofill.forget import forget
from autofill.ingest.pipeline import ingest_paths
from autofill.providers.base import Providers
from autofill.providers.factory import make_chat
from autofill.settings import Settings
from autofill.store import chroma_store
from autofill.store.reading import find_for_reading, open_for_reading
from autofill.store.snapshot import (ReadStore, read_snapshot,
                                     snapshot_path)
from tests.answer_helpers import COMPANY, MARKERS, copied_workspace, make_questionnaire
from tests.fakes import FakeEmbedder
from tests.llm_server import by_marker
from tests.pdf_factory import make_text_pdf


@pytest.fixture
def ws(tmp_path):
    """Each test's own copy of one ingested workspace (the sample and the filler, FakeEmbedder vectors):
    the tests write, ingest into and forget their copy; none is about the ingest that made it."""
    return copied_workspace(tmp_path / "ws")


def no_chroma(monkeypatch):
    """Make any opening of the Chroma store fail loudly."""
    def refuse(*_a, **_k):
        raise AssertionError("Chroma was opened")
    monkeypatch.setattr(chroma_store, "_open", refuse)


def test_a_completed_ingest_leaves_a_snapshot_of_the_manifest(ws):
    settings, _ = ws
    store = chroma_store.open_store(settings, COMPANY)
    snap = read_snapshot(settings, COMPANY)
    assert snap is not None and snap.company == COMPANY and snap.embedder == store.embedder_name
    assert snap.documents == store.documents() and len(snap.documents) == 2
    assert snap.last_ingest == store.last_ingest() != ""


def test_every_completed_write_makes_a_new_generation_and_a_write_in_progress_has_none(ws, tmp_path):
    settings, emb = ws
    first = read_snapshot(settings, COMPANY).generation
    store = chroma_store.open_store(settings, COMPANY)
    with store.writing():
        assert read_snapshot(settings, COMPANY) is None  # readers use Chroma while it changes
    second = read_snapshot(settings, COMPANY).generation
    assert second != first
    extra = make_text_pdf(tmp_path / "extra.pdf", ["Water withdrawal was 12 GL in FY2024."])
    ingest_paths(settings, COMPANY, [extra], embedder=emb)
    third = read_snapshot(settings, COMPANY)
    assert third.generation != second and "extra.pdf" in third.documents
    forget(settings, COMPANY, "extra.pdf")
    assert "extra.pdf" not in read_snapshot(settings, COMPANY).documents


def test_an_interrupted_write_leaves_no_snapshot(ws):
    settings, _ = ws
    store = chroma_store.open_store(settings, COMPANY)
    with pytest.raises(RuntimeError):
        with store.writing():
            raise RuntimeError("killed mid-write")
    assert read_snapshot(settings, COMPANY) is None
    assert not isinstance(open_for_reading(settings, COMPANY), ReadStore)  # read through Chroma instead


def test_forgetting_the_store_removes_its_snapshot(ws):
    settings, _ = ws
    forget(settings, COMPANY)
    assert read_snapshot(settings, COMPANY) is None
    assert find_for_reading(settings, COMPANY) is None


def test_a_chroma_server_store_is_never_read_from_a_snapshot(ws):
    settings, _ = ws
    assert snapshot_path(settings, chroma_store.open_store(settings, COMPANY).collection).is_file()
    settings.store.chroma_url = "http://127.0.0.1:9"
    assert read_snapshot(settings, COMPANY) is None


def test_searches_are_answered_from_the_cache_in_the_next_run(ws, monkeypatch):
    settings, emb = ws
    real = chroma_store.open_store(settings, COMPANY)
    vector = emb.embed_query("net zero target")
    first = open_for_reading(settings, COMPANY)
    assert isinstance(first, ReadStore) and not first.opened
    assert first.documents() and not first.cache.blobs.path.exists()  # nothing made before a search
    dense = first.query(vector, 6)
    keyword = first.bm25_search("renewable electricity", 5)
    by_id = first.get_passages([dense[1].chunk_id, dense[0].chunk_id])
    assert first.opened
    assert dense == real.query(vector, 6) and keyword == real.bm25_search("renewable electricity", 5)
    assert by_id == real.get_passages([dense[1].chunk_id, dense[0].chunk_id])

    no_chroma(monkeypatch)
    again = open_for_reading(settings, COMPANY)  # the next run, answered from the cache alone
    assert again.query(vector, 6) == dense and again.bm25_search("renewable electricity", 5) == keyword
    assert again.get_passages([dense[1].chunk_id, dense[0].chunk_id]) == by_id
    assert not again.opened
    with pytest.raises(AssertionError, match="Chroma was opened"):
        again.query(vector, 7)  # another depth is another search


def test_results_of_an_older_generation_are_never_served(ws, tmp_path):
    settings, emb = ws
    reader = open_for_reading(settings, COMPANY)
    query = "water withdrawal gigalitres"
    before = reader.bm25_search(query, 3)
    extra = make_text_pdf(tmp_path / "water.pdf", ["Water withdrawal gigalitres: 12 GL in FY2024."])
    ingest_paths(settings, COMPANY, [extra], embedder=emb)
    # A result read after the write, by a run that read the snapshot before it, is not kept.
    reader.bm25_search("water withdrawal", 3)
    after = open_for_reading(settings, COMPANY)
    found = after.bm25_search(query, 3)
    assert after.opened and found[0].file_name == "water.pdf" and found != before
    assert reader.cache.get(reader.cache.key("bm25", b"3|water withdrawal")) is None
    assert reader.cache.get(reader.cache.key("bm25", f"3|{query}".encode())) is None  # emptied: a new generation


def _cells(path):
    book = openpyxl.load_workbook(path)
    return [[c.value for c in row] for row in book.worksheets[0].iter_rows()]


def test_a_fully_cached_rerun_never_opens_chroma(ws, tmp_path, llm_server, monkeypatch):
    settings, emb = ws
    settings.llm.provider, settings.llm.base_url, settings.llm.api_key = "openai", llm_server.base_url, "sk-test"
    settings.llm.model, settings.llm.max_retries, settings.llm.concurrency = "gpt-4o-mini", 0, 2
    settings.retrieval.mode = "hyde+hybrid"
    llm_server.responder = by_marker(MARKERS)
    questionnaire = make_questionnaire(tmp_path / "q.xlsx")

    def run(out):
        return run_questionnaire(settings, COMPANY, questionnaire, out_dir=tmp_path / out,
                                 providers=Providers(embedder=FakeEmbedder(), chat=make_chat(settings)))

    first = run("first")
    calls = len(llm_server.chat_requests())
    no_chroma(monkeypatch)
    second = run("second")
    assert len(llm_server.chat_requests()) == calls  # every reply cached
    assert second.answered == first.answered > 0
    assert _cells(first.output) == _cells(second.output)
    assert second.report_html is not None and second.report_html.is_file()


def test_the_first_model_call_opens_chroma_in_the_background_and_a_hit_never_does(ws, tmp_path):
    import time

    from autofill.answer.row_pool import open_store_with_first_call
    from autofill.providers.base import ChatMessage, ChatResult
    from autofill.providers.cache import CachedChat

    settings, _ = ws

    class Chat:
        model = "m"
        prepared = 0

        def prepare(self):
            Chat.prepared += 1

        def complete(self, messages, **kw):
            return ChatResult(text="reply", model="m")

    chat = CachedChat(Chat(), tmp_path / "cache", provider="openai")
    chat.complete([ChatMessage("user", "seen before")])
    store = open_for_reading(settings, COMPANY)
    open_store_with_first_call(chat, store)
    chat.complete([ChatMessage("user", "seen before")])  # a hit: nothing opens
    time.sleep(0.2)
    assert not store.opened and Chat.prepared == 0
    chat.complete([ChatMessage("user", "new question")])  # goes out: the store opens alongside
    for _ in range(200):
        if store.opened:
            break
        time.sleep(0.05)
    assert store.opened and Chat.prepared == 1
