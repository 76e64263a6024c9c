"""autofill/translation/dictionaries.py: dictd dictionaries read as FreeDict's Debian packages install them."""

from __future__ import annotations

from autofill.translation.dictionaries import file_stem, find, package, translation_terms
from autofill.translation.dictionary_cache import open_dictionary
from tests.dictd_factory import write_dictd


def test_a_translation_line_loses_its_labels_grammar_and_numbering():
    assert translation_terms(" [envir.]  [phys.] emission <n>, output <n>") == ["emission", "output"]
    assert translation_terms("1. fetter (of sth.), shackle <n>") == ["fetter", "shackle"]
    assert translation_terms("   Synonym: {Ausstoß}") == []
    assert translation_terms('      "ein Ziel erreichen"  - achieve an aim') == []


def test_senses_in_the_dictionarys_order_with_shared_entries_and_no_phrases(tmp_path):
    index = write_dictd(tmp_path, "freedict-deu-eng", [
        ("Ziel", "bourn <n>, bourne <n> [obs.]"),
        ("ziel", "[mil.] target <n>"),
        ("Ziel ", "objective <n>, goal <n>, aim <n>"),
        ("Emissionen", "emissions"),
        ("Ziel erreichen", "achieve a target"),
    ], shared={"Emission": "Emissionen"})
    d = open_dictionary(index)
    assert d.senses("ZIEL") == [["bourn", "bourne"], ["target"]]  # the third headword has a space: a phrase
    assert d.senses("emission") == d.senses("Emissionen") == [["emissions"]]
    assert "ziel erreichen" not in d and d.senses("nichts") == []
    assert open_dictionary(index) is d  # read once per process


def test_a_sense_keeps_its_first_two_translations(tmp_path):
    d = open_dictionary(write_dictd(tmp_path, "freedict-fra-eng", [("objectif", "objective, goal, aim, target")]))
    assert d.senses("objectif") == [["objective", "goal"]]


def test_finding_a_dictionary_and_naming_its_package(tmp_path):
    assert file_stem("de", "en") == "freedict-deu-eng" and package("fr", "en") == "dict-freedict-fra-eng"
    assert file_stem("xx", "en") == "" and package("de", "xx") == ""
    assert find(tmp_path, "de", "en") is None
    index = write_dictd(tmp_path, "freedict-deu-eng", [("Wasser", "water")])
    assert find(tmp_path, "de", "en") == index and find(tmp_path, "fr", "en") is None
    (tmp_path / "freedict-deu-eng.dict.dz").unlink()  # half a dictionary is none
    assert find(tmp_path, "de", "en") is None and find("", "de", "en") is None


def test_an_english_dictionary_read_the_other_way_gives_each_translation_its_headwords(tmp_path):
    from autofill.translation.dictionaries import Dictionary, read_reverse

    index = write_dictd(tmp_path, "freedict-eng-fra", [
        ("buy", "1. acheter, acquérir\n2. achat"),
        ("purchase", "1. achat, emplette\n2. acheter, acquérir"),
        ("take over", "acheter"),  # a phrase: not a word's translation
    ])
    reverse = Dictionary(index, read_reverse(index))
    assert reverse.senses("acheter") == [["buy", "purchase"]]  # every numbered sense, the entries' order
    assert reverse.senses("achat") == [["buy", "purchase"]] and "emplette" in reverse
    assert "beispiel" not in reverse  # a synonym line is not a translation
