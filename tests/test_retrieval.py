"""Retrieval: RRF by hand, query building, and the four modes on a real Chroma store built with the
deterministic FakeEmbedder."""

from __future__ import annotations

import pytest

from autofill.search.query import lexical_query
from autofill.search.retrieval import build_query, retrieve, rrf
from autofill.records import Passage, QuestionRow
from autofill.settings import Settings
from autofill.store.chroma_store import open_store
from tests.fakes import FakeEmbedder
from tests.store_helpers import make_chunks, record_for


def test_rrf_hand_computed():
    # k = 60: a = 1/61 + 1/63, b = 1/62 + 1/61, c = 1/63, d = 1/62
    fused = rrf([["a", "b", "c"], ["b", "d", "a"]], k=60)
    assert [cid for cid, _ in fused] == ["b", "a", "d", "c"]
    scores = dict(fused)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["d"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63)


def test_rrf_ties_keep_first_seen_order_and_duplicates_count_once():
    assert [c for c, _ in rrf([["x", "y"], ["y", "x"]], k=1)] == ["x", "y"]
    assert dict(rrf([["x", "x", "y"]], k=0)) == {"x": 1.0, "y": 0.5}
    assert rrf([], k=60) == []


def test_rrf_k_changes_the_balance():
    # A document first in one list beats one second in both only when k is small.
    lists = [["top", "mid"], ["other", "mid"]]
    assert rrf(lists, k=0)[0][0] == "top"  # 1/1 > 1/2 + 1/2? equal -> first seen
    assert rrf(lists, k=60)[0][0] == "mid"  # 2/62 > 1/61


def test_build_query_uses_question_form_and_explanation():
    row = QuestionRow("S", 4, "Does the company have a net zero target?", form_of_answer="Yes/No",
                      explanation="Scope 1 and Scope 2.")
    assert build_query(row) == "Does the company have a net zero target?\nYes/No\nScope 1 and Scope 2."
    assert build_query(QuestionRow("S", 5, " Q? ")) == "Q?"


TEXTS = [
    "Our medium term target is a 30 per cent reduction in operational emissions by FY2030.",
    "Water withdrawal was 12.4 GL in FY2024, mostly from seawater desalination.",
    "The Sustainability Committee of the Board oversees climate related risks and opportunities.",
    "Renewable electricity supplied 46 per cent of our electricity consumption.",
    "Zyxqor flotation cells were commissioned at the concentrator.",  # rare word only BM25 weighs
    "Safety performance improved with fewer recordable injuries across sites.",
    "Scope 3 emissions from steelmaking customers dominate the value chain footprint.",
    "We have committed to net zero operational emissions by 2050.",
]


@pytest.fixture(scope="module")
def store_and_embedder(tmp_path_factory):
    ws = tmp_path_factory.mktemp("ws")
    settings = Settings(workspace=ws)
    emb = FakeEmbedder()
    store = open_store(settings, "Acme", create=True, embedder=emb.name)
    chunks = make_chunks("Acme", "Acme Report.pdf", "v1", TEXTS)
    store.replace_document(record_for(chunks), chunks, emb.embed_documents([c.embed_text for c in chunks]))
    return settings, store, emb


def test_dense_finds_the_matching_passage(store_and_embedder):
    settings, store, emb = store_and_embedder
    row = QuestionRow("S", 3, "How much water was withdrawn (GL)?")
    got = retrieve(settings, store, emb, row, "dense", n=3)
    assert len(got) == 3
    assert got[0].page_start == 2 and "12.4 GL" in got[0].text
    assert [p.rank for p in got] == [1, 2, 3]
    assert got[0].score >= got[1].score


def _chunk_fusion(settings: Settings) -> Settings:
    s = Settings(workspace=settings.workspace)
    s.retrieval.rrf_k, s.retrieval.keyword_weight, s.retrieval.synonyms = 60, 1.0, False
    return s


