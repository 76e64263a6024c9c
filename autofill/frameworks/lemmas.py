"""A German or French row's words in English for the datapoint mapping (issue 46), looked up in the
bilingual dictionary the search's translator reads, by means that hold for any wording rather than a
glossary of phrasings:

- a word is looked up as written and then as its dictionary forms (`forms`: French plural and feminine
  endings, past participles and present tenses to the infinitive, "-aux" to "-al"; German inflection
  endings and umlaut plurals), the first form the dictionary has wins;
- a closed compound the dictionary lacks (German, and the other languages but French, as the search's
  translator splits them) is split into a modifier and a head it has, each with
  its endings and linking letters ("Kohleumsätze" -> kohle + umsatz), recursively; the rest of a compound
  whose first part the glossary read loses its linking letters ("(Emissions)sziel" -> ziel);
- of a word's translations (its senses are in the dictionary's order, not the reporting one) the first
  that is the word's cognate ("activité": "activity", not "action"), else the first whose English stem the
  catalogue uses ("bas": "low", not "stocking"), else the word's own cognate the catalogue uses, else
  the first;
- a word the dictionary has under none of its forms is read as a cognate (`cognates`: accents dropped
  and the regular French/German-English suffix correspondences, "-ité" -> "-ity", "-ique" -> "-ic",
  "-ie" -> "-y") when that English word is one the catalogue uses ("méthodologie" -> "methodology");
- the words are given back as phrases (`pieces`), so that a head-first language's noun phrases can be read
  in English order as well (crosslingual.py: "produits bas carbone" -> "low carbon products").

English stems are compared with the Snowball English stemmer (the one the BM25 index uses). Pure: the
dictionary (anything with `senses(word)` and `in`) and the catalogue's words are given."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Collection, Iterable

_WORD = re.compile(r"[^\W_][\w\-]*", re.UNICODE)
_GERMAN_ENDINGS = ("ern", "en", "er", "es", "em", "ns", "e", "n", "s")
_UMLAUT = str.maketrans({"ä": "a", "ö": "o", "ü": "u"})
MIN_PART = 3  # a German compound's parts are at least this long
# Regular suffix correspondences of learned words, longest first: (French or German ending, English endings).
_COGNATE_SUFFIXES = {
    "fr": (("ification", ("ification",)), ("issement", ("ment",)), ("isation", ("isation", "ization")), ("ité", ("ity",)),
           ("ique", ("ic", "ical", "ics")), ("isme", ("ism",)), ("iste", ("ist",)), ("aire", ("ary", "ar")),
           ("oire", ("ory",)), ("eur", ("or", "er")), ("eux", ("ous",)), ("euse", ("ous",)), ("if", ("ive",)),
           ("ive", ("ive",)), ("elle", ("al",)), ("el", ("al",)), ("logie", ("logy",)), ("gie", ("gy",)),
           ("ie", ("y",)), ("ée", ("ed", "ee")), ("é", ("ed", "e", "")), ("iser", ("ise", "ize")),
           ("ifier", ("ify",)), ("er", ("e", "")), ("e", ("", "e")), ("", ("",))),
    "de": (("ität", ("ity",)), ("isierung", ("isation", "ization")), ("ierung", ("ation",)),
           ("ation", ("ation",)), ("ion", ("ion",)), ("isch", ("ic", "ical")), ("ismus", ("ism",)),
           ("ist", ("ist",)), ("ie", ("y",)), ("ieren", ("ise", "ize", "ate")), ("iv", ("ive",)),
           ("ell", ("al",)), ("al", ("al",)), ("", ("",))),
}


def fold(text: str) -> str:
    """Accents dropped (ä -> a, é -> e)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _english_stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    return _english_stemmer().stemWord(word.lower())


