"""autofill/translation/apertium_words.py: single French words in English through Apertium's own
dictionaries (its analyser, then each pair's bilingual dictionary: fr -> es -> en and fr -> ca -> en), for the
words FreeDict's French-English lacks (issue 46). The streams are lt-proc's; the look-ups run the real
lt-proc on Debian's pairs and skip where they are not installed."""

from __future__ import annotations

import logging
import shutil

import pytest

from autofill.translation import apertium_words
from autofill.translation.apertium import DATA, routes
from autofill.translation.apertium_words import ApertiumWords, generator, lemma, readings, transducers, translations


def test_an_analysers_null_flushed_stream_is_each_words_readings():
    stream = ("^cibles/cible<n><f><pl>/cibler<vblex><pri><p2><sg>$\0^amont/*amont$\0"
              "^du/de<pr>+le<det><def><m><sg>$\0^bas/bas<adv>$^-/-<guio>$^carbone/carbone<n><m><sg>$\0")
    assert readings(stream, ["cibles", "amont", "du", "bas-carbone"]) == [
        ["cible<n><f><pl>", "cibler<vblex><pri><p2><sg>"],
        [],  # unknown to the analyser
        [],  # a contraction is two words, not a reading of one
        []]  # several units for one word: none trusted
    assert readings("^cibles/cible<n><f><pl>$\0", ["cibles", "amont"]) is None  # not one answer a word


def test_a_bilingual_dictionarys_stream_is_each_units_translations_and_lemmas_lose_their_tags():
    stream = "^bien<n><m><pl>/sake<n><pl>/good<n><pl>$\n^amont<n>/@amont<n>$\n^retirer<vblex>/take<vblex># off$\n"
    assert translations(stream) == [["sake<n><pl>", "good<n><pl>"], [], ["take<vblex># off"]]
    assert [lemma(t) for t in ("sake<n><pl>", "take<vblex># off")] == ["sake", "take off"]


def test_a_routes_transducers_are_read_from_its_mode_files(tmp_path):
    modes = tmp_path / "modes"
    modes.mkdir()
    (modes / "fr-es.mode").write_text(
        "lt-proc -w '/d/fr-es.automorf.bin' | apertium-tagger -g $2 '/d/fr-es.prob' | apertium-pretransfer | "
        "lt-proc -b '/d/fr-es.autobil.bin' | lrx-proc -m '/d/fr-es.autolex.bin' | lt-proc $1 '/d/fr-es.autogen.bin'")
    (modes / "spa-eng.mode").write_text("lt-proc '/e/spa-eng.automorf.bin' | lt-proc -b '/e/spa-eng.autobil.bin'")
    (modes / "bad-eng.mode").write_text("lt-proc '/e/bad.automorf.bin' | apertium-transfer x y")
    assert transducers(tmp_path, ("fr-es", "spa-eng")) == ((["-w"], "/d/fr-es.automorf.bin"),
                                                          ["/d/fr-es.autobil.bin", "/e/spa-eng.autobil.bin"])
    assert transducers(tmp_path, ("fr-es", "bad-eng")) is None  # no bilingual dictionary named
    assert transducers(tmp_path, ("fr-es", "missing")) is None
    assert generator(tmp_path, ("spa-eng", "fr-es")) == "/d/fr-es.autogen.bin"  # the last pair's
    assert generator(tmp_path, ("fr-es", "spa-eng")) == "" and generator(tmp_path, ("fr-es", "missing")) == ""


installed = pytest.mark.skipif(shutil.which("lt-proc") is None or not routes(DATA, "fr", "en"),
                               reason="Apertium with its French pairs not installed (bash scripts/install_dictionaries.sh)")


@pytest.fixture
def calls(monkeypatch):
    """The lt-proc commands run (the real ones), in order."""
    made = []
    run = apertium_words.subprocess.run
    monkeypatch.setattr(apertium_words.subprocess, "run", lambda args, **kw: made.append(args) or run(args, **kw))
    return made


