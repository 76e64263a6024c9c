"""The keyword index rebuilt from cached token lists (autofill/store/bm25_index.py): unchanged documents
are never tokenised again; the index stays the one `build` makes from all current texts after adds,
replaces and forgets; a store without token files (from before them) or a damaged file is rebuilt
from Chroma."""

from __future__ import annotations

import pytest

from autofill.settings import Settings
from autofill.store import bm25_index
from autofill.store.bm25_index import BM25Index, bm25_text
from autofill.forget import forget
from autofill.store.chroma_store import open_store
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


def test_tokens_are_stemmed_and_stopped_per_language():
    from autofill.store.bm25_index import query_tokens, tokenize

    # English, as before languages: English stop words, the English stemmer (also for unknown languages).
    assert tokenize(["The emissions of the mines"]) == tokenize(["The emissions of the mines"], "en") == [["emiss", "mine"]]
    # German: German stop words dropped ("die", "der", "und"), the German stemmer.
    assert tokenize(["Die Emissionen der Anlagen und Mitarbeiter"], "de") == [["emission", "anlag", "mitarbeit"]]
    assert tokenize(["Les émissions des sites"], "fr") == [["émiss", "sit"]]
    assert tokenize(["Las emisiones de las minas"], "es") == [["emision", "min"]]
    # A query in German against English and German documents: German stems first, then the English
    # stemmer's new ones, each once.
    assert query_tokens("Mitarbeitern Emissionen", ["de", "en"]) == ["mitarbeit", "emission", "mitarbeitern",
                                                                   "emissionen"]
    assert query_tokens("water withdrawn", []) == query_tokens("water withdrawn", ["en", "en"]) == ["water", "withdrawn"]
    # The query language's stop words stay out of the other languages' passes too.
    tokens = query_tokens("les émissions de la mine", ["fr", "en"])
    assert tokens[:2] == ["émiss", "min"] and not {"les", "de", "la"} & set(tokens)


def test_a_german_document_is_indexed_in_german_and_found_by_inflected_words(store):
    from dataclasses import replace

    emb = FakeEmbedder()
    german = make_chunks(COMPANY, "bericht.pdf", "v1", [
        "Unsere Mitarbeiter wurden im Berichtsjahr zur Arbeitssicherheit geschult.",
        "Die Wasserentnahme der Standorte sank auf 12,4 Gigaliter.",
    ])
    store.replace_document(replace(record_for(german), language="de"), german,
                           emb.embed_documents([c.text for c in german]))
    add(store, emb, "report.pdf", "v1", ["Our employees were trained in safety during the year."])
    store.rebuild_bm25()
    # "Mitarbeitern" and "Mitarbeiter" share the German stem; the English stemmer keeps them apart.
    assert BM25Index.build(["x"], ["Unsere Mitarbeiter"]).search("Mitarbeitern", 1) == []
    hits = store.bm25_search("Wie viele Mitarbeitern wurden geschult?", 3, "de")
    assert [p.file_name for p in hits] == ["bericht.pdf"] and "Mitarbeiter" in hits[0].text
    # An English question still finds the English document (the German one shares no stem with it).
    assert [p.file_name for p in store.bm25_search("employees trained in safety", 3)] == ["report.pdf"]
    # The German document's tokens are kept under a key of its own: a rebuild reads them back unchanged.
    store._bm25 = None
    assert store.bm25_search("Wasserentnahmen", 1, "de")[0].file_name == "bericht.pdf"
