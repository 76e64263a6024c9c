"""autofill/frameworks/loose.py: the catalogue's phrases matched in any word order, for the English words of
a row written in another language (issue 46); an English row's mapping is the regexes' alone."""

from __future__ import annotations

import pytest

from autofill.frameworks import crosslingual
from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.crosslingual import map_texts
from autofill.frameworks.loose import matches, phrases, stem_sets, text_stems
from autofill.frameworks.mapping import Mapper


@pytest.fixture(scope="module")
def mapper():
    return Mapper(load_catalogue())


def test_a_pattern_is_read_as_the_phrases_it_matches():
    assert phrases("biodiversity[- ]sensitive") == ["biodiversity-sensitive", "biodiversity sensitive"]
    assert sorted(phrases("use of (sold )?products?")) == ["use of product", "use of products",
                                                           "use of sold product", "use of sold products"]
    assert phrases("emission.*air") == []  # no bound: not read loosely
    assert phrases("(a|b|c)(d|e|f)(g|h|i)(j|k|l)") == []  # 81 phrases: too many
    # One word, or a figure: only the regex (a stem would widen a fragment; translations keep figures).
    assert stem_sets("polic") == () and stem_sets("sites?") == () and stem_sets("scope 3") == ()
    assert stem_sets("purchased goods and services") == (frozenset({"purchased", "good", "service"}),)


def test_a_phrase_matches_in_any_order_when_its_words_stand_close():
    pattern = "biodiversity[- ]sensitive"
    assert matches(pattern, text_stems("sites area sensitive biodiversity"))
    assert matches(pattern, text_stems("Biodiversity-sensitive areas"))
    assert not matches(pattern, text_stems("sensitive data of the site, and its biodiversity"))  # too far apart
    assert not matches(pattern, text_stems("biodiversity of the site"))
    # Plurals aside, words count as written: the figure achieved is not the action planned.
    assert matches("reduced (its )?emissions", text_stems("emissions reduced"))
    assert not matches("reduced (its )?emissions", text_stems("reduce emissions"))


def test_a_translated_row_is_matched_loosely_and_an_english_one_is_not(mapper):
    # "Standort in einem Gebiet mit schutzbedürftiger Biodiversität", word by word in its own order:
    words = "sites area sensitive biodiversity"
    (mapping,) = map_texts(mapper, ["Standort in einem Gebiet mit schutzbedürftiger Biodiversität"], [""], [(words,)])
    assert mapping.concepts[0] == "biodiversity.sites"
    assert "biodiversity.sites" not in mapper.map(words).concepts  # as English: the regexes alone
    assert mapper.map("Site located in a biodiversity sensitive area").concepts[0] == "biodiversity.sites"


def test_only_the_first_reading_is_matched_loosely(mapper, monkeypatch):
    # A French row's second reading is its phrases already in English order: matched as written.
    row = "Site situé dans une zone sensible sur le plan de la biodiversité"
    (first,) = map_texts(mapper, [row], [""], [("sites zone sensitive biodiversity", "")])
    (second,) = map_texts(mapper, [row], [""], [("", "sites zone sensitive biodiversity")])
    assert "biodiversity.sites" in first.concepts and "biodiversity.sites" not in second.concepts
    monkeypatch.setattr(crosslingual, "LOOSELY", False)
    (off,) = map_texts(mapper, [row], [""], [("sites zone sensitive biodiversity", "")])
    assert "biodiversity.sites" not in off.concepts
