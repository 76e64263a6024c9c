"""autofill/translation/translator.py: a question searched in its documents' words too."""

from __future__ import annotations

import pytest

from autofill.translation.translator import QueryTranslator, split_compound, translate_query
from autofill.translation.dictionary_cache import open_dictionary
from autofill.records import QuestionRow
from tests.dictd_factory import write_dictd

ENTRIES = [
    ("Ziel", "bourn <n>, bourne <n>"),
    ("Ziel", "[mil.] target <n>"),
    ("Ziel", "finishing line <n>, finish <n>"),
    ("Netto", "net, nett"),
    ("Null", "zero <n>"),
    ("Emissionen", "emissions"),
    ("Klima", "climate <n>"),
    ("Risiken", "risks"),
    ("Wasser", "water <n>"),
    ("Unternehmen", "company <n>"),
]


@pytest.fixture()
def german(tmp_path):
    return open_dictionary(write_dictd(tmp_path / "dictd", "freedict-deu-eng", ENTRIES))


def prefer(*words):
    """A similarity that ranks the given words first (as the multilingual model would in context)."""
    return lambda candidate: 1.0 if candidate in words else 0.0


def test_words_translated_stop_words_dropped_figures_and_names_kept(german):
    text = "Hat das Unternehmen ein Netto-Null-Ziel für Scope-1-Emissionen bis 2050 (SBTi)?"
    out = translate_query(text, german, {"hat", "das", "ein", "für", "bis"}, prefer("target", "net"))
    assert out == "company net zero target scope 1 emissions 2050 sbti"


def test_the_sense_nearest_the_whole_question_is_chosen(german):
    assert translate_query("Ziel", german, set(), prefer("finishing line")) == "finishing line"
    assert translate_query("Ziel", german, set(), prefer("target")) == "target"
    assert translate_query("Ziel", german, set(), prefer("target", "bourn"), per_word=2) == "bourn target"


def test_a_closed_compound_is_split_into_known_parts(german):
    assert split_compound(german, "klimarisiken") == ["klima", "risiken"]
    assert split_compound(german, "wasserxyz") is None
    assert translate_query("Klimarisiken", german, set(), prefer()) == "climate risks"


class FakeEmbedder:
    def __init__(self):
        self.texts = []

    def embed_query(self, text):
        self.texts.append(text)
        return [1.0, 0.0] if text in ("target", "Ziel") else [0.0, 1.0]


def row(question, language):
    return QuestionRow(sheet="Q", row=2, number="1", question=question, language=language)


def test_a_translator_serves_rows_whose_documents_are_english(tmp_path):
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-deu-eng", ENTRIES)
    embedder = FakeEmbedder()
    translator = QueryTranslator(str(folder), embedder, ["en", ""])
    assert translator.for_row(row("Ziel", "de")) == "target"
    calls = len(embedder.texts)
    assert translator.for_row(row("Ziel", "de")) == "target" and len(embedder.texts) == calls  # once per text
    assert translator.for_row(row("Goal", "en")) == ""  # English rows are searched as they are
    assert translator.for_row(row("Objectif", "fr")) == ""  # no French dictionary there
    assert "German questions are searched in English words too" in translator.note("de")
    assert "install the Debian package dict-freedict-fra-eng" in translator.note("fr")
    assert translator.note("en") == "" and translator.note("") == ""
    # Documents not all English: nothing is translated (into other languages it lost, README).
    other = QueryTranslator(str(folder), embedder, ["en", "de"])
    assert other.for_row(row("Ziel", "de")) == "" and other.note("de") == ""


def test_a_row_searched_with_the_multilingual_index_is_searched_in_its_translation_too(tmp_path, monkeypatch):
    """answer/row.py: the translation joins the row's searches (retrieve's `translation`), for rows searched
    with the multilingual index only."""
    import threading

    from autofill.answer import row as row_module
    from autofill.answer.row import RowContext, answer_row
    from autofill.choices import RETRIEVAL_MODES
    from autofill.settings import load_settings

    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-deu-eng", ENTRIES)
    seen = []

    def fake_retrieve(settings, store, embedder, row, mode, hyde_passage="", n=None, extra_queries=(),
                      translation="", index=None):
        seen.append((store, list(extra_queries), translation))
        return []

    monkeypatch.setattr(row_module, "retrieve", fake_retrieve)

    class Store:
        embedder_name = "local:bge-small-en-v1.5"

    class Index:
        embedder = FakeEmbedder()

    store, index = Store(), Index()
    ctx = RowContext(settings=load_settings(tmp_path, environ={}), company="Anglo", store=store,
                     embedder=object(), chat=None, reranker=None, mode=RETRIEVAL_MODES["hybrid"], meter=None,
                     search_lock=threading.Lock(), multilingual=index, document_languages=("en",),
                     translator=QueryTranslator(str(folder), index.embedder, ["en"]))
    answer_row(ctx, row("Ziel", "de"))
    answer_row(ctx, row("Target", "en"))
    assert seen == [(index, [], "target"), (store, [], "")]


def test_the_english_dictionary_of_a_language_is_read_the_other_way_where_it_is_small(tmp_path):
    from autofill.translation.translator import QueryTranslator
    from tests.dictd_factory import write_dictd

    write_dictd(tmp_path, "freedict-eng-fra", [("purchase", "1. achat\n2. acheter"), ("buy", "acheter")])
    translator = QueryTranslator(str(tmp_path), None, ["en"])
    assert translator.reverse_for("fr").senses("acheter") == [["purchase", "buy"]]
    assert translator.reverse_for("de") is None and translator.reverse_for("en") is None  # none there; English