def test_hybrid_fuses_bm25_and_dense(store_and_embedder):
    settings, store, emb = store_and_embedder
    settings = _chunk_fusion(settings)
    row = QuestionRow("S", 3, "Which flotation cells were commissioned? Zyxqor")
    dense = retrieve(settings, store, emb, row, "dense", n=8)
    bm25 = store.bm25_search(lexical_query(row, expand=False), 16)
    hybrid = retrieve(settings, store, emb, row, "hybrid", n=5)
    assert bm25[0].text.startswith("Zyxqor")
    assert hybrid[0].text.startswith("Zyxqor")
    # the fused score is exactly RRF over the two lists
    expected = dict(rrf([[p.chunk_id for p in store.query(emb.embed_query(build_query(row)), 16)],
                         [p.chunk_id for p in bm25]], k=60))
    for p in hybrid:
        assert p.score == pytest.approx(expected[p.chunk_id])
    assert [p.rank for p in hybrid] == [1, 2, 3, 4, 5]
    assert len(dense) == 8


def test_hybrid_by_default_fuses_the_cleaned_expanded_keyword_query_one_passage_per_page(store_and_embedder):
    settings, store, emb = store_and_embedder
    row = QuestionRow("S", 3, "Round your answer to two decimal places: which flotation cells? Zyxqor",
                      form_of_answer="Short answer with figures and units")
    got = retrieve(settings, store, emb, row, "hybrid", n=5)
    assert got[0].text.startswith("Zyxqor")
    assert len({(p.file_name, p.page_start) for p in got}) == len(got)
    dense = store.query(emb.embed_query(build_query(row)), 20)
    bm25 = store.bm25_search(lexical_query(row), 20)
    # query_parts = "both" (the default): the question alone is searched too, by each search, weighted alike.
    qrow = QuestionRow("S", 3, row.question)
    question = store.query(emb.embed_query(row.question), 20)
    bm25_q = store.bm25_search(lexical_query(qrow), 20)
    expected = dict(rrf([[p.chunk_id for p in lst] for lst in (dense, question, bm25, bm25_q)],
                        k=20, weights=[1.0, 1.0, 1.0, 1.0]))
    for p in got:
        assert p.score == pytest.approx(expected[p.chunk_id])


def test_weighted_rrf_and_the_per_page_cap_by_hand():
    from autofill.search.retrieval import fuse
    from autofill.records import Passage

    # weights 1 and 3, k = 0: a = 1/1 + 3/2 = 2.5, b = 1/2 + 3/1 = 3.5
    assert rrf([["a", "b"], ["b", "a"]], k=0, weights=[1, 3]) == [("b", 3.5), ("a", 2.5)]
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1, 2])
    p = lambda cid, page: Passage(cid, "R.pdf", page, page, "", cid)  # noqa: E731
    lists = [[p("x1", 1), p("x2", 1), p("y", 2)], [p("x2", 1), p("z", 3)]]
    assert [q.chunk_id for q in fuse(lists, k=60, n=5)] == ["x2", "x1", "z", "y"]  # z: 1/62, y: 1/63
    capped = fuse(lists, k=60, n=5, per_page=1)
    assert [q.chunk_id for q in capped] == ["x2", "z", "y"]  # x1 shares page 1 with the better x2
    assert [q.rank for q in capped] == [1, 2, 3]


def test_synonyms_reach_the_report_wording_the_question_lacks(tmp_path):
    settings = Settings(workspace=tmp_path)
    emb = FakeEmbedder()
    texts = ["| (Millions) | 2018 | 2017 |\n|---|---|---|\n| Purchases of property, plant and equipment | (1,577) | (1,373) |",
             "Our capital allocation framework balances dividends and buybacks.", *TEXTS]
    store = open_store(settings, "Acme", create=True, embedder=emb.name)
    chunks = make_chunks("Acme", "10-K.pdf", "v1", texts)
    store.replace_document(record_for(chunks), chunks, emb.embed_documents([c.embed_text for c in chunks]))
    row = QuestionRow("S", 2, "What is the FY2018 capex?")
    assert not any("Purchases of property" in p.text for p in store.bm25_search(lexical_query(row, expand=False), 5))
    assert "Purchases of property" in retrieve(settings, store, emb, row, "hybrid", n=3)[0].text


@pytest.mark.parametrize("key,value", [("keyword_weight", -1.0), ("rrf_k", -1)])
def test_bad_retrieval_choices_are_input_errors(key, value):
    from autofill.errors import InputError
    from autofill.settings import validate

    s = Settings()
    setattr(s.retrieval, key, value)
    with pytest.raises(InputError, match=key):
        validate(s)


