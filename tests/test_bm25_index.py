"""The keyword index rebuilt from cached token lists (autofill/store/bm25_index.py): unchanged documents
are never tokenised again; the index stays the one `build` makes from all current texts after adds,
replaces and forgets; a store without token files (from before them) or a damaged file is rebuilt
from Chroma."""

from __future__ import annotations

import pytest

from autofill.settings import Settings
from autofill.store import bm25_index
from autofill.store.bm25_index import BM25Index, bm25_text
from autofill.store.chroma_store import forget, open_store
from tests.fakes import FakeEmbedder
from tests.store_helpers import make_chunks, record_for

COMPANY = "Acme"
QUERIES = ["water withdrawn desalination", "scope emissions tonnes", "board climate committee", "safety injuries",
           "renewable electricity share", "tailings dam"]


def add(store, emb, name, version, texts):
    chunks = make_chunks(COMPANY, name, version, texts)
    store.replace_document(record_for(chunks), chunks, emb.embed_documents([c.text for c in chunks]))
    return chunks


def texts_of(topic, n):
    return [f"{topic} passage {i}: figures {i * 13} and notes on {topic} for the year" for i in range(n)]


@pytest.fixture
def store(tmp_path):
    settings = Settings(workspace=tmp_path)
    return open_store(settings, COMPANY, create=True, embedder=FakeEmbedder().name)


@pytest.fixture
def counted(monkeypatch):
    """Texts passed to the tokeniser, wherever it is called from."""
    seen = []
    real = bm25_index.tokenize

    def spy(texts, language=""):
        seen.extend(texts)
        return real(texts, language)

    monkeypatch.setattr(bm25_index, "tokenize", spy)
    import autofill.store.keyword as cs

    monkeypatch.setattr(cs, "tokenize", spy)
    return seen


def reference(store) -> BM25Index:
    """The index `build` makes from every current chunk's text, read straight from Chroma."""
    current = {(r.file_name, r.sha256) for r in store.documents().values()}
    got = store._chunks.get(include=["documents", "metadatas"])
    rows = sorted((m["file_name"], m["chunk_index"], cid, bm25_text(m["section"], t))
                  for cid, t, m in zip(got["ids"], got["documents"], got["metadatas"])
                  if (m["file_name"], m["doc_sha256"]) in current)
    return BM25Index.build([r[2] for r in rows], [r[3] for r in rows])


def assert_consistent(store):
    store._bm25 = None
    index = store._bm25_index()
    ref = reference(store)
    assert index.ids == ref.ids
    for q in QUERIES:
        assert index.search(q, 10) == ref.search(q, 10), q


def test_a_rebuild_tokenises_only_what_the_ingest_stored(store, counted):
    emb = FakeEmbedder()
    add(store, emb, "water.pdf", "v1", texts_of("water withdrawn desalination", 6))
    add(store, emb, "climate.pdf", "v1", texts_of("board climate committee scope emissions", 5))
    store.rebuild_bm25()
    assert len(counted) == 11  # each chunk once, when it was stored
    counted.clear()
    add(store, emb, "safety.pdf", "v1", texts_of("safety injuries tailings dam", 4))
    store.rebuild_bm25()
    assert len(counted) == 4  # the new document only: the others come from their token files
    assert_consistent(store)
    assert store.bm25_search("tailings dam", 1)[0].file_name == "safety.pdf"


def test_replace_and_forget_keep_the_index_consistent(store):
    emb = FakeEmbedder()
    add(store, emb, "water.pdf", "v1", texts_of("water withdrawn desalination", 6))
    add(store, emb, "climate.pdf", "v1", texts_of("board climate committee", 5))
    store.rebuild_bm25()
    # A new version of climate.pdf speaks of emissions, not the board.
    add(store, emb, "climate.pdf", "v2", texts_of("scope emissions tonnes renewable electricity", 3))
    store.rebuild_bm25()
    assert_consistent(store)
    assert {p.file_name for p in store.bm25_search("board committee", 10)} == set()
    assert store.bm25_search("scope emissions tonnes", 1)[0].file_name == "climate.pdf"
    assert len(list(store.bm25_tokens.folder.glob("*.json"))) == 2  # the v1 tokens were pruned

    forget(store.settings, COMPANY, "water.pdf")
    fresh = open_store(store.settings, COMPANY)
    assert fresh.bm25_search("water withdrawn desalination", 5) == []
    assert_consistent(fresh)
    assert len(list(fresh.bm25_tokens.folder.glob("*.json"))) == 1
    forget(store.settings, COMPANY)
    assert not fresh.bm25_tokens.folder.exists()


def test_a_store_without_token_files_or_with_a_damaged_one_is_read_from_chroma(store, counted):
    emb = FakeEmbedder()
    add(store, emb, "water.pdf", "v1", texts_of("water withdrawn desalination", 6))
    add(store, emb, "climate.pdf", "v1", texts_of("board climate committee", 5))
    files = sorted(store.bm25_tokens.folder.glob("*.json"))
    files[0].write_text("{not json", encoding="utf-8")  # damaged: that document is read again
    counted.clear()
    store.rebuild_bm25()
    assert len(counted) in (5, 6)
    assert_consistent(store)
    for path in store.bm25_tokens.folder.glob("*.json"):  # a store from before the token files
        path.unlink()
    counted.clear()
    store.rebuild_bm25()
    assert len(counted) == 11
    assert len(list(store.bm25_tokens.folder.glob("*.json"))) == 2  # cached again for next time
    assert_consistent(store)


def test_token_lists_give_the_same_index_as_texts():
    texts = texts_of("water", 20) + ["", "the of and", "Scope 1 emissions: 1,234 tCO2e"]
    ids = [f"c{i}" for i in range(len(texts))]
    built = BM25Index.build(ids, texts)
    from_tokens = BM25Index.from_tokens(ids, bm25_index.tokenize(texts))
    for q in ["water figures 26", "scope emissions tco2e", "notes year", "the"]:
        assert built.search(q, 5) == from_tokens.search(q, 5)