@installed
def test_french_words_freedict_lacks_are_found_through_apertiums_dictionaries(calls):
    words = ApertiumWords(DATA, "fr")
    assert words  # a route: fr-es then spa-eng (the first of Apertium's routes; fra-cat then cat-eng the second)
    assert [bil[-1].rsplit("/", 1)[-1] for _, bil in words.routes] == ["spa-eng.autobil.bin"]
    words.prefetch(["cibles", "portefeuille", "achetés", "leviers", "zqxwv", "bas-carbone"])
    looked_up = len(calls)
    assert looked_up == sum(1 + len(bil) for _, bil in words.routes)  # all at once: one lt-proc per transducer
    assert "target" in words.translations("cibles")  # plural, through the analyser's lemma
    assert words.senses("achetés") == [["buy"]]  # a participle, through its infinitive
    assert words.translations("leviers") == ["crowbar"]  # every sense: the caller chooses
    assert "zqxwv" not in words and words.senses("zqxwv") == []
    assert "bas-carbone" not in words  # not a single word: never sent
    assert len(calls) == looked_up  # asked once


@installed
def test_a_failing_lt_proc_is_one_warning_and_no_word(tmp_path, caplog):
    modes = tmp_path / "modes"
    modes.mkdir()
    for mode in ("fr-es", "spa-eng"):
        (modes / f"{mode}.mode").write_text(f"lt-proc '{tmp_path}/{mode}.automorf.bin' | "
                                            f"lt-proc -b '{tmp_path}/{mode}.autobil.bin'")
    words = ApertiumWords(tmp_path, "fr")
    assert words.routes  # the mode files name transducers that are not there
    with caplog.at_level(logging.WARNING):
        assert "cible" not in words
    assert sum("failed" in r.getMessage() for r in caplog.records) == 1


@installed
def test_every_route_may_be_read(monkeypatch):
    monkeypatch.setattr(ApertiumWords, "ROUTES", None)
    words = ApertiumWords(DATA, "fr")
    assert len(words.routes) == len(routes(DATA, "fr", "en"))
    assert words.translations("leviers")[:2] == ["crowbar", "lever"]  # the first route's first, each once


def test_without_lt_proc_there_is_no_route(monkeypatch):
    monkeypatch.setattr(apertium_words.shutil, "which", lambda name: None)
    words = ApertiumWords(DATA, "fr")
    assert not words and "cible" not in words


@installed
def test_a_past_participle_is_found_by_the_analyser_and_given_in_english_by_the_generator(calls):
    words = ApertiumWords(DATA, "fr")
    assert words.generator.endswith("spa-eng.autogen.bin")
    words.analyse(["vendus", "achetés", "produits", "émissions", "zqxwv"])
    assert len(calls) == 1  # every word at once
    assert words.is_participle("vendus") and words.is_participle("achetés")
    assert not words.is_participle("produits")  # first a noun ("product"), then produire's participle
    assert not words.is_participle("émissions") and not words.is_participle("zqxwv")
    assert len(calls) == 1  # already read
    assert [words.participle(v) for v in ("sell", "buy", "generate")] == ["sold", "bought", "generated"]
    assert words.participle("zqxwv") == "" and words.participle("dispose of") == ""  # no such verb; not one word


@installed
def test_a_questionnaires_participles_are_generated_at_once(calls):
    words = ApertiumWords(DATA, "fr")
    words.prefetch_participles(["sell", "buy", "zqxwv", "generate", "sell"])
    assert len(calls) == 1  # one lt-proc for every verb
    assert [words.participle(v) for v in ("sell", "buy", "zqxwv", "generate")] == ["sold", "bought", "", "generated"]
    assert len(calls) == 1  # already known


@installed
def test_words_looked_up_are_already_analysed(calls):
    words = ApertiumWords(DATA, "fr")
    words.prefetch(["vendus", "produits", "biens"])
    looked_up = len(calls)
    words.analyse(["vendus", "produits", "biens"])
    assert len(calls) == looked_up  # the look-up's analysis gave each word's first reading
    assert words.is_participle("vendus") and not words.is_participle("produits")
    words.analyse(["achetés"])
    assert len(calls) == looked_up + 1 and words.is_participle("achetés")  # a word not looked up: read