class Vocabulary:
    """The English words a catalogue uses (its labels, descriptions and rule patterns), by English stem."""

    def __init__(self, words: Iterable[str], stopwords: Collection[str] = (), fragments: Iterable[str] = ()) -> None:
        """`words`: whole words (their spelling is given back); `fragments`: pieces of rule patterns
        ("methodolog"), whose stems count but not their spelling."""
        self.by_stem: dict[str, str] = {}  # stem -> a whole word of that stem ("" when only fragments have it)
        self.words: set[str] = set()
        for kind, source in ((True, words), (False, fragments)):
            for word in source:
                word = word.lower()
                if len(word) >= 3 and word.isalpha() and word not in stopwords:
                    self.words.add(word)
                    key = stem(word)
                    if kind or key not in self.by_stem:
                        self.by_stem[key] = self.by_stem.get(key) or (word if kind else "")

    def spelling(self, english: str) -> str:
        """`english` where the catalogue writes it so, else its spelling of a word of the same stem
        ("acquired" for "acquir"), else `english`."""
        return english if english in self.words else self.by_stem.get(stem(english)) or english

    def __contains__(self, word: str) -> bool:
        return all(stem(w) in self.by_stem for w in word.lower().split() if w.isalpha()) and any(
            w.isalpha() for w in word.split())



def catalogue_words(catalogue: Any) -> Vocabulary:
    """The vocabulary of a frameworks.catalogue.Catalogue (pattern sources read as their letter runs)."""
    from autofill.store.bm25_index import stop_words

    prose: list[str] = [r.description for r in catalogue.requirements.values()]
    patterns: list[str] = []
    for concept in catalogue.concepts.values():
        prose += [concept.label, concept.description, *(label for _, label in concept.labels)]
        patterns += [p.pattern for p in (*concept.cues, *concept.needs, *concept.within)]

    def words(texts: list[str]) -> list[str]:
        return [w for text in texts for w in re.findall(r"[a-z]+", text.lower())]

    return Vocabulary(words(prose), stop_words("en"), words(patterns))


def forms(word: str, language: str) -> list[str]:
    """`word` (lower case) and the dictionary forms it may stand for, likeliest first."""
    out = [word]
    if language == "fr":
        singular = [word]
        if word.endswith("aux"):
            singular += [word[:-3] + "al", word[:-3] + "ail"]
        if word.endswith(("s", "x")) and len(word) > 3:
            singular.append(word[:-1])
        for w in singular:
            out.append(w)
            for end, base in (("ive", "if"), ("euse", "eux"), ("elle", "el"), ("enne", "en"), ("ère", "er"),
                              ("ète", "et"), ("ée", "é"), ("e", "")):
                if w.endswith(end) and len(w) > len(end) + 2:
                    out.append(w[:-len(end)] + base)
        for w in list(out):  # verbs: participles and present tenses to the infinitive
            for end, base in (("é", "er"), ("i", "ir"), ("u", "re"), ("ent", "er"), ("e", "er"), ("ons", "er"),
                              ("ez", "er"), ("ait", "er"), ("aient", "er"), ("issent", "ir"), ("it", "ir")):
                if w.endswith(end) and len(w) > len(end) + 2:
                    out.append(w[:-len(end)] + base)
    elif language == "de":
        for end in _GERMAN_ENDINGS:
            if word.endswith(end) and len(word) > len(end) + 2:
                out.append(word[:-len(end)])
        out += [w.translate(_UMLAUT) for w in list(out) if w.translate(_UMLAUT) != w]
    return list(dict.fromkeys(out))


def cognates(word: str, language: str) -> list[str]:
    """The English words `word` may be a cognate of, by its suffix (accents dropped)."""
    out = []
    for w in forms(word, language)[:4] if language == "fr" else forms(word, language):
        for end, english in _COGNATE_SUFFIXES.get(language, ()):
            if w.endswith(end) and len(w) - len(end) >= 3:
                out += [fold(w[:len(w) - len(end)] + e) for e in english]
    return list(dict.fromkeys(o for o in out if o))


