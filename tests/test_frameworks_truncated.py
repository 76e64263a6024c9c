"""German compounds cut short with a hyphen made whole before they are read (autofill/frameworks/truncated.py,
issue 46): "Stein- und Braunkohle" is hard coal and lignite, not stone and lignite."""

from __future__ import annotations

from autofill.frameworks.crosslingual import english_texts, translator_for
from autofill.frameworks.truncated import completed
from autofill.settings import Settings
from tests.dictd_factory import write_dictd


class _Lookup:
    """A look-up whose dictionary splits compounds into the words it knows."""

    stopwords = frozenset({"und", "oder", "sowie", "bzw", "der", "die"})
    heads = ("kohle", "verschmutzung", "entscheidungen")

    def compound(self, word):
        head = next((h for h in self.heads if word.endswith(h) and len(word) > len(h) + 2), "")
        return [word[:-len(head)], head] if head else None


def test_a_shortened_compound_takes_the_next_compounds_head():
    lookup = _Lookup()
    assert completed("Stein- und Braunkohle", lookup) == "Steinkohle und Braunkohle"
    assert completed("Wasser- oder Bodenverschmutzung", lookup) == "Wasserverschmutzung oder Bodenverschmutzung"
    assert completed("Planungs- bzw. Investitionsentscheidungen", lookup) == \
        "Planungsentscheidungen bzw. Investitionsentscheidungen"


def test_what_is_not_a_shortened_compound_is_left_as_written():
    lookup = _Lookup()
    for text in ("Scope 1- und Scope 2-Emissionen",  # a figure
                 "CO2- Bilanz der Braunkohle",  # no joining word
                 "Stein- und Holz",  # a next word the dictionary cannot split
                 "Kohle-Ausstieg und Braunkohle", "ohne Bindestrich"):
        assert completed(text, lookup) == text


def test_a_german_rows_shortened_compound_is_read_whole(tmp_path):
    write_dictd(tmp_path / "dictd", "freedict-deu-eng", [
        ("steinkohle", "hard coal <n>"), ("braunkohle", "lignite <n>"), ("kohle", "coal <n>"),
        ("stein", "stone <n>"), ("braun", "brown <adj>"), ("umsatz", "revenue <n>")])
    settings = Settings(workspace=tmp_path / "ws")
    settings.retrieval.dictionaries = str(tmp_path / "dictd")
    settings.retrieval.apertium = ""
    translator = translator_for(settings)
    assert english_texts([("de", "Umsatz aus Stein- und Braunkohle")], translator)[0][0] == \
        "revenue hard coal lignite"
    assert english_texts([("de", "Umsatz aus Steinen und Braunkohle")], translator)[0][0] == \
        "revenue stone lignite"
