"""The per-company Chroma store: naming, manifest, queries, BM25, crash consistency, lock, forget."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from autofill.errors import InputError, StoreMismatchError
from autofill.settings import Settings
from autofill.store import chroma_client as cc
from autofill.store.bm25_index import BM25Index
from autofill.forget import forget
from autofill.store.chroma_store import list_stores, open_store
from tests.fakes import FakeEmbedder
from tests.store_helpers import Failing, Recording, make_chunks, record_for

TEXTS_V1 = [
    "Scope 1 emissions at the Alpha mine fell to 120 kt in 2023.",
    "Water withdrawal in Chile was 3.1 GL, mostly desalinated seawater.",
    "The board oversees climate risk through the sustainability committee.",
    "| Site | Scope 1 (kt) |\n| --- | --- |\n| Bravo smelter | 310 |",
]
TEXTS_V2 = [
    "Scope 1 emissions at the Alpha mine fell to 95 kt in 2024 after electrification.",
    "Net zero operational emissions by 2050 is our long term goal.",
]


@pytest.fixture
def settings(workspace):
    return Settings(workspace=workspace)


@pytest.fixture
def emb():
    return FakeEmbedder()


def put(store, emb, chunks, **kw):
    store.replace_document(record_for(chunks, **kw), chunks, emb.embed_documents([c.embed_text for c in chunks]))


def test_collection_names_are_valid_stable_and_case_distinct():
    valid = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")
    names = ["BHP", "bhp", "A", "Rio Tinto plc", "Société Générale", "x" * 2000, "!!!", "  BHP  "]
    out = [cc.collection_name(n) for n in names]
    assert all(valid.match(n) for n in out), out
    assert out[0] != out[1]  # case matters: two stores
    assert out[0] == cc.collection_name("BHP") == out[-1]  # stable; surrounding spaces ignored
    assert out[0].startswith("af-bhp-")
    with pytest.raises(InputError):
        cc.collection_name("   ")


def test_missing_store_is_a_clear_input_error(settings):
    with pytest.raises(InputError, match=r"no evidence store for company 'BHP'.*autofill ingest --company"):
        open_store(settings, "BHP")
    assert list_stores(settings) == []
    assert not (settings.vectordb_dir / "chroma.sqlite3").exists()


def test_create_records_embedder_and_display_name(settings):
    store = open_store(settings, "Rio Tinto", create=True)
    assert store.company == "Rio Tinto"
    assert store.embedder_name == "local:bge-small-en-v1.5"
    assert store.documents() == {}
    assert store.query([1.0] + [0.0] * 63, 5) == []
    assert store.bm25_search("emissions", 5) == []
    again = open_store(settings, "Rio Tinto")
    assert again.collection == store.collection and again.created_at == store.created_at


def test_query_scores_are_cosine_similarity_with_full_metadata(settings, emb):
    store = open_store(settings, "BHP", create=True)
    chunks = make_chunks("BHP", "report.pdf", "v1", TEXTS_V1)
    put(store, emb, chunks, source_path="/data/report.pdf")
    assert store.chunk_count() == 4
    rec = store.documents()["report.pdf"]
    assert (rec.chunks, rec.source_path, rec.sha256) == (4, "/data/report.pdf", chunks[0].doc_sha256)

    hits = store.query(emb.embed_query(chunks[1].embed_text), 3)
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].chunk_id == chunks[1].id
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)  # identical text: cosine similarity 1
    assert hits[0].score >= hits[1].score >= hits[2].score
    assert (hits[0].file_name, hits[0].page_start, hits[0].page_end) == ("report.pdf", 2, 2)
    assert hits[0].section == "Section 1" and hits[0].text == TEXTS_V1[1]

    raw = store._chunks.get(ids=[chunks[3].id], include=["metadatas"])["metadatas"][0]
    assert raw == {"company": "BHP", "file_name": "report.pdf", "doc_sha256": chunks[3].doc_sha256,
                   "page_start": 4, "page_end": 4, "section": "Section 2", "chunk_index": 3,
                   "has_table": True, "content_hash": chunks[3].content_hash,
                   "ocr": False, "page_label": "", "page_labels": "", "context": ""}
    assert [p.chunk_id for p in store.get_passages([chunks[2].id, "nope", chunks[0].id])] == [chunks[2].id, chunks[0].id]


def test_chroma_never_embeds_text_itself(settings):
    store = open_store(settings, "BHP", create=True)
    assert store._chunks.configuration_json["embedding_function"]["name"] == "autofill-precomputed"
    assert store._chunks.configuration_json["hnsw"]["space"] == "cosine"
    with pytest.raises(Exception, match="autofill passes its own embeddings"):
        store._chunks.add(ids=["x"], documents=["text without a vector"])
    with pytest.raises(Exception, match="autofill passes its own embeddings"):
        open_store(settings, "BHP")._chunks.query(query_texts=["hello"], n_results=1)


def test_replace_swaps_versions_and_leaves_no_old_chunks(settings, emb):
    store = open_store(settings, "BHP", create=True)
    v1 = make_chunks("BHP", "report.pdf", "v1", TEXTS_V1)
    other = make_chunks("BHP", "other.pdf", "v1", ["Safety: zero fatalities in 2023."])
    put(store, emb, v1)
    put(store, emb, other)
    v2 = make_chunks("BHP", "report.pdf", "v2", TEXTS_V2)
    put(store, emb, v2)
    assert store.documents()["report.pdf"].sha256 == v2[0].doc_sha256
    assert store._chunks.count() == 3 == store.chunk_count()  # old version fully deleted
    ids = {h.chunk_id for h in store.query(emb.embed_query("Alpha mine Scope 1"), 10)}
    assert ids == {c.id for c in v2} | {other[0].id}
    assert store.delete_document("other.pdf") is True
    assert store.delete_document("other.pdf") is False
    assert set(store.documents()) == {"report.pdf"} and store._chunks.count() == 2


def visible_texts(store, emb):
    dense = {p.text for p in store.query(emb.embed_query("Scope 1 emissions Alpha mine"), 20)}
    keyword = {p.text for p in store.bm25_search("emissions Alpha mine water board", 20)}
    return dense, keyword


def test_crash_before_manifest_flip_keeps_old_version_then_next_run_completes(settings, emb):
    store = open_store(settings, "BHP", create=True)
    put(store, emb, make_chunks("BHP", "report.pdf", "v1", TEXTS_V1))
    store.rebuild_bm25()
    v2 = make_chunks("BHP", "report.pdf", "v2", TEXTS_V2)
    real_docs = store._docs
    store._docs = Failing(real_docs, "upsert")  # crash right after the new chunks were written
    with pytest.raises(RuntimeError, match="simulated crash"):
        put(store, emb, v2)
    store._docs = real_docs
    assert store._chunks.count() == 6  # the new chunks are there...
    dense, keyword = visible_texts(open_store(settings, "BHP"), emb)
    assert dense == set(TEXTS_V1) and keyword <= set(TEXTS_V1) and keyword  # ...but invisible
    assert open_store(settings, "BHP").chunk_count() == 4

    reopened = open_store(settings, "BHP")
    with reopened.writing():  # the next write sweeps the orphans
        pass
    assert reopened._chunks.count() == 4
    put(reopened, emb, v2)
    dense, keyword = visible_texts(reopened, emb)
    assert dense == set(TEXTS_V2) and keyword <= set(TEXTS_V2)


def test_crash_after_manifest_flip_shows_only_new_version(settings, emb):
    store = open_store(settings, "BHP", create=True)
    put(store, emb, make_chunks("BHP", "report.pdf", "v1", TEXTS_V1))
    real = store._chunks
    store._chunks = Failing(real, "delete")  # crash while deleting the old chunks
    with pytest.raises(RuntimeError, match="simulated crash"):
        put(store, emb, make_chunks("BHP", "report.pdf", "v2", TEXTS_V2))
    store._chunks = real
    assert real.count() == 6
    fresh = open_store(settings, "BHP")
    dense, keyword = visible_texts(fresh, emb)
    assert dense == set(TEXTS_V2) and keyword <= set(TEXTS_V2)
    with fresh.writing():
        pass
    assert real.count() == 2


def test_writes_stay_within_chromas_max_batch_size(settings, emb):
    store = open_store(settings, "BHP", create=True)
    store._client = Recording(store._client, "unused", max_batch=7)
    store._chunks = Recording(store._chunks, "upsert")
    chunks = make_chunks("BHP", "big.pdf", "v1", [f"passage number {i} about topic {i % 5}" for i in range(30)])
    put(store, emb, chunks)
    assert [len(c["ids"]) for c in store._chunks.calls] == [7, 7, 7, 7, 2]
    assert store.chunk_count() == 30


def test_bm25_finds_keywords_and_rebuilds_when_stale(settings, emb):
    store = open_store(settings, "BHP", create=True)
    chunks = make_chunks("BHP", "report.pdf", "v1", TEXTS_V1)
    put(store, emb, chunks)
    store.rebuild_bm25()
    hits = store.bm25_search("How much water was withdrawn?", 3)
    assert hits[0].chunk_id == chunks[1].id and hits[0].rank == 1 and hits[0].score > 0
    assert all(h.score > 0 for h in hits)  # chunks sharing no term are left out
    assert store.bm25_search("the of and", 5) == []  # stopwords only
    # Another document arrives without a rebuild (a crash, or another machine on a Chroma server):
    extra = make_chunks("BHP", "water.pdf", "v1", ["Desalination plants supply the Escondida operation."])
    put(store, emb, extra)
    fresh = open_store(settings, "BHP")
    assert fresh.bm25_search("desalination Escondida", 2)[0].chunk_id == extra[0].id
    saved = BM25Index.load(fresh.bm25_dir)
    assert extra[0].id in saved.ids  # the rebuilt index was saved


def test_bm25_index_save_replaces_atomically(tmp_path):
    folder = tmp_path / "idx"
    BM25Index.build(["a", "b"], ["red apples", "green pears"], "s1").save(folder)
    BM25Index.build(["c"], ["yellow bananas"], "s2").save(folder)
    loaded = BM25Index.load(folder)
    assert loaded.ids == ["c"] and loaded.signature == "s2"
    assert loaded.search("bananas", 5) == [("c", pytest.approx(loaded.search("bananas", 5)[0][1]))]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]  # no temporary folders left behind
    assert BM25Index.load(tmp_path / "missing") is None


def test_embedder_check_names_both_and_the_fix(settings):
    store = open_store(settings, "BHP", create=True)
    store.check_embedder("local:bge-small-en-v1.5")
    with pytest.raises(StoreMismatchError, match=r"built with embedder local:bge-small-en-v1.5, not openai:text-embedding-3-small; leave out --embedder.*autofill forget"):
        store.check_embedder("openai:text-embedding-3-small")


def test_list_forget_document_and_store(settings, emb):
    a = open_store(settings, "BHP", create=True)
    put(a, emb, make_chunks("BHP", "one.pdf", "v1", TEXTS_V1))
    put(a, emb, make_chunks("BHP", "two.pdf", "v1", TEXTS_V2))
    a.touch()
    open_store(settings, "bhp", create=True)
    infos = list_stores(settings)
    assert [s.company for s in infos] == ["BHP", "bhp"]
    assert [d.file_name for d in infos[0].documents] == ["one.pdf", "two.pdf"]
    assert infos[0].chunks == 6 and infos[0].pages == 6 and infos[0].last_ingest
    with pytest.raises(InputError, match=r"no document 'three.pdf'.*one.pdf, two.pdf"):
        forget(settings, "BHP", "three.pdf")
    assert "Forgot one.pdf" in forget(settings, "BHP", "one.pdf").message
    assert set(open_store(settings, "BHP").documents()) == {"two.pdf"}
    assert open_store(settings, "BHP").bm25_search("board climate committee", 5) == []  # one.pdf's text
    assert "2 documents" not in forget(settings, "BHP").message
    with pytest.raises(InputError, match="did you mean 'bhp'"):
        open_store(settings, "BHP")
    assert [s.company for s in list_stores(settings)] == ["bhp"]
    with pytest.raises(InputError, match="no evidence store"):
        forget(settings, "Nobody")


def test_writer_lock_held_by_another_process_is_a_clear_error(settings, emb):
    store = open_store(settings, "BHP", create=True)
    lock_path = settings.vectordb_dir / f"{store.collection}.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from filelock import FileLock; l = FileLock(sys.argv[1]); l.acquire();"
         " print('held', flush=True); time.sleep(60)", str(lock_path)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        settings.store.lock_timeout_s = 0.3
        started = time.monotonic()
        with pytest.raises(InputError, match="being written by another process"):
            put(open_store(settings, "BHP"), emb, make_chunks("BHP", "r.pdf", "v1", TEXTS_V1))
        assert time.monotonic() - started < 10
    finally:
        holder.kill()
        holder.wait()
    put(open_store(settings, "BHP"), emb, make_chunks("BHP", "r.pdf", "v1", TEXTS_V1))  # free again


def test_store_reopens_in_a_fresh_process(settings, emb):
    store = open_store(settings, "BHP", create=True)
    put(store, emb, make_chunks("BHP", "report.pdf", "v1", TEXTS_V1))
    code = (
        "import sys, pathlib; from autofill.settings import Settings; from autofill.store.chroma_store import open_store;"
        "s = open_store(Settings(workspace=pathlib.Path(sys.argv[1])), 'BHP');"
        "print(s.chunk_count(), s.embedder_name, s.bm25_search('water Chile', 1)[0].page_start)"
    )
    out = subprocess.run([sys.executable, "-W", "error::DeprecationWarning:chromadb", "-c", code,
                          str(settings.workspace)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4", "local:bge-small-en-v1.5", "2"]


def test_reingesting_same_bytes_with_fewer_chunks_drops_the_surplus(settings, emb):
    store = open_store(settings, "BHP", create=True)
    put(store, emb, make_chunks("BHP", "report.pdf", "v1", TEXTS_V1))
    fewer = make_chunks("BHP", "report.pdf", "v1", TEXTS_V1[:2])  # same hash, other chunking settings
    put(store, emb, fewer)
    assert store.chunk_count() == 2 == store._chunks.count()


# ------------------------------------------------------------------------- exact, repeatable dense search

def random_store(settings, n: int, dims: int = 384, old_style: bool = False):
    """A store of `n` chunks with random unit vectors (the hard case for HNSW); old_style builds it the way
    stores were made before EF_SEARCH (Chroma's default ef_search 100, ef_construction 100)."""
    import numpy as np

    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((n, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    if old_style:
        client = cc.make_client(settings)
        name = cc.collection_name("BHP")
        for col, meta in ((name + cc.DOCS_SUFFIX, {cc.MARKER: "docs"}),
                          (name, {cc.MARKER: "chunks", "company": "BHP", "embedder": "fake:random",
                                  "created_at": "2026-01-01T00:00:00+00:00", "last_ingest": ""})):
            client.create_collection(col, configuration={"hnsw": {"space": "cosine"}}, metadata=meta,
                                     embedding_function=cc.refusing_embedding_function())
        from autofill.store.chroma_store import CompanyStore

        store = CompanyStore(settings, client, cc.get_collection(client, name),
                             cc.get_collection(client, name + cc.DOCS_SUFFIX))
        assert store._chunks.configuration_json["hnsw"]["ef_search"] == 100  # really old-style
    else:
        store = open_store(settings, "BHP", create=True, embedder="fake:random")
    chunks = make_chunks("BHP", "random.pdf", "v1", [f"passage {i}" for i in range(n)])
    store.replace_document(record_for(chunks), chunks, vectors.tolist())
    queries = rng.standard_normal((25, dims)).astype(np.float32)
    return chunks, vectors, queries


def exact_top(vectors, query, chunks, k: int) -> list[str]:
    import numpy as np

    sims = vectors @ (query / np.linalg.norm(query))
    return [chunks[i].id for i in np.argsort(-sims, kind="stable")[:k]]


def test_new_stores_record_the_search_breadth(settings):
    store = open_store(settings, "BHP", create=True)
    for col in (store._chunks, open_store(settings, "BHP")._chunks):
        hnsw = col.configuration_json["hnsw"]
        assert (hnsw["space"], hnsw["ef_search"], hnsw["ef_construction"]) == (
            "cosine", cc.EF_SEARCH, cc.EF_CONSTRUCTION)
    assert cc.EF_SEARCH >= 256


def test_dense_search_equals_exact_cosine_ranking(settings):
    # 1500 random 384-dim vectors: with Chroma's default ef_search (100) most of these queries miss some
    # of the true top 30; with EF_SEARCH the candidate set is the exact one, so re-runs are identical.
    chunks, vectors, queries = random_store(settings, 1500)
    store = open_store(settings, "BHP")
    wrong = [i for i, q in enumerate(queries)
             if [p.chunk_id for p in store.query(q.tolist(), 30)] != exact_top(vectors, q, chunks, 30)]
    assert wrong == []


@pytest.mark.slow  # starts a process: Chroma reads ef_search when it loads an index, so a fresh one shows it
def test_old_stores_are_raised_to_the_search_breadth_on_open(settings):
    import numpy as np

    chunks, vectors, queries = random_store(settings, 1500, old_style=True)
    folder = settings.workspace / "probe"
    folder.mkdir()
    np.save(folder / "queries.npy", queries)
    code = (
        "import sys, json, pathlib, numpy as np; from autofill.settings import Settings;"
        "from autofill.store.chroma_store import open_store;"
        "s = open_store(Settings(workspace=pathlib.Path(sys.argv[1])), 'BHP');"
        "q = np.load(sys.argv[2]);"
        "print(json.dumps({'ef': s._chunks.configuration_json['hnsw']['ef_search'],"
        " 'ids': [[p.chunk_id for p in s.query(x.tolist(), 30)] for x in q]}))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(settings.workspace), str(folder / "queries.npy")],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    import json

    got = json.loads(out.stdout)
    assert got["ef"] == cc.EF_SEARCH
    wrong = [i for i, q in enumerate(queries) if got["ids"][i] != exact_top(vectors, q, chunks, 30)]
    assert wrong == []
    # Stored, so every later open (and a Chroma server after its restart) uses it; no second modify needed.
    reopened = cc.get_collection(cc.make_client(settings), cc.collection_name("BHP"))
    assert reopened.configuration_json["hnsw"]["ef_search"] == cc.EF_SEARCH
    assert reopened.metadata["embedder"] == "fake:random"  # modify kept the store's metadata


def test_dense_query_skips_invisible_chunks_even_when_they_are_nearest(settings, emb):
    """A crashed replace leaves the new version's chunks in the collection, nearest to a query for their
    own text; the query still returns n current chunks, by asking Chroma for more depth."""
    store = open_store(settings, "BHP", create=True)
    put(store, emb, make_chunks("BHP", "report.pdf", "v1", TEXTS_V1))
    many = [f"Scope 1 emissions at the Alpha mine fell to {95 - i} kt after electrification, step {i}."
            for i in range(20)]
    real_docs = store._docs
    store._docs = Failing(real_docs, "upsert")
    with pytest.raises(RuntimeError, match="simulated crash"):
        put(store, emb, make_chunks("BHP", "report.pdf", "v2", many))
    store._docs = real_docs
    hits = open_store(settings, "BHP").query(emb.embed_query(many[0]), 3)
    assert len(hits) == 3 and {h.text for h in hits} <= set(TEXTS_V1)
    assert [h.rank for h in hits] == [1, 2, 3]
    assert open_store(settings, "BHP").get_passages([h.chunk_id for h in hits]) != []


def test_writing_to_a_clean_store_does_not_scan_every_chunk(settings, emb):
    store = open_store(settings, "BHP", create=True)
    put(store, emb, make_chunks("BHP", "report.pdf", "v1", TEXTS_V1))
    fresh = open_store(settings, "BHP")
    fresh._chunks = Recording(fresh._chunks, "get")
    with fresh.writing():
        pass
    # Only a crashed write leaves the marker set; a clean store's metadata is never swept whole.
    assert not [c for c in fresh._chunks.calls if not c.get("ids") and not c.get("where")]


def test_store_records_the_embedder_runtime_and_old_stores_read_as_torch(settings, workspace):
    from click.testing import CliRunner

    from autofill.cli import cli

    store = open_store(settings, "New Co", create=True, embedder="local:all-MiniLM-L6-v2")
    assert store.embedder_runtime == "onnx" and store.info().embedder_runtime == "onnx"
    old = open_store(settings, "Old Co", create=True, embedder="local:all-MiniLM-L6-v2")
    meta = dict(old._chunks.metadata)
    del meta["embedder_runtime"]  # as written before the ONNX runtime existed
    old._chunks.modify(metadata=meta)
    assert open_store(settings, "Old Co").embedder_runtime == "torch"
    out = CliRunner().invoke(cli, ["--workspace", str(workspace), "companies"]).output
    assert "built with torch, queried with onnx" in out and "(onnx)" in out
