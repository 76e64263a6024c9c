"""autofill/frameworks/lemmas.py's second source of words (issue 46): a word the dictionary lacks under every
form is read from `more` (Apertium's single words, translation/apertium_words.py), its translation chosen as
a dictionary sense is; a word the dictionary has is never asked of it. Pure: the dictionary and the second
source are given (tests/test_apertium_words.py runs the real one)."""

from __future__ import annotations

from autofill.frameworks.lemmas import Lookup, Vocabulary


class Words:
    """A dictionary-like source: `senses`, `in`, and `prefetch` (recorded)."""

    def __init__(self, senses: dict[str, list[list[str]]]) -> None:
        self.senses_of, self.prefetched, self.asked = senses, [], []

    def __contains__(self, word):
        self.asked.append(word)
        return word in self.senses_of

    def senses(self, word):
        return self.senses_of.get(word, [])

    def prefetch(self, words):
        self.prefetched += list(words)


FREEDICT = {"description": [["description"]], "politique": [["policy"]], "bas": [["stocking"], ["low"]]}
APERTIUM = {"cible": [["white", "target"]], "portefeuille": [["wallet"]], "bas": [["down"]]}


def test_a_word_the_dictionary_lacks_is_read_from_the_second_source_with_the_catalogues_sense():
    more = Words(APERTIUM)
    lookup = Lookup(Words(FREEDICT), "fr", Vocabulary(["target", "policy", "low", "description"]), {"de", "la", "à", "une"},
                    more)
    lookup.prefetch(["Description de la cible liée à une politique", "bas"])
    assert sorted(more.prefetched) == ["cible", "liée"]  # the words the dictionary lacks, at once
    assert lookup.english("Description de la cible liée à une politique") == "description target liée policy"
    assert lookup.english("portefeuille bas") == "wallet low"  # no catalogue sense: the first; "bas" from FreeDict
    assert "bas" not in more.asked and "description" not in more.asked


def test_without_a_second_source_such_words_stay_as_written():
    lookup = Lookup(Words(FREEDICT), "fr", Vocabulary(["target", "policy"]), {"de", "la"})
    lookup.prefetch(["la cible"])  # nothing to ask
    assert lookup.english("la cible") == "cible"


def test_of_a_words_senses_its_own_cognate_comes_before_a_word_of_the_same_stem_and_a_look_alike_before_the_catalogues():
    from autofill.frameworks.lemmas import looks_like

    german = Words({"intensität": [["intensiveness"], ["intensity"]],
                    "produktion": [["stage show", "show"], ["amount produced"], ["production"]],
                    "zertifikat": [["cert"], ["certificate"]]})
    # "intensiveness" and "intensity" share the stem "intens"; the word's own cognate ("-ität" -> "-ity") wins.
    # "amount produced" is made of catalogue words, but "production" is spelt as "Produktion" (k read as c).
    lookup = Lookup(german, "de", Vocabulary(["intensity", "intensiveness", "amount", "produced", "show"]), set())
    assert lookup.english("Intensität der Produktion Zertifikat") == "intensity der production certificate"
    assert looks_like("produktion", "production") and looks_like("Zertifikat", "certificate")
    assert not looks_like("produktion", "products") and not looks_like("kohle", "coal")



class Participles(Words):
    """A second source that also reads past participles (as translation/apertium_words.ApertiumWords)."""

    def __init__(self, senses, participles, english):
        super().__init__(senses)
        self.participles, self.english, self.analysed = participles, english, []

    def analyse(self, words):
        self.analysed += list(words)

    def is_participle(self, word):
        return word in self.participles

    def participle(self, verb):
        return self.english.get(verb, "")


def test_a_past_participle_is_given_as_the_english_verbs_participle():
    more = Participles({}, {"vendus", "achetés"}, {"sell": "sold"})
    lookup = Lookup(Words({"vendre": [["sell"]], "produit": [["product"]], "acheter": [["buy"]]}), "fr",
                    Vocabulary(["products", "sold"]), {"des"}, more)
    lookup.prefetch(["Transformation des produits vendus"])
    assert "vendus" in more.analysed and "produits" in more.analysed  # every word, not only those it lacks
    assert lookup.english("produits vendus") == "product sold"
    assert lookup.english("achetés") == "buy"  # no participle known for the verb: as it was