class Lookup:
    """One language's words in English: `english(text)`. `dictionary`: a search.dictionaries.Dictionary (or
    anything with `in` and `senses`); `vocabulary`: the catalogue's words; `stopwords`: dropped."""

    # What it does beyond a plain look-up (the benchmark measures each by leaving it out).
    MECHANISMS = frozenset({"forms", "compounds", "senses", "cognates"})

    def __init__(self, dictionary: Any, language: str, vocabulary: Vocabulary | None,
                 stopwords: Collection[str] = ()) -> None:
        self.dictionary, self.language, self.stopwords = dictionary, language, frozenset(stopwords)
        self.vocabulary = vocabulary or Vocabulary(())
        self._words: dict[str, list[str]] = {}

    def english(self, text: str) -> str:
        return " ".join(words for words, _ in self.pieces(text)[0])

    def pieces(self, text: str, joins: bool = False) -> tuple[list[tuple[str, bool]], bool]:
        """`text`'s words in English, each with whether it continues the phrase before it (nothing but spaces
        between, no stop word: "produits bas carbone" is one phrase, "émissions de GES" two); a figure stays
        with the word before it ("scope 3"). `joins`: whether the text's start continues a phrase before it;
        returned with whether its end may be continued. Elided articles (l', d', qu') are stop words."""
        out: list[tuple[str, bool]] = []
        at = 0
        for m in _WORD.finditer(text):
            joins = joins and not text[at:m.start()].strip()
            at = m.end()
            token, word = m.group(0), m.group(0).lower()
            if word in self.stopwords:
                joins = False
                continue
            if any(c.isdigit() for c in word) and "-" not in word:
                parts = [token]
            else:
                parts = [word] if self._known(word) or "-" not in word else [p for p in word.split("-") if p]
            for part in parts:
                if part in self.stopwords:
                    continue
                english = part if any(c.isdigit() for c in part) else " ".join(self.word(part) or [part])
                if any(c.isdigit() for c in part) and joins and out:
                    out[-1] = (f"{out[-1][0]} {english}", out[-1][1])
                else:
                    out.append((english, joins))
                joins = True
        return out, joins and not text[at:].strip(" ")

    def word(self, word: str) -> list[str]:
        """`word` in English: one translation (a compound's: one per part); [] when nothing serves."""
        if word not in self._words:
            self._words[word] = self._translated(word)
        return self._words[word]

    def _forms(self, word: str) -> list[str]:
        return forms(word, self.language) if "forms" in self.MECHANISMS else [word]

    def _known(self, word: str) -> bool:
        return any(f in self.dictionary for f in self._forms(word))

    def _translated(self, word: str) -> list[str]:
        for form in self._forms(word):
            if form in self.dictionary:
                chosen = self._sense(word, form)
                if chosen:
                    return [chosen]
        if self.language != "fr" and "compounds" in self.MECHANISMS:  # French does not close compounds
            for link in ("s", "es", "n", "en") if self.language == "de" else ():  # the rest of "(emission)sintensität"
                if word.startswith(link) and len(word) - len(link) >= MIN_PART and self._known(word[len(link):]):
                    return self.word(word[len(link):])
            parts = self._compound(word)
            if parts:
                return [w for p in parts for w in self.word(p)]
        found = self._cognate(word)
        return [found] if found else []

    def _cognate(self, word: str) -> str:
        """The first English cognate of `word` the catalogue uses, "" when none."""
        if "cognates" not in self.MECHANISMS:
            return ""
        found = next((e for e in cognates(word, self.language) if e in self.vocabulary), "")
        return self.vocabulary.spelling(found) if found else ""

    def _sense(self, word: str, form: str) -> str:
        """Of the form's translations, the first that is a cognate of the word ("activité": "activity", not
        "action"), else the first the catalogue uses, else the word's own cognate the catalogue uses
        ("service", whose translations are "favor", "favour"), else the first."""
        candidates = [t for sense in self.dictionary.senses(form) for t in sense]
        if "senses" in self.MECHANISMS:
            alike = {stem(c) for c in cognates(word, self.language)}
            for chosen in (next((t for t in candidates if stem(t) in alike), ""),
                           next((t for t in candidates if t in self.vocabulary), ""), self._cognate(word)):
                if chosen:
                    return chosen
        return candidates[0] if candidates else ""

    def _compound(self, word: str, depth: int = 0) -> list[str] | None:
        """A German compound as parts the dictionary has (the longest head first), the modifier split again."""
        if depth > 2 or len(word) < 2 * MIN_PART:
            return None
        for i in range(MIN_PART, len(word) - MIN_PART + 1):
            modifier, head = word[:i], word[i:]
            if not self._known(head):
                continue
            for m in (modifier, modifier[:-1] if modifier[-1] in "sn" else "",
                      modifier[:-2] if modifier.endswith(("es", "en")) else ""):
                if len(m) < MIN_PART:
                    continue
                if self._known(m):
                    return [m, head]
                inner = self._compound(m, depth + 1)
                if inner:
                    return [*inner, head]
        return None
