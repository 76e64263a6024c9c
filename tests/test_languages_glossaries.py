"""Each language's reporting glossary in its own module (autofill/languages/glossaries/): the language's
module reads it as `glossary`, the registry does not take the subpackage for a language, and the terms the
standards use in French and German (ESRS, VSME, GRI, the GHG Protocol) tag a row as its English version is
tagged, from the glossary alone."""

from __future__ import annotations

import sys

import pytest

from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.crosslingual import english_words, map_texts
from autofill.frameworks.mapping import Mapper
from autofill.languages import REGISTRY, load
from autofill.languages.glossaries import de as german_glossary, fr as french_glossary

LANGUAGE_FILE = '''
from autofill.languages import Language

LANGUAGE = Language(code="fi", name="Finnish", order=50, markers="ja on ei se", or_word="tai",
                    glossary=GLOSSARY)
'''


def test_each_language_module_reads_its_glossary_module():
    assert dict(REGISTRY["fr"].glossary) == french_glossary.GLOSSARY
    assert dict(REGISTRY["de"].glossary) == german_glossary.GLOSSARY
    assert "glossaries" not in REGISTRY


def test_the_registry_does_not_load_a_subpackage_as_a_language(tmp_path):
    # A glossaries package that defines a language of its own (here: one of its glossary) is still not a
    # language: the registry reads the package's modules, not its subpackages.
    pkg = tmp_path / "glossary_languages_pkg"
    (pkg / "glossaries").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "glossaries" / "__init__.py").write_text(
        "from autofill.languages import Language\nfrom glossary_languages_pkg.glossaries.fi import GLOSSARY\n\n"
        "LANGUAGE = Language(code='fi', name='Finnish glossary', glossary=GLOSSARY)\n", encoding="utf-8")
    (pkg / "glossaries" / "fi.py").write_text("GLOSSARY = {'kasvihuonekaasupäästöt': 'ghg emissions'}\n",
                                              encoding="utf-8")
    (pkg / "fi.py").write_text("from glossary_languages_pkg.glossaries.fi import GLOSSARY\n" + LANGUAGE_FILE,
                               encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        got = load("glossary_languages_pkg")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("glossary_languages_pkg")]:
            del sys.modules[name]
    assert list(got) == ["fi"]
    assert dict(got["fi"].glossary) == {"kasvihuonekaasupäästöt": "ghg emissions"}


@pytest.mark.parametrize("code", ["fr", "de"])
def test_a_glossary_is_lower_case_and_in_english(code):
    glossary = REGISTRY[code].glossary
    assert glossary and all(term == term.lower() and term.strip() == term for term in glossary)
    assert all(english and english == english.strip() for english in glossary.values())


# (language, question, its English version): each row's telling words are the standards' terms, which a
# dictionary reads word by word ("oxydes d'azote": oxides of nitrogen; "Elternzeit": parents' time).
ROWS = [
    ("fr", "Facteurs d'émission utilisés pour le calcul", "Emission factors used for the calculation"),
    ("fr", "Consommation de carburant de la flotte (litres)", "Fuel consumption of the fleet (litres)"),
    ("fr", "Nombre de cas de harcèlement signalés", "Number of reported cases of harassment"),
    ("fr", "Nombre de personnes handicapées parmi les salariés", "Number of persons with disabilities among employees"),
    ("fr", "Nombre de jours de congé parental pris", "Number of days of parental leave taken"),
    ("fr", "Oxydes d'azote émis (tonnes)", "Nitrogen oxides emitted (tonnes)"),
    ("fr", "Substances extrêmement préoccupantes produites ou utilisées",
     "Substances of very high concern produced or used"),
    ("fr", "Délais de paiement moyens accordés aux fournisseurs", "Average payment terms granted to suppliers"),
    ("fr", "Peuples autochtones touchés par les activités", "Indigenous peoples affected by the activities"),
    ("fr", "Quelle est la trajectoire de décarbonation de l'entreprise ?",
     "What is the company's decarbonisation pathway?"),
    ("fr", "Part des actifs exposés à des aléas chroniques", "Share of assets exposed to chronic hazards"),
    ("fr", "Liberté syndicale et dialogue social", "Freedom of association and social dialogue"),
    ("fr", "Salaire décent versé aux salariés", "Living wage paid to employees"),
    ("fr", "Système d'échange de quotas d'émission de l'UE", "EU emissions trading system"),
    ("fr", "Nombre total de collaborateurs", "Total number of employees"),  # not collaborators
    ("de", "Finanzierte Emissionen des Kreditportfolios", "Financed emissions of the loan portfolio"),
    ("de", "Verwendete Emissionsfaktoren", "Emission factors used"),
    ("de", "Kraftstoffverbrauch des Fuhrparks (Liter)", "Fuel consumption of the fleet (litres)"),
    ("de", "Anzahl gemeldeter Fälle von Belästigung", "Number of reported cases of harassment"),
    ("de", "Anzahl der Menschen mit Behinderung", "Number of persons with disabilities"),
    ("de", "Inanspruchnahme von Elternzeit", "Uptake of parental leave"),
    ("de", "Stickoxide (Tonnen)", "Nitrogen oxides (tonnes)"),
    ("de", "Zahlungsbedingungen gegenüber Lieferanten", "Payment terms towards suppliers"),
    ("de", "Betroffene indigene Völker", "Affected indigenous peoples"),
    ("de", "Stillgelegte CO2-Gutschriften im Berichtsjahr", "Carbon credits retired in the reporting year"),
    ("de", "Wie sieht der Dekarbonisierungspfad des Unternehmens aus?",
     "What is the company's decarbonisation pathway?"),
    ("de", "Vereinigungsfreiheit und sozialer Dialog", "Freedom of association and social dialogue"),
    ("de", "Existenzsichernde Löhne für Beschäftigte", "Living wages for employees"),
    ("de", "Teilnahme am EU-Emissionshandelssystem", "Participation in the EU emissions trading system"),
    ("de", "Anteil chronischen Gefahren ausgesetzter Vermögenswerte", "Share of assets exposed to chronic hazards"),
    ("de", "Treibhausgasbilanz des Unternehmens", "The company's carbon footprint"),  # not a balance
    ("de", "Anwohner, die von den Standorten betroffen sind", "Local communities affected by the sites"),
]


@pytest.fixture(scope="module")
def mapper():
    return Mapper(load_catalogue())


@pytest.mark.parametrize("language, question, english", ROWS)
def test_the_standards_terms_tag_a_row_like_its_english_version(mapper, language, question, english):
    # The glossary alone (no dictionary, no translator): a row its English version tags with a datapoint.
    concept = mapper.map(english).concepts[:1]
    assert concept
    words = english_words([(language, question)], None)
    assert map_texts(mapper, [question], [""], words)[0].concepts[:1] == concept, words


@pytest.mark.parametrize("language, question, never", [
    ("fr", "Description des limites liées à la nature mutualiste de l'entreprise", "biodiversity.management"),
    ("fr", "Quelles actions et quels services de conseil l'entreprise propose-t-elle pour réduire les émissions "
           "de ses clients ?", "gov.board-oversight"),
])
def test_a_word_of_many_senses_is_left_out_of_the_glossary(mapper, language, question, never):
    # "liées à la nature" (of a kind) is not nature-related, nor "conseil" (advice) a board: neither is a
    # glossary term, and the rows keep clear of the datapoints those readings would give
    assert not any(term in REGISTRY[language].glossary for term in ("liés à la nature", "conseil"))
    words = english_words([(language, question)], None)
    assert never not in map_texts(mapper, [question], [""], words)[0].concepts, words
