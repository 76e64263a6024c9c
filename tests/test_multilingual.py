"""store/multilingual.py: which stores need the multilingual index, and the index kept in line with the
store's chunks (only new or changed chunks embedded, gone ones dropped), searched across languages."""

from __future__ import annotations

from types import SimpleNamespace

from autofill.providers.local import LocalEmbedder
from autofill.records import Passage
from autofill.store import multilingual
from autofill.store.multilingual import MultilingualIndex, crosses


def test_only_a_bundled_english_only_embedder_crosses_languages():
    assert crosses("local:bge-small-en-v1.5", ["de", "en"]) and crosses("local:all-MiniLM-L6-v2", ["fr"])
    assert crosses("local:bge-small-en-v1.5", ["*"])
    assert not crosses("local:bge-small-en-v1.5", ["en", "", "en"])
    assert not crosses("local:multilingual-e5-small", ["de", "en"])
    assert not crosses("openai:text-embedding-3-small", ["de"]) and not crosses("cohere:embed-v4.0", ["ja"])


class Store:
    """The little of a store the index reads: its chunks' embedded texts and passages by id."""

    company, collection, embedder_name = "Anglo", "c_anglo", "local:bge-small-en-v1.5"

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def embed_texts(self) -> dict[str, str]:
        return dict(self.texts)

    def get_passages(self, ids):
        return [Passage(chunk_id=i, file_name="r.pdf", page_start=int(i[1:]), page_end=int(i[1:]), section="",
                        text=self.texts[i], score=0.0, rank=0) for i in ids if i in self.texts]

    def bm25_search(self, query, n, language=""):
        return [("bm25", query, n, language)]


def test_the_index_embeds_only_what_is_new_and_finds_passages_across_languages(tmp_path, monkeypatch):
    settings = SimpleNamespace(vectordb_dir=tmp_path)
    store = Store({"p1": "Scope 1 emissions fell to 2.4 million tonnes CO2e.",
                   "p2": "We withdrew 12.4 gigalitres of water from the desalination plant.",
                   "p3": "The board's sustainability committee oversees climate change."})
    e5 = LocalEmbedder(multilingual.MODEL)
    calls: list[int] = []
    real = LocalEmbedder.embed_documents
    monkeypatch.setattr(LocalEmbedder, "embed_documents", lambda self, texts: calls.append(len(texts)) or real(self, texts))

    index = MultilingualIndex(settings, store, e5)
    top = index.query(e5.embed_query("Wie viel Wasser wurde entnommen?"), 2)
    assert [p.chunk_id for p in top][:1] == ["p2"] and top[0].rank == 1 and calls == [3]
    assert index.bm25_search("Wasser", 5, "de") == [("bm25", "Wasser", 5, "de")]
    path = multilingual.index_path(settings, "c_anglo")
    assert path.is_file()

    # A later run: one chunk changed, one gone, one added; only the changed and the new are embedded.
    store.texts.update(p1="Scope 1 emissions fell to 2.1 million tonnes CO2e.", p4="Wind and solar supplied 45 per cent.")
    del store.texts["p3"]
    again = MultilingualIndex(settings, store, e5)
    top = again.query(e5.embed_query("Welcher Anteil des Stroms stammt aus Wind- und Solarenergie?"), 3)
    assert top[0].chunk_id == "p4" and {p.chunk_id for p in top} == {"p1", "p2", "p4"}
    assert calls == [3, 2]
    assert MultilingualIndex(settings, store, e5).query(e5.embed_query("Wasser"), 1) and calls == [3, 2]

    multilingual.forget(settings, "c_anglo")
    assert not path.exists()