def test_hyde_embeds_the_hypothetical_passage(store_and_embedder):
    settings, store, emb = store_and_embedder
    row = QuestionRow("S", 3, "What is the company's long-term climate goal?")
    hyde = "We have committed to net zero operational emissions by 2050."
    got = retrieve(settings, store, emb, row, "hyde", hyde_passage=hyde, n=2)
    assert "net zero operational emissions by 2050" in got[0].text
    # an empty HyDE passage falls back to the question query
    plain = retrieve(settings, store, emb, row, "hyde", hyde_passage="  ", n=2)
    assert [p.chunk_id for p in plain] == [p.chunk_id for p in retrieve(settings, store, emb, row, "dense", n=2)]


def test_hyde_hybrid_uses_bm25_of_the_question(store_and_embedder):
    settings, store, emb = store_and_embedder
    row = QuestionRow("S", 3, "Zyxqor flotation?")
    got = retrieve(settings, store, emb, row, "hyde+hybrid", hyde_passage="Water withdrawal was 12.4 GL.", n=4)
    texts = [p.text for p in got]
    assert any(t.startswith("Zyxqor") for t in texts[:2])  # from BM25 of the question
    assert any("12.4 GL" in t for t in texts[:2])  # from the HyDE passage's embedding


def test_candidates_setting_is_the_default_n(store_and_embedder):
    settings, store, emb = store_and_embedder
    s = Settings(workspace=settings.workspace)
    s.retrieval.candidates = 3
    assert len(retrieve(s, store, emb, QuestionRow("S", 1, "emissions"), "hybrid")) == 3


def test_near_ties_do_not_reorder_between_runs():
    """Embedding noise of 1e-7 between runs must not change the candidate order (it would change the
    rerank prompt and miss the response cache on an identical re-run)."""
    from autofill.records import Passage

    class NoisyStore:
        def __init__(self, noise):
            self.noise = noise

        def query(self, embedding, n):
            base = [("c1", 0.9), ("c2", 0.8), ("c3", 0.8), ("c4", 0.7)]
            ps = [Passage(cid, "F.pdf", 1, 1, "", cid, score=s + (self.noise if cid == "c3" else 0.0))
                  for cid, s in base]
            return sorted(ps, key=lambda p: -p.score)[:n]

        def bm25_search(self, query, n):
            return []

    emb = FakeEmbedder()
    row = QuestionRow("S", 1, "q")
    a = retrieve(Settings(), NoisyStore(+1e-7), emb, row, "dense", n=3)
    b = retrieve(Settings(), NoisyStore(-1e-7), emb, row, "dense", n=3)
    assert [p.chunk_id for p in a] == [p.chunk_id for p in b] == ["c1", "c2", "c3"]


def test_query_parts_question_or_both(store_and_embedder):
    settings, store, emb = store_and_embedder
    row = QuestionRow("S", 3, "How much water was withdrawn (GL)?", form_of_answer="Yes/No and a short explanation")
    question = QuestionRow("S", 3, row.question)
    s = _chunk_fusion(settings)
    s.retrieval.query_parts = "question"
    got = retrieve(s, store, emb, row, "dense", n=3)
    assert [p.chunk_id for p in got] == [p.chunk_id for p in store.query(emb.embed_query(row.question), 3)]
    s.retrieval.query_parts = "both"
    hybrid = retrieve(s, store, emb, row, "hybrid", n=5)
    # Dense lists first (row, then question), then the BM25 lists in the same order, all weighted 1.
    lists = [store.query(emb.embed_query(build_query(row)), 20)[:10], store.query(emb.embed_query(row.question), 20)[:10],
             store.bm25_search(lexical_query(row, expand=False), 20)[:10],
             store.bm25_search(lexical_query(question, expand=False), 20)[:10]]
    expected = dict(rrf([[p.chunk_id for p in lst] for lst in lists], k=60))
    for p in hybrid:
        assert p.score == pytest.approx(expected[p.chunk_id])
    # A row that is only its question is searched once, whatever query_parts says.
    assert retrieve(s, store, emb, question, "hybrid", n=5) == retrieve(_chunk_fusion(settings), store, emb, question,
                                                                        "hybrid", n=5)
    bad = Settings(workspace=settings.workspace)
    bad.retrieval.query_parts = "answer"
    from autofill.errors import InputError
    from autofill.settings import validate

    with pytest.raises(InputError, match="query_parts"):
        validate(bad)


