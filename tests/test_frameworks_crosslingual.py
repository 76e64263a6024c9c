"""Rows in German and French mapped to datapoints as their English versions are (frameworks/crosslingual.py,
issue 46): the glossary of each language's module and the translator a run's search uses; through the real
CLI (`inspect --json` and the `Framework datapoints` cell `run` writes) on questionnaires written here."""

from __future__ import annotations

import json

import pytest

from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.coverage import cell_labels
from types import SimpleNamespace

from autofill.frameworks.crosslingual import english_words, glossary_parts, joined, map_rows, map_texts, translator_for
from autofill.frameworks.lemmas import Lookup, Vocabulary, cognates, forms
from autofill.frameworks.mapping import Mapper, Mapping, Match
from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from tests.dictd_factory import write_dictd
from tests.race_helpers import cli
from tests.workbook_builders import build_questionnaire

# FreeDict-like entries: headwords in their dictionary form (singular, masculine, infinitive), senses in the
# dictionary's order, not the reporting one; some words of the questions below left out on purpose.
FRENCH = [("revenu", "income <n>"), ("combustible", "fuel <n>"), ("fossile", "fossil <adj>"),
          ("chiffre", "cipher <n>, digit <n>"), ("affaire", "stuff <n>"), ("bas", "stocking <n>"), ("bas", "low <adj>"),
          ("carbone", "carbon <n>"), ("part", "share <n>"), ("provenir", "come <v>"), ("calculer", "calculate <v>"),
          ("utiliser", "use <v>"), ("activité", "action <n>, activity <n>")]
GERMAN = [("Kohle", "coal <n>"), ("Umsatz", "revenue <n>, sales <n>"), ("Anteil", "share <n>"), ("hoch", "high")]

# (English, German, French): the same question in each language, and the datapoint each asks for.
SAME = [
    ("How much water was withdrawn at all sites during the reporting year (m³)?",
     "Wie viel Wasser wurde im Berichtsjahr an allen Standorten entnommen (m³)?",
     "Quelle quantité d'eau a été prélevée sur l'ensemble des sites au cours de l'exercice (m³) ?", "water.withdrawal"),
    ("How many employees are covered by collective bargaining agreements?",
     "Wie viele Beschäftigte sind durch Tarifverträge abgedeckt?",
     "Combien de salariés sont couverts par des conventions collectives ?", "workforce.bargaining"),
    ("What is the total weight of hazardous waste generated?",
     "Wie hoch ist das Gesamtgewicht der erzeugten gefährlichen Abfälle?",
     "Quel est le poids total des déchets dangereux produits ?", "waste.generated"),
    ("Does the company have a code of conduct?",
     "Verfügt das Unternehmen über einen Verhaltenskodex?",
     "L'entreprise dispose-t-elle d'un code de conduite ?", "conduct.culture"),
]


def _questions(i: int):
    return [("Fragen", row[i], "Text", False) for row in SAME]


def test_glossary_terms_come_out_in_english_and_the_rest_goes_to_the_translator():
    parts = glossary_parts("Wie hoch sind die Scope-1-Treibhausgasemissionen des Unternehmens?", "de")
    assert ("greenhouse gas emissions", True) in parts and ("company", True) in parts
    assert glossary_parts("Rejet d’eau des sites", "fr")[0] == ("water discharge", True)
    assert glossary_parts("Gesamttreibhausgasemissionen", "de")[-1] == ("greenhouse gas emissions", True)  # inside a compound

    class Translator:
        def __init__(self):
            self.asked = []

        def for_texts(self, keys):
            self.asked += keys
            return [f"<{text.strip()}>" for _, text in keys]

    t = Translator()
    out = english_words([("de", "Anzahl der Beschäftigten im Werk"), ("fr", "Bonjour")], t)
    assert out == ["number <der> employees <im Werk>", "<Bonjour>"]
    assert ("de", " im Werk") in t.asked
    assert english_words([("fr", "Bonjour")], None) == [""]  # no glossary term, no translator: nothing


