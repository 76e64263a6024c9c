"""search/centring.py: a questionnaire's search texts and the multilingual index's passages centred on
their means, the centred list fused with the plain one; too few rows, or a text not of the
questionnaire, searched plainly. Vectors are made by hand so that what each search finds is known."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from autofill.search.centring import MIN_ROWS, CentredSearch, Centre, centre_of, language_kinds
from autofill.search.retrieval import retrieve
from autofill.providers.local import LocalEmbedder
from autofill.records import Passage, QuestionRow
from autofill.store.multilingual import MultilingualIndex

DIM = 12
TOPICS = 5


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v


def normed(v: np.ndarray) -> list[float]:
    return (v / np.linalg.norm(v)).tolist()


# Every passage shares one direction (a report's language and style), every question another (a German
# questionnaire's); passage i and question i share a topic. The distractor looks like the questions do
# (a content index that names every topic in a questionnaire's words), so plain cosine ranks it first
# for every question; centred, each question finds its own passage.
PASSAGE, QUESTION = 3 * unit(0), 3 * unit(1)
PASSAGES = {f"p{i}": PASSAGE + unit(2 + i) for i in range(TOPICS)}
PASSAGES["p9"] = PASSAGE + 0.8 * QUESTION
QUESTIONS = {f"Frage {i}": QUESTION + unit(2 + i) for i in range(TOPICS)}


class Store:
    company, collection, embedder_name = "Anglo", "c_anglo", "local:bge-small-en-v1.5"

    def embed_texts(self) -> dict[str, str]:
        return {cid: cid for cid in PASSAGES}

    def get_passages(self, ids):
        return [Passage(chunk_id=i, file_name="r.pdf", page_start=int(i[1:]) + 1, page_end=int(i[1:]) + 1,
                        section="", text=i, score=0.0, rank=0) for i in ids if i in PASSAGES]

    def bm25_search(self, query, n, language=""):
        return []


class Embedder:
    name = "local:multilingual-e5-small"

    def embed_query(self, text: str) -> list[float]:
        return normed(QUESTIONS[text])


@pytest.fixture()
def index(tmp_path, monkeypatch):
    monkeypatch.setattr(LocalEmbedder, "embed_documents", lambda self, texts: [normed(PASSAGES[t]) for t in texts])
    return MultilingualIndex(SimpleNamespace(vectordb_dir=tmp_path), Store(), Embedder())


def test_a_kind_of_text_is_centred_on_its_own_mean_and_only_with_enough_rows():
    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [3.0, 0.0], "e": [0.0, 3.0], "x": [9.0, 9.0]}
    centre = centre_of([["a", "b", "c", "d", "e"], ["x"] * (MIN_ROWS - 1), ["a", "b", "c", "d", "x"]],
                       lambda t: vectors[t])
    assert np.allclose(centre.mean_for("a"), [1.0, 1.0])  # the first kind's mean, though "a" is in the third
    assert np.allclose(centre.mean_for("x"), [2.8, 2.2])  # too few of the second kind: the third's
    assert centre.mean_for("nothing") is None
    assert not centre_of([["a", "b", "c", "d"]], lambda t: vectors[t])  # one fewer than MIN_ROWS: no centre


def test_rows_in_several_languages_are_centred_within_their_language():
    """Issue 43: a mixed questionnaire's Spanish rows are centred on the Spanish rows' mean, its Italian
    rows on theirs (one mean over both would centre each on the other language); one language as before."""
    languages = ["es", "it", "es", "it"]
    assert language_kinds(languages, ["s1", "i1", "s2", "i2"], ["S1", "I1", "S2", "I2"]) == \
        [["s1", "s2"], ["S1", "S2"], ["i1", "i2"], ["I1", "I2"]]
    assert language_kinds(["de"] * 3, ["a", "b", "c"], ["A", "B", "C"]) == [["a", "b", "c"], ["A", "B", "C"]]
    vectors = {f"{code}{i}": [1.0, float(i)] if code == "s" else [float(i), 1.0]
               for code in "si" for i in range(MIN_ROWS)}
    texts = [*(f"s{i}" for i in range(MIN_ROWS)), *(f"i{i}" for i in range(MIN_ROWS))]
    centre = centre_of(language_kinds(["es"] * MIN_ROWS + ["it"] * MIN_ROWS, texts, [""] * len(texts)),
                       lambda t: vectors[t])
    assert np.allclose(centre.mean_for("s0"), [1.0, (MIN_ROWS - 1) / 2])
    assert np.allclose(centre.mean_for("i0"), [(MIN_ROWS - 1) / 2, 1.0])


def test_plain_cosine_is_led_astray_and_centring_finds_each_questions_passage(index):
    embedder = Embedder()
    for i in range(TOPICS):
        assert index.query(embedder.embed_query(f"Frage {i}"), 1)[0].chunk_id == "p9"  # the distractor
    centre = centre_of([list(QUESTIONS)], embedder.embed_query)
    search = CentredSearch(index, centre, rrf_k=20)
    for i in range(TOPICS):
        q = np.asarray(embedder.embed_query(f"Frage {i}")) - centre.mean_for(f"Frage {i}")
        assert index.centred_query(q / np.linalg.norm(q), 1)[0].chunk_id == f"p{i}"
        top = search.search_text(f"Frage {i}", embedder, 3)
        assert {p.chunk_id for p in top[:2]} == {"p9", f"p{i}"}, top  # fused: the plain list's first stays
        assert [p.rank for p in top] == [1, 2, 3]


def test_a_text_the_centre_does_not_know_is_searched_plainly(index):
    embedder = Embedder()
    search = CentredSearch(index, Centre({}), rrf_k=20)
    plain = index.query(embedder.embed_query("Frage 2"), 4)
    assert [p.chunk_id for p in search.search_text("Frage 2", embedder, 4)] == [p.chunk_id for p in plain]
    assert search.company == "Anglo"  # everything else is the index's, and so the store's
    assert search.bm25_search("Frage", 3) == []


def test_retrieve_searches_through_the_centre(index):
    """search/retrieval's dense search goes through the centre when the store has one: the row finds its
    page in the first places, which plain dense search gives to the distractor."""
    from autofill.settings import load_settings

    settings = load_settings(None, environ={}, overrides={"retrieval": {"query_parts": "row"}})
    embedder = Embedder()
    search = CentredSearch(index, centre_of([list(QUESTIONS)], embedder.embed_query), rrf_k=20)
    row = QuestionRow(sheet="s", row=4, question="Frage 3", language="de")
    plain = retrieve(settings, index, embedder, row, "dense", n=2)
    centred = retrieve(settings, search, embedder, row, "dense", n=2)
    assert plain[0].chunk_id == "p9" and "p3" in [p.chunk_id for p in centred]