class RecordingStore:
    """Records what each search was asked (dense: the text embedded; BM25: the query) and finds nothing."""

    def __init__(self):
        self.dense: list[str] = []
        self.bm25: list[tuple[str, str]] = []

    def query(self, embedding, n):
        self.dense.append(embedding)
        return []

    def bm25_search(self, query, n, language=""):
        self.bm25.append((query, language))
        return []


class TextEmbedder:
    def embed_query(self, text):
        return text  # what the store is handed is the text itself, so the test can read it


def test_a_translated_row_is_keyword_searched_in_its_english_words_only():
    """A row across languages with a translation (translation/translator.py): dense searches read the row and
    the translation; BM25 reads the translation as an English row (English instruction words dropped,
    English synonyms added), not the row's own words, which English documents do not hold."""
    s = Settings()
    row = QuestionRow("S", 2, "Beschreiben Sie Ihre Scope-1-Emissionen.", form_of_answer="Zahl", language="de")
    store = RecordingStore()
    retrieve(s, store, TextEmbedder(), row, "hybrid", translation="describe your scope 1 emissions figure")
    # the English names of the row's own terms ("Emissionen") are searched densely on their own too
    assert store.dense == [build_query(row), "Beschreiben Sie Ihre Scope-1-Emissionen.",
                           "describe your scope 1 emissions figure", "emissions ghg greenhouse gas co2-e"]
    (query, language), = store.bm25
    assert language == "" and "describe" not in query and "scope 1 emissions" in query  # "" is English
    assert "direct emissions" in query  # the English synonyms of "scope 1"
    # Without a translation the row's own words are keyword-searched, in its language, as before.
    plain = RecordingStore()
    retrieve(s, plain, TextEmbedder(), row, "hybrid")
    assert [lang for _, lang in plain.bm25] == ["de", "de"] and "Beschreiben" not in plain.bm25[0][0]
    dense = RecordingStore()
    retrieve(s, dense, TextEmbedder(), row, "dense", translation="describe your scope 1 emissions figure")
    assert dense.dense[2:] == ["describe your scope 1 emissions figure", "emissions ghg greenhouse gas co2-e"]
    assert dense.bm25 == []
    s.retrieval.synonyms = False  # no synonyms, no names
    bare = RecordingStore()
    retrieve(s, bare, TextEmbedder(), row, "dense", translation="describe your scope 1 emissions figure")
    assert bare.dense[-1] == "describe your scope 1 emissions figure"


class ListsStore:
    """Each dense text and the BM25 search find one passage of their own (on its own page)."""

    def __init__(self, dense: dict[str, str], keyword: str):
        self.found = {text: Passage(cid, "R.pdf", i, i, "", cid) for i, (text, cid) in enumerate(dense.items(), 1)}
        self.keyword = Passage(keyword, "R.pdf", 99, 99, "", keyword)
        self.bm25: list[str] = []

    def query(self, embedding, n):
        return [self.found[embedding]]

    def bm25_search(self, query, n, language=""):
        self.bm25.append(query)
        return [self.keyword]


def test_a_translated_rows_keyword_search_weighs_as_both_its_parts_and_reads_its_own_terms():
    """An English row's row and question alone are each keyword-searched; a translated row has one keyword
    search (of its translation) standing in for both, weighted as both, beside its dense searches (its
    own words, its question, its translation, the English names of its terms). The keyword search also
    looks for those names, which the translation missed."""
    s = Settings()
    row = QuestionRow("S", 2, "Le fonds de roulement est-il positif ?", form_of_answer="Oui/Non", language="fr")
    translation = "The fund of rotation is positive ?"
    names = "working capital total current assets total current liabilities"
    store = ListsStore({build_query(row): "row", row.question: "question", translation: "translation",
                        names: "names"}, "keyword")
    ranked = retrieve(s, store, TextEmbedder(), row, "hybrid", translation=translation, n=5)
    assert [p.chunk_id for p in ranked][0] == "keyword"  # 2/(k+1) against 1/(k+1) for each dense list
    assert {p.chunk_id for p in ranked} == {"keyword", "row", "question", "translation", "names"}
    (query,) = store.bm25
    assert "working capital" in query and "total current liabilities" in query