def test_a_row_keeps_the_stronger_of_its_own_and_its_english_words_mapping():
    original = Mapping((Match("ghg.scope1", 1.0, "quoted", "GRI 305-1"),), ("GRI 305-1",))
    english = Mapping((Match("ghg.scope1", 0.7, "rules"), Match("ghg.total", 0.6, "rules")))
    got = joined(original, english)
    assert [(m.concept, m.strength, m.how) for m in got.matches] == [("ghg.scope1", 1.0, "quoted"), ("ghg.total", 0.6, "rules")]
    assert got.quoted == ("GRI 305-1",)


def test_german_and_french_questions_get_the_english_versions_first_datapoint():
    mapper = Mapper(load_catalogue())
    english = [m.concepts[:1] for m in mapper.map_many([row[0] for row in SAME])]
    assert english == [(row[3],) for row in SAME]
    for i, language in ((1, "de"), (2, "fr")):
        questions = [row[i] for row in SAME]
        words = english_words([(language, q) for q in questions], None)
        got = [m.concepts[:1] for m in map_texts(mapper, questions, [""] * len(questions), words)]
        assert got == english, language


def test_inspect_and_the_rows_a_run_reads_tag_german_rows_like_english_ones(tmp_path):
    ws = ["--workspace", str(tmp_path / "ws")]
    by_language, cells = {}, {}
    for i, language in ((0, "en"), (1, "de"), (2, "fr")):
        q = build_questionnaire(tmp_path / f"{language}.xlsx", questions=_questions(i))
        done = cli([*ws, "inspect", str(q), "--json"], timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
        data = json.loads(done.stdout)
        rows = data["datapoints"]["rows"]
        by_language[language] = [r["datapoints"][0]["concept"] if r["datapoints"] else "" for r in rows]
        _, questions = read_questions(Settings(), q)  # what run reads: the Framework datapoints cell it writes
        assert {row.language for row in questions} == {language}
        cells[language] = [cell_labels(row.datapoints)[:1] for row in questions]
    assert sum(1 for c in cells["en"] if c) >= 3
    assert cells["de"] == cells["en"] and cells["fr"] == cells["en"]
    assert by_language["en"] == [row[3] for row in SAME]
    assert by_language["de"] == by_language["en"]
    assert by_language["fr"] == by_language["en"]


def _map_pairs(tmp_path, pairs):
    """Each (English, (language, text)) mapped as `run` and `inspect` map rows, through the dictionaries above
    (a real dictd folder read by the translator the settings give)."""
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-fra-eng", FRENCH)
    write_dictd(folder, "freedict-deu-eng", GERMAN)
    settings = Settings()
    settings.retrieval.dictionaries = str(folder)
    settings.retrieval.apertium = ""
    mapper = Mapper(load_catalogue())
    rows = [SimpleNamespace(language=language, question=text) for english, (language, other) in pairs
            for language, text in (("en", english), (language, other))]
    maps = map_rows(settings, rows, mapper, [""] * len(rows))
    assert [m.concepts for m in maps[::2]] == [mapper.map(english).concepts for english, _ in pairs]  # English as it was
    return [(a.concepts[:1], b.concepts[:1]) for a, b in zip(maps[::2], maps[1::2])]


def test_plural_and_feminine_words_are_found_under_their_dictionary_form(tmp_path):
    got = _map_pairs(tmp_path, [("What is the revenue from fossil fuels?",
                                 ("fr", "Quels sont les revenus issus des combustibles fossiles ?"))])
    assert got == [(("energy.fossil",), ("energy.fossil",))]
    assert forms("fossiles", "fr")[:2] == ["fossiles", "fossile"] and "utiliser" in forms("utilisées", "fr")


def test_a_german_compound_is_split_into_words_the_dictionary_has_with_their_endings(tmp_path):
    got = _map_pairs(tmp_path, [("What share of revenue comes from coal?", ("de", "Wie hoch ist der Anteil der Kohleumsätze?"))])
    assert got == [(("energy.fossil",), ("energy.fossil",))]  # kohle + umsätze (umsatz)


def test_a_word_the_dictionary_lacks_is_read_as_the_cognate_the_catalogue_uses(tmp_path):
    got = _map_pairs(tmp_path, [("Which methodology is used to calculate the emissions?",
                                 ("fr", "Quelle méthodologie est utilisée pour calculer les émissions ?"))])
    assert got == [(("ghg.methodology",), ("ghg.methodology",))]
    assert "methodology" in cognates("méthodologie", "fr") and "activity" in cognates("activités", "fr")


def test_multiword_terms_catalogue_senses_and_french_word_order(tmp_path):
    # "chiffre d'affaires" is one term (the language's term names), "bas" is "low" here (the catalogue's
    # sense, not the dictionary's first), and "produits bas carbone" is read as "low carbon products".
    got = _map_pairs(tmp_path, [("What share of revenue comes from low-carbon products?",
                                 ("fr", "Quelle part du chiffre d'affaires provient des produits bas carbone ?"))])
    assert got == [(("metric.opportunities",), ("metric.opportunities",))]


def test_a_words_sense_is_its_cognate_then_a_catalogue_word_then_the_dictionarys_first(tmp_path):
    class Dictionary:
        senses_of = {"bas": [["stocking"], ["low"]], "activité": [["action", "activity"]], "chiffre": [["cipher", "digit"]]}

        def __contains__(self, word):
            return word in self.senses_of

        def senses(self, word):
            return self.senses_of.get(word, [])

    lookup = Lookup(Dictionary(), "fr", Vocabulary(["low", "carbon", "action", "activity"]), {"des", "de", "la"})
    assert lookup.english("activités bas carbone") == "activity low carbon"
    assert lookup.english("chiffre") == "cipher"  # no sense the catalogue uses: the first
    dutch = {"water": [["water"]], "verbruik": [["consumption"]], "eau": [["water"]]}
    Dictionary.senses_of.update(dutch)
    assert Lookup(Dictionary(), "nl", None).english("waterverbruik") == "water consumption"  # compounds: all but French
    assert Lookup(Dictionary(), "fr", None).english("eauverbruik") == "eauverbruik"
    # phrases: a stop word ends one, a figure stays with the word before it
    assert lookup.pieces("produits bas carbone 2030 de la chaîne")[0] == [
        ("produits", False), ("low", True), ("carbon 2030", True), ("chaîne", False)]


# French rows whose telling words the French-English dictionary lacks ("cible", "leviers"): the rules and the
# dictionary leave them with no datapoint; Apertium reads them (issue 46).
APERTIUM_ONLY = [("Description of the target linked to a policy", "Description de la cible liée à une politique"),
                 ("Which levers does the company rely on to reduce its emissions?",
                  "Sur quels leviers l'entreprise s'appuie-t-elle pour réduire ses émissions ?")]


def _apertium_reads_french() -> bool:
    from autofill.translation.apertium import routes

    return bool(routes(Settings().retrieval.apertium, "fr", "en"))


@pytest.mark.slow
@pytest.mark.skipif(not _apertium_reads_french(), reason="Apertium and its French pairs are not installed")
def test_inspect_tags_a_french_row_only_apertium_reads_like_its_english_version(tmp_path):
    ws = ["--workspace", str(tmp_path / "ws")]
    got, cells = {}, {}
    for i, language in ((0, "en"), (1, "fr")):
        q = build_questionnaire(tmp_path / f"{language}.xlsx",
                                questions=[("Questions", pair[i], "Text", False) for pair in APERTIUM_ONLY])
        done = cli([*ws, "inspect", str(q), "--json"], timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        rows = json.loads(done.stdout)["datapoints"]["rows"]
        got[language] = [r["datapoints"][0]["concept"] if r["datapoints"] else "" for r in rows]
        _, questions = read_questions(Settings(workspace=tmp_path / "ws"), q)  # the cell run writes
        cells[language] = [cell_labels(row.datapoints)[:1] for row in questions]
    assert got["en"] == ["target.ghg", "actions.decarbonisation"]
    assert got["fr"] == got["en"]
    # the cell shows the first row's datapoint in both; "leviers" is read word by word as "crowbar", so the
    # second French row finds its datapoint by "réduire ses émissions" alone, under the cell's floor (0.58)
    assert cells["en"][0] and cells["fr"][0] == cells["en"][0]


@pytest.mark.slow
@pytest.mark.skipif(not _apertium_reads_french(), reason="Apertium and its French pairs are not installed")
def test_the_rows_translation_is_the_searchs_and_is_made_once(tmp_path):
    from autofill.sqlite_cache import BlobCache
    from autofill.translation.translator import QueryTranslator, cache_key, cache_path

    settings = Settings(workspace=tmp_path)
    settings.vectordb_dir.mkdir()
    mapper = Mapper(load_catalogue())
    english, french = APERTIUM_ONLY[0]
    row = SimpleNamespace(language="fr", question=french, form_of_answer="", explanation="")
    # without the row's words (which Apertium's single words now read: test_frameworks_lemmas.py) the rules
    # leave it with no datapoint, and its whole text is read by Apertium
    assert map_rows(settings, [row], mapper, [""], translator=None)[0].concepts[:1] == \
        mapper.map(english).concepts[:1] == ("target.ghg",)
    # the translation is in the workspace's cache, under the key the run's search translator reads
    cache = BlobCache(cache_path(settings.vectordb_dir), "translation cache")
    search = QueryTranslator(settings.retrieval.dictionaries, None, ["en"], settings.retrieval.apertium, cache)
    key = cache_key(settings.retrieval.apertium, search.routes_for("fr"), "fr", french)
    kept = cache.get_blobs([key])[key].decode("utf-8")
    assert "target" in kept.lower()
    cache.put_blobs({key: b"Description of the target linked to a policy (from the cache)"})
    assert search.for_row(row) == "Description of the target linked to a policy (from the cache)"  # not translated again


@pytest.mark.skipif(not _apertium_reads_french(), reason="Apertium and its French pairs are not installed")
def test_a_french_word_the_dictionary_lacks_is_read_from_apertiums_dictionaries(tmp_path):
    # A FreeDict-like dictionary without "cible": the row's telling word is found through Apertium's own
    # dictionaries (translation/apertium_words.py), word by word, with no whole-sentence translation.
    write_dictd(tmp_path / "dictd", "freedict-fra-eng", [("description", "description <n>"), ("lier", "link <v>"),
                                                        ("politique", "policy <n>, politics <n>")])
    settings = Settings(workspace=tmp_path / "ws")
    settings.retrieval.dictionaries = str(tmp_path / "dictd")
    mapper = Mapper(load_catalogue())
    english, french = APERTIUM_ONLY[0]
    row = SimpleNamespace(language="fr", question=french, form_of_answer="", explanation="")
    assert map_rows(settings, [row], mapper, [""], machine=None)[0].concepts[:1] == \
        mapper.map(english).concepts[:1] == ("target.ghg",)
    settings.retrieval.apertium = ""  # no Apertium: the word stays French, the row has no datapoint
    assert map_rows(settings, [row], mapper, [""], machine=None)[0].concepts[:1] == ()


def test_a_negated_aside_is_left_out_of_a_german_or_french_rows_mapping_as_of_an_english_ones(tmp_path):
    from autofill.frameworks.crosslingual import without_negated

    german = "3. Brennstoff- und energiebezogene Tätigkeiten (nicht in Scope 1 oder Scope 2 enthalten)"
    french = "3. Activités liées aux combustibles et à l'énergie (non incluses dans les scopes 1 et 2)"
    assert without_negated(german, "de").strip() == "3. Brennstoff- und energiebezogene Tätigkeiten"
    assert without_negated(french, "fr").strip() == "3. Activités liées aux combustibles et à l'énergie"
    assert without_negated("Émissions de GES (scope 1 et 2), hors compensations", "fr") == \
        "Émissions de GES (scope 1 et 2), hors compensations"  # "hors" outside an aside of its own: kept
    assert without_negated("Share of (non-renewable) energy", "en") == "Share of (non-renewable) energy"
    english = "Fuel- and energy-related activities (not included in Scope 1 or Scope 2)"
    # Through map_rows, as run and inspect map rows: English names no scope, nor do German and French now
    # (the row's own text and its English words named Scope 1 and 2).
    assert _map_pairs(tmp_path, [(english, ("de", german)), (english, ("fr", french))]) == [((), ()), ((), ())]
    (before,) = map_texts(Mapper(load_catalogue()), [german], [""], [("",)])  # without the row's language
    assert "ghg.scope1" in before.concepts


@pytest.mark.skipif(not _apertium_reads_french(), reason="Apertium and its French pairs are not installed")
def test_a_french_past_participle_is_read_as_the_english_one(tmp_path):
    # "vendus": Apertium's analyser reads vendre<vblex><pp>, its English generator gives "sold", not "sell",
    # so the row's words hold the catalogue's phrase "sold products" (with FreeDict and Apertium installed).
    mapper = Mapper(load_catalogue())
    rows = [SimpleNamespace(language="en", question="End-of-life treatment of sold products"),
            SimpleNamespace(language="fr", question="Traitement en fin de vie des produits vendus")]
    settings = Settings(workspace=tmp_path / "ws")
    english, french = map_rows(settings, rows, mapper, ["", ""])
    assert english.concepts[:1] == french.concepts[:1] == ("energy.products",)


class _Machine:
    """A whole-row translator that records the rows it is asked for (crosslingual.with_machine's): French
    through Spanish, Spanish and Catalan straight into English."""

    def __init__(self):
        self.asked = []

    def routes_for(self, language):
        return (("fr-es", "spa-eng"),) if language == "fr" else ((f"{language}-eng",),)

    def for_rows(self, rows):
        self.asked += [r.language for r in rows]
        return ["What is the total amount of Scope 1 emissions?" for _ in rows]


class _Words:
    """A translator with a dictionary and Apertium's single words for French and Spanish, none for Catalan."""

    def dictionary_for(self, language):
        return {} if language in ("fr", "es") else None

    def routes_for(self, language):
        return ()

    def words_for(self, language):
        return object() if language in ("fr", "es") else None


def test_a_row_read_word_by_word_through_a_pivot_is_not_read_again_through_a_whole_translation():
    from autofill.frameworks.crosslingual import pivoted, read_whole, read_word_by_word, unmapped, with_machine

    mapper = Mapper(load_catalogue())
    languages = ("fr", "es", "ca")
    rows = [SimpleNamespace(language=lang, question="Rien à voir", form_of_answer="", explanation="")
            for lang in languages]
    translator, machine = _Words(), _Machine()
    assert [read_word_by_word(translator, lang) for lang in languages] == [True, True, False]
    assert [pivoted(machine, lang) for lang in languages] == [True, False, False]
    assert not read_word_by_word(None, "fr") and not pivoted(None, "fr")
    got = with_machine([Mapping()] * 3, rows, mapper, [""] * 3, machine, unmapped,
                       skip=lambda language: not read_whole(translator, machine, language))
    # French words are read from the dictionary and Apertium's single words, and its whole translation goes
    # through Spanish: not read again; Spanish (a direct pair) and a language with no dictionary still are
    assert machine.asked == ["es", "ca"]
    assert got[0].concepts == () and got[1].concepts[:1] == got[2].concepts[:1] == ("ghg.scope1",)
    machine.asked = []
    with_machine([Mapping()] * 3, rows, mapper, [""] * 3, machine, unmapped)
    assert machine.asked == ["fr", "es", "ca"]  # without `skip`, as before


def test_reducing_emissions_asks_for_the_actions_in_any_language(tmp_path):
    mapper = Mapper(load_catalogue())
    assert mapper.map("How does the company reduce its emissions?").concepts[:1] == ("actions.decarbonisation",)
    assert mapper.map("Reduced emissions in tonnes").concepts[:1] != ("actions.decarbonisation",)  # the figure


@pytest.mark.parametrize("language, question, concept", [
    ("de", "Abfälle, die der Beseitigung zugeführt werden (Masse)", "waste.generated"),
    ("fr", "Déchets destinés à être éliminés (en masse)", "waste.generated"),
    ("de", "Anzahl der Beschäftigten mit unbefristetem Vertrag", "workforce.characteristics"),
    ("fr", "Nombre de salariés en contrat à durée indéterminée", "workforce.characteristics"),
    ("fr", "Quantité de rejets dans l'air", "pollution.emissions"),
    ("fr", "Site situé dans une zone sensible pour la biodiversité", "biodiversity.sites"),
    ("de", "Gesamte naturnahe Fläche am Standort", "biodiversity.sites"),
    ("de", "Gesamte standortbezogene Scope 2-Treibhausgasemissionen", "ghg.scope2-location"),
    ("fr", "1. Biens et services achetés - Année de référence", "ghg.scope3"),  # a Scope 3 category's name
    ("de", "1. Eingekaufte Waren und Dienstleistungen - Basisjahr", "ghg.scope3"),
    ("fr", "Effectif total", "workforce.characteristics"),
    ("fr", "Nombre de salariés hommes au niveau de la direction", "workforce.diversity"),
    ("fr", "Chiffre d'affaires réalisé à partir du gaz", "energy.fossil"),
    ("de", "Umsatzerlöse aus Erdöl", "energy.fossil"),
    ("fr", "B5 – Sites situés dans des zones sensibles sur le plan de la biodiversité", "biodiversity.sites"),
])
def test_reporting_words_of_the_glossary_tag_a_row_like_its_english_version(language, question, concept):
    # The glossary alone (no translator): the words the standards use, in the singular or plural.
    mapper = Mapper(load_catalogue())
    words = english_words([(language, question)], None)
    assert map_texts(mapper, [question], [""], words)[0].concepts[:1] == (concept,), words


def test_a_french_glossary_term_is_found_in_the_singular_or_plural_of_each_word():
    assert ("sensitive areas", True) in glossary_parts("Site situé dans une zone sensible", "fr")
    assert ("sensitive areas", True) in glossary_parts("Sites situés dans des zones sensibles", "fr")
    assert ("hazardous waste", True) in glossary_parts("Déchets dangereux", "fr")


def test_a_term_of_several_words_is_read_whole_though_the_glossary_has_one_of_its_words():
    # "compensation" alone is offsetting; "compensations carbone" is carbon offsets, not "offsetting carbon".
    assert ("carbon offsets", True) in glossary_parts("Utilise-t-elle des compensations carbone ?", "fr")
    assert ("greenhouse gas emissions", True) in glossary_parts("Treibhausgasemissionen", "de")  # a compound: the glossary's


@pytest.mark.parametrize("language, question, never", [
    ("fr", "5. Déchets produits lors de l’exploitation - Année de référence", "waste.generated"),  # Scope 3 cat. 5
    ("de", "5. Im Rahmen der Geschäftstätigkeiten anfallender Abfall - Basisjahr", "waste.generated"),
    ("fr", "De combien le taux effectif d'imposition a-t-il varié ?", "workforce.characteristics"),  # not headcount
    ("de", "Sind bestätigte Vorfälle im Zusammenhang mit Menschenrechten aufgetreten?", "target.science-based"),
    ("fr", "De combien a-t-elle augmenté sa ligne de crédit renouvelable non garantie ?", "ghg.verification"),
])
def test_a_glossary_term_keeps_a_row_from_a_datapoint_its_english_version_does_not_ask_for(language, question, never):
    mapper = Mapper(load_catalogue())
    words = english_words([(language, question)], None)
    assert never not in map_texts(mapper, [question], [""], words)[0].concepts, words

