"""The English names of financial and GHG terms in other languages (search/terms.py) and their use by
the keyword query of a row searched as its English translation (search/query.lexical_query's source)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from autofill.search.query import SYNONYMS, expansions, lexical_query
from autofill.search.retrieval import translated_row
from autofill.search.terms import TERMS, english_keys
from autofill.records import QuestionRow


def test_every_term_names_a_concept_english_rows_have():
    assert set(TERMS) >= {"de", "fr", "es"}
    for language, terms in TERMS.items():
        for term, key in terms.items():
            assert key in SYNONYMS, (language, term, key)
            assert term == term.lower().strip(), (language, term)


@pytest.mark.parametrize("language, text, keys", [
    ("fr", "D'après le tableau des flux de trésorerie, quel est le fonds de roulement ?",
     ["cash flow statement", "working capital"]),
    ("de", "Wie hoch war die Bilanzsumme laut Bilanz?", ["total assets", "balance sheet"]),
    ("es", "¿Cuál fue el costo de ventas según el estado de resultados?", ["income statement", "cogs"]),
])
def test_a_languages_terms_name_the_english_concepts(language, text, keys):
    assert english_keys(text, language) == keys


def test_a_term_inside_a_longer_one_is_not_matched_again_and_words_match_whole():
    assert english_keys("le coût des ventes", "fr") == ["cogs"]  # not "sales" as well
    assert english_keys("Quel est le chiffre d’affaires ?", "fr") == ["revenue"]  # typographic apostrophe
    assert english_keys("les bilans", "fr") == []  # "bilan" inside a longer word
    assert english_keys("the balance sheet", "en") == [] and english_keys("bilan", "it") == []


def test_a_foreign_term_adds_its_english_name_and_report_wording():
    extra = expansions("Le fonds de roulement est-il positif ?", "fr")
    assert extra == ["working capital", "total current assets", "total current liabilities"]
    assert expansions("Le fonds de roulement est-il positif ?") == []  # English terms only, as before


def test_a_translated_rows_keyword_query_adds_the_english_names_of_its_own_terms():
    row = QuestionRow("S", 2, "Le fonds de roulement de Corning est-il positif d'après le bilan ?", language="fr")
    # Apertium's translation misses both terms
    machine = "The fund of rotation of Corning is positive according to the balance ?"
    query = lexical_query(translated_row(row, machine), source=row)
    assert "working capital" in query and "total current assets" in query
    assert "consolidated balance sheets" in query and "statement of financial position" in query
    assert query.count("total current assets") == 1
    # without its source, or without synonyms, the translation is searched as an English row
    assert "working capital" not in lexical_query(translated_row(row, machine))
    assert "working capital" not in lexical_query(translated_row(row, machine), expand=False, source=row)
    # a French row searched in its own words (French reports) gets no English names of its terms
    assert "working capital" not in lexical_query(replace(row))


def test_term_names_are_the_english_names_the_rows_own_words_give_and_no_others():
    from autofill.search.query import term_names

    french = QuestionRow("S", 2, "Le fonds de roulement et les émissions de scope 1 ?", language="fr")
    # "scope 1" is a loan word the English map reads already: its wording is not repeated
    assert term_names(french) == ["working capital", "total current assets", "total current liabilities",
                                  "emissions", "ghg", "greenhouse gas", "co2-e"]
    assert term_names(QuestionRow("S", 2, "What is the working capital?", language="en")) == []
    assert term_names(QuestionRow("S", 2, "Wie hoch ist der Wasserverbrauch?", language="de")) == []
