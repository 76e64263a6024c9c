"""autofill/frameworks/lemmas.py's second source of words (issue 46): a word the dictionary lacks under every
form is read from `more` (Apertium's single words, translation/apertium_words.py), its translation chosen as
a dictionary sense is; a word the dictionary has is never read from it (its senses there are only options
of the sense chosen by the words around it). Pure: the dictionary and the second
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
    # every word at once: those the dictionary lacks to be read, the others for their options (`_in_context`)
    assert sorted(more.prefetched) == ["bas", "cible", "description", "liée", "politique"]
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


# The catalogue's rule phrases, as lemmas.catalogue_words reads them from its patterns.
PHRASES = [["purchased", "goods", "and", "services"], ["use", "of", "sold", "products"],
           ["short", "medium", "long", "term"]]


def test_two_words_one_rule_phrase_holds_go_together():
    vocabulary = Vocabulary(["goods", "services", "purchased"], {"and", "of"}, (), PHRASES)
    assert vocabulary.together("good", ["services", "purchase", "well"]) == 2  # by stem: "goods", "purchased"
    assert vocabulary.together("well", ["services", "purchase"]) == 0
    assert vocabulary.together("and", ["services"]) == 0  # stop words make no pair


def test_a_words_sense_is_chosen_by_the_rule_phrases_it_makes_with_its_neighbours():
    # FreeDict's "bien" is "well" first and has no "goods"; Apertium's "biens" has "good"; FreeDict lacks
    # "acheter", Apertium gives "buy" and the English-French dictionary read the other way "purchase" too.
    more = Participles({"biens": [["sake", "good"]], "achetés": [["buy"]]}, {"achetés"},
                       {"buy": "bought", "purchase": "purchased"})
    reverse = Words({"acheter": [["acquire", "buy", "purchase"]]})
    vocabulary = Vocabulary(["goods", "services", "purchased", "well"], {"and", "of"}, (), PHRASES)
    lookup = Lookup(Words({"bien": [["okay", "well"], ["estate", "farm"]], "service": [["services"]]}), "fr",
                    vocabulary, {"et"}, more, reverse)
    lookup.prefetch(["Biens et services achetés"])
    assert "biens" in more.prefetched  # a word the dictionary has is asked too: its options
    assert lookup.english("Biens et services achetés") == "good services purchased"
    assert lookup.english("biens") == "well"  # alone, nothing chooses otherwise
    assert lookup.english("services achetés") == "services bought"  # one neighbour is too weak a sign


def test_a_capitalised_german_stop_word_inside_a_sentence_is_a_noun_where_its_sense_makes_a_rule_phrase():
    german = Words({"eingekaufte": [["purchased"]], "dienstleistungen": [["services"]],
                    "waren": [["items"], ["products"], ["goods"], ["ware"]], "sie": [["you"]]})
    vocabulary = Vocabulary(["goods", "services", "purchased", "products", "sold"], {"and", "of"}, (), PHRASES)
    lookup = Lookup(german, "de", vocabulary, {"waren", "und", "sie", "da"})
    # "ware", the word's own cognate, is not what the catalogue says; "products" makes one phrase, "goods" two
    assert lookup.english("1. Eingekaufte Waren und Dienstleistungen") == "1 purchased goods services"
    assert lookup.english("Waren Sie da?") == ""  # a sentence's first word, and "Sie" makes no phrase
    assert lookup.english("Eingekaufte waren") == "purchased"  # not capitalised: the verb, a stop word


def test_without_the_phrases_mechanism_the_first_choice_stays(monkeypatch):
    monkeypatch.setattr(Lookup, "MECHANISMS", Lookup.MECHANISMS - {"phrases"})
    german = Words({"eingekaufte": [["purchased"]], "dienstleistungen": [["services"]],
                    "waren": [["items"], ["goods"]]})
    lookup = Lookup(german, "de", Vocabulary(["goods"], (), (), PHRASES), {"waren", "und"})
    assert lookup.english("Eingekaufte Waren und Dienstleistungen") == "purchased services"
