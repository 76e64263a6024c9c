"""autofill/apertium.py and its use by answer/translation.py: routes into English found among the installed
pairs (French through Spanish), real translations by Debian's Apertium (installed by
scripts/install_dictionaries.sh, which the test command runs), and the dictionary serving the languages
Apertium has no route for and any row it fails on."""

from __future__ import annotations

import shutil

import pytest

from autofill.apertium import DATA, route, translate
from autofill.answer.translation import QueryTranslator, translation_note
from autofill.records import QuestionRow
from tests.dictd_factory import write_dictd

installed = pytest.mark.skipif(shutil.which("apertium") is None or not route(DATA, "es", "en"),
                               reason="Apertium with apertium-eng-spa not installed (bash scripts/install_dictionaries.sh)")


def modes(folder, *names):
    (folder / "modes").mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / "modes" / f"{name}.mode").write_text("cat\n")
    return folder


@pytest.mark.skipif(shutil.which("apertium") is None, reason="no apertium program")
def test_a_route_is_a_pair_or_two_through_a_language_between(tmp_path):
    data = modes(tmp_path / "one", "spa-eng", "fr-es", "es-fr", "eng-spa")
    assert route(data, "es", "en") == ("spa-eng",)
    assert route(data, "fr", "en") == ("fr-es", "spa-eng")  # two letters and three, through Spanish
    assert route(data, "de", "en") == () and route(data, "en", "en") == ()
    assert route(modes(tmp_path / "none"), "es", "en") == ()


def test_without_the_apertium_program_there_is_no_route(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert route(modes(tmp_path, "spa-eng"), "es", "en") == ()


@installed
def test_spanish_and_french_questions_are_translated_whole():
    spanish = translate("¿Qué porcentaje de las emisiones directas (alcance 1) está sujeto a límites obligatorios?",
                        route(DATA, "es", "en"))
    assert "direct emissions" in spanish and "compulsory" in spanish and "1" in spanish, spanish
    if route(DATA, "fr", "en"):
        french = translate("Quelle part des émissions directes de l'entreprise ?", route(DATA, "fr", "en"))
        assert "direct emissions" in french and "company" in french, french


class Embedder:
    def embed_query(self, text):
        return [1.0, 0.0]


def row(question, language):
    return QuestionRow(sheet="Q", row=2, number="1", question=question, language=language)


@installed
def test_the_translator_uses_apertium_where_it_has_a_route_and_the_dictionary_elsewhere(tmp_path):
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-deu-eng", [("Emissionen", "emissions"), ("Wasser", "water <n>")])
    write_dictd(folder, "freedict-spa-eng", [("emisiones", "broadcasts")])
    translator = QueryTranslator(str(folder), Embedder(), ["en"], DATA)
    assert "emissions" in translator.for_row(row("¿Cuáles fueron las emisiones directas?", "es"))
    assert translator.for_row(row("Emissionen Wasser", "de")) == "emissions water"  # no route: the dictionary
    assert "(Apertium spa-eng)" in translator.note("es") and "dictionary" in translator.note("de")
    without = QueryTranslator(str(folder), Embedder(), ["en"], "")  # retrieval.apertium = ""
    assert without.for_row(row("emisiones", "es")) == "broadcasts"
    assert "Apertium" not in translation_note(str(folder), "es", "en", "")


@pytest.mark.skipif(shutil.which("apertium") is None, reason="no apertium program")
def test_a_row_apertium_fails_on_is_looked_up_in_the_dictionary(tmp_path, caplog):
    """A broken pair (a mode file that does not run) fails the translation, not the row."""
    data = tmp_path / "apertium"
    (data / "modes").mkdir(parents=True)
    (data / "modes" / "spa-eng.mode").write_text("no-such-program-anywhere\n")
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-spa-eng", [("emisiones", "emissions")])
    translator = QueryTranslator(str(folder), Embedder(), ["en"], str(data))
    assert translator.route_for("es") == ("spa-eng",)
    assert translator.for_row(row("emisiones", "es")) == "emissions"
    assert "Apertium (spa-eng) failed on a row" in caplog.text
