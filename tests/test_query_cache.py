"""The query embedding cache (autofill/providers/query_cache.py): exact vectors back, keyed by embedder,
runtime and text; safe from many threads; a broken cache never fails a run; and through the CLI, a
re-run whose model replies are all cached never loads the local embedding model and writes the same
answers."""

from __future__ import annotations

import concurrent.futures as cf
import json

import openpyxl
import pytest
from click.testing import CliRunner

from autofill.providers.query_cache import CachedQueryEmbedder, VectorCache, cache_key, cache_path, with_query_cache
from autofill.settings import Settings
from tests.fakes import FakeEmbedder


class Counting(FakeEmbedder):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.queries = 0

    def embed_query(self, text):
        self.queries += 1
        return super().embed_query(text)


def test_vectors_come_back_exactly_and_the_embedder_is_asked_only_on_a_miss(tmp_path):
    inner = Counting()
    cache = VectorCache(tmp_path / "q.sqlite")
    emb = CachedQueryEmbedder(inner, cache, runtime="onnx")
    first = emb.embed_query("Scope 1 emissions in FY2024?")
    again = CachedQueryEmbedder(Counting(), VectorCache(tmp_path / "q.sqlite"), runtime="onnx")
    assert again.embed_query("Scope 1 emissions in FY2024?") == first  # bit for bit, another connection
    assert again.inner.queries == 0 and (again.hits, again.misses) == (1, 0)
    assert inner.queries == 1 and first == inner.embed_query("Scope 1 emissions in FY2024?")
    # Another runtime or embedder name is another key: the torch and onnx vectors differ in the last bits.
    other = CachedQueryEmbedder(Counting(), VectorCache(tmp_path / "q.sqlite"), runtime="torch")
    other.embed_query("Scope 1 emissions in FY2024?")
    assert other.inner.queries == 1
    assert cache_key("local:m", "onnx", "query", "t") != cache_key("local:m", "torch", "query", "t")
    assert cache_key("local:m", "onnx", "query", "t") != cache_key("local:m", "onnx", "document", "t")


def test_documents_are_cached_per_text_and_only_misses_are_embedded(tmp_path):
    inner = FakeEmbedder()
    emb = CachedQueryEmbedder(inner, VectorCache(tmp_path / "q.sqlite"))
    a = emb.embed_documents(["one", "two"])
    b = emb.embed_documents(["two", "three", "one", "three"])
    assert b[0] == a[1] and b[2] == a[0] and b[1] == b[3]
    assert inner.texts_embedded == 3  # "three" once, though asked twice
    assert emb.embed_documents([]) == []


def test_many_threads_share_one_cache(tmp_path):
    inner = FakeEmbedder()
    emb = CachedQueryEmbedder(inner, VectorCache(tmp_path / "q.sqlite"))
    texts = [f"question {i % 40}" for i in range(400)]
    with cf.ThreadPoolExecutor(16) as pool:
        got = list(pool.map(emb.embed_query, texts))
    assert got == [inner.embed_query(t) for t in texts]
    fresh = CachedQueryEmbedder(Counting(), VectorCache(tmp_path / "q.sqlite"))
    assert [fresh.embed_query(f"question {i}") for i in range(40)] == got[:40]
    assert fresh.inner.queries == 0


def test_an_unusable_cache_is_skipped_not_fatal(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    emb = CachedQueryEmbedder(Counting(), VectorCache(blocker / "q.sqlite"))
    assert emb.embed_query("x") == emb.inner.embed_query("x")
    assert "not used" in caplog.text
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"this is not a database" * 100)
    emb = CachedQueryEmbedder(Counting(), VectorCache(damaged))
    assert emb.embed_query("y") == emb.inner.embed_query("y")


def test_settings_switch_it_off_and_name_the_runtime(tmp_path):
    s = Settings(workspace=tmp_path)
    wrapped = with_query_cache(s, FakeEmbedder(name="local:all-MiniLM-L6-v2"))
    assert isinstance(wrapped, CachedQueryEmbedder) and wrapped.runtime == "onnx"
    assert wrapped.cache.path == cache_path(s.vectordb_dir) and with_query_cache(s, wrapped) is wrapped
    s.embedding.query_cache = False
    plain = FakeEmbedder()
    assert with_query_cache(s, plain) is plain


def _answers(path):
    book = openpyxl.load_workbook(path)
    return [[c.value for c in row] for row in book.worksheets[0].iter_rows()]


@pytest.mark.slow
def test_a_cached_rerun_never_loads_the_embedding_model(tmp_path, llm_server, monkeypatch):
    from autofill.cli import cli
    from autofill.providers import local
    from tests.answer_helpers import COMPANY, MARKERS, SAMPLE, make_questionnaire
    from tests.llm_server import by_marker
    from tests.pdf_factory import make_sample_company_pdf

    loads = []
    real_model = local._Model

    def spy(model_file, spec=None):
        loads.append(model_file)
        return real_model(model_file, spec)

    monkeypatch.setattr(local, "_Model", spy)
    monkeypatch.setattr(local, "_sessions", {})
    llm_server.responder = by_marker(MARKERS, default="ok")
    env = {"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "sk-test", "AUTOFILL_LLM__MODEL": "gpt-4o-mini"}
    runner = CliRunner(env=env)
    ws = tmp_path / "ws"
    pdf = make_sample_company_pdf(tmp_path / SAMPLE)
    assert runner.invoke(cli, ["--workspace", str(ws), "ingest", "--company", COMPANY, str(pdf), "--json"]).exit_code == 0
    questionnaire = make_questionnaire(tmp_path / "q.xlsx")

    def run(out):
        result = runner.invoke(cli, ["--workspace", str(ws), "run", "--company", COMPANY, "--questionnaire",
                                     str(questionnaire), "--llm", "openai", "--out", str(out), "--json"])
        assert result.exit_code == 0, (result.output, result.exception)
        return json.loads(result.stdout.strip().splitlines()[-1])

    first = run(tmp_path / "first")
    assert loads and first["llm_calls"] > 0
    calls = len(llm_server.chat_requests())
    monkeypatch.setattr(local, "_sessions", {})  # a new process: no model in memory
    loads.clear()
    second = run(tmp_path / "second")
    assert loads == []  # every query vector came from the cache
    assert second["llm_calls"] == 0 and len(llm_server.chat_requests()) == calls
    assert second["stages"]["answer"]["cached_calls"] == first["stages"]["answer"]["calls"] > 0
    assert _answers(first["output"]) == _answers(second["output"])
