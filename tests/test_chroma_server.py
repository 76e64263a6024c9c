"""Server mode: a real `chroma run` process on loopback, reached through HttpClient (settings.store.chroma_url)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from autofill.errors import InputError
from autofill.settings import Settings
from autofill.store import chroma_client as cc
from autofill.forget import forget
from autofill.store.chroma_store import list_stores, open_store
from tests.fakes import FakeEmbedder
from tests.store_helpers import make_chunks, record_for

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_url(tmp_path):
    exe = shutil.which("chroma")
    if exe is None:
        pytest.skip("the `chroma` executable (installed with chromadb) is not on PATH")
    port = free_port()
    log = open(tmp_path / "chroma.log", "w")
    proc = subprocess.Popen([exe, "run", "--path", str(tmp_path / "server-db"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(f"chroma run did not start: {(tmp_path / 'chroma.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_store_through_a_chroma_server(chroma_url, workspace):
    settings = Settings(workspace=workspace)
    settings.store.chroma_url = chroma_url
    emb = FakeEmbedder()
    store = open_store(settings, "BHP", create=True, embedder=emb.name)
    assert store._chunks.configuration_json["hnsw"]["ef_search"] == cc.EF_SEARCH
    v1 = make_chunks("BHP", "report.pdf", "v1", [
        "Scope 1 emissions at the Alpha mine fell to 120 kt.",
        "Water withdrawal in Chile was 3.1 GL.",
        "The board oversees climate risk.",
    ])
    store.replace_document(record_for(v1), v1, emb.embed_documents([c.embed_text for c in v1]))
    store.rebuild_bm25()
    store.touch()

    again = open_store(settings, "BHP")
    assert again.embedder_name == emb.name and again.chunk_count() == 3
    hits = again.query(emb.embed_query(v1[1].embed_text), 2)
    assert hits[0].chunk_id == v1[1].id and hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert again.bm25_search("water Chile", 1)[0].page_start == 2

    v2 = make_chunks("BHP", "report.pdf", "v2", ["Scope 1 emissions fell to 95 kt after electrification."])
    again.replace_document(record_for(v2), v2, emb.embed_documents([c.embed_text for c in v2]))
    assert again.chunk_count() == 1 and again._chunks.count() == 1
    # The keyword index on this machine is stale now; it notices and rebuilds from the server's chunks.
    assert again.bm25_search("electrification", 1)[0].chunk_id == v2[0].id

    # Nothing was written to the local workspace database: the server holds the store.
    assert not (workspace / "vectordb" / "chroma.sqlite3").exists()
    assert [s.company for s in list_stores(settings)] == ["BHP"]
    assert "Forgot the evidence store for BHP" in forget(settings, "BHP").message
    with pytest.raises(InputError, match="no evidence store"):
        open_store(settings, "BHP")


def test_a_store_made_before_ef_search_is_raised_on_open_through_the_server(chroma_url, workspace):
    settings = Settings(workspace=workspace)
    settings.store.chroma_url = chroma_url
    client = cc.make_client(settings)
    name = cc.collection_name("Old Co")
    for col, meta in ((name + cc.DOCS_SUFFIX, {cc.MARKER: "docs"}),
                      (name, {cc.MARKER: "chunks", "company": "Old Co", "embedder": "fake:hash-64",
                              "created_at": "2026-01-01T00:00:00+00:00", "last_ingest": ""})):
        client.create_collection(col, configuration={"hnsw": {"space": "cosine"}}, metadata=meta,
                                 embedding_function=cc.refusing_embedding_function())
    assert cc.get_collection(client, name).configuration_json["hnsw"]["ef_search"] == 100
    store = open_store(settings, "Old Co")
    assert store.company == "Old Co" and store.embedder_name == "fake:hash-64"
    stored = cc.get_collection(client, name)  # read back from the server
    assert stored.configuration_json["hnsw"]["ef_search"] == cc.EF_SEARCH
    assert stored.metadata["company"] == "Old Co"


def test_unreachable_server_is_a_clear_error(workspace):
    settings = Settings(workspace=workspace)
    settings.store.chroma_url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(InputError, match="cannot reach the Chroma server"):
        open_store(settings, "BHP")
