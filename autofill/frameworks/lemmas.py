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
  that is the word's cognate ("activité": "activity", not "action"; its own cognate before another word of
  the same stem: "Intensität": "intensity", not "intensiveness"), else the first spelt nearly as the word
  (`looks_like`: "Produktion": "production", not "amount produced"), else the first whose English stem the
  catalogue uses ("bas": "low", not "stocking"), else the word's own cognate the catalogue uses, else
  the first;
- a word the dictionary has under none of its forms is read from a second source where one is given
  (`more`: Apertium's own dictionaries word by word, translation/apertium_words.py, for French; "cible" ->
  "target", "portefeuille" -> "wallet"), its translation chosen as a sense is; else
- it is read as a cognate (`cognates`: accents dropped
  and the regular French/German-English suffix correspondences, "-ité" -> "-ity", "-ique" -> "-ic",
  "-ie" -> "-y") when that English word is one the catalogue uses ("méthodologie" -> "methodology");
- a French verb's past participle (Apertium's analyser reads "vendus" as vendre<vblex><pp>: `more`) is given
  as the English verb's, by Apertium's English generator ("sold", not "sell": the catalogue's phrases say
  "use of sold products"); French same top-1 as English dev 98 -> 101 of 121, held-out 91 -> 94 of 110;
- a word's sense is chosen again by the words around it (`pieces`, frameworks/context.py): of its
  translations (the dictionary's, `more`'s, and those of `reverse`, the English dictionary read the other
  way: "acheter" -> purchase), the one that makes the catalogue's rule phrases with its neighbours ("Biens et
  services achetés" -> "good services purchased", not "well services bought"); a German stop word written
  capitalised inside a sentence is a noun ("Waren": goods, not "were") where its sense makes such phrases;
- the words are given back as phrases (`pieces`), so that a head-first language's noun phrases can be read
  in English order as well (crosslingual.py: "produits bas carbone" -> "low carbon products").

English stems are compared with the Snowball English stemmer (the one the BM25 index uses). Pure: the
dictionary (anything with `senses(word)` and `in`) and the catalogue's words are given."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any, Collection, Iterable

from autofill.frameworks.context import TOGETHER, around, in_context
from autofill.frameworks.loose import phrases
from autofill.languages import REGISTRY

_WORD = re.compile(r"[^\W_][\w\-]*", re.UNICODE)
MIN_PART = 3  # a German compound's parts are at least this long


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

    def __init__(self, words: Iterable[str], stopwords: Collection[str] = (), fragments: Iterable[str] = (),
                 phrases: Iterable[Iterable[str]] = ()) -> None:
        """`words`: whole words (their spelling is given back); `fragments`: pieces of rule patterns
        ("methodolog"), whose stems count but not their spelling; `phrases`: the rules' phrases, each as its
        words ("purchased goods services"), whose words go together (`together`)."""
        self.by_stem: dict[str, str] = {}  # stem -> a whole word of that stem ("" when only fragments have it)
        self.words: set[str] = set()
        self.pairs: set[frozenset[str]] = set()  # two stems one phrase holds
        for phrase in phrases:
            stems = sorted({stem(w) for w in phrase if w.isalpha() and w.lower() not in stopwords})
            self.pairs.update(frozenset((a, b)) for i, a in enumerate(stems) for b in stems[i + 1:])
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

    def together(self, english: str, others: Iterable[str]) -> int:
        """How many of the words `others` a phrase of the rules holds with a word of `english`."""
        own = {stem(w) for w in english.split() if w.isalpha()}
        return sum(any(frozenset((a, stem(o))) in self.pairs for a in own) for o in others if o.isalpha())


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

    rules = [re.findall(r"[a-z]+", phrase) for p in patterns for phrase in phrases(p)]
    return Vocabulary(words(prose), stop_words("en"), words(patterns), rules)


def forms(word: str, language: str) -> list[str]:
    """`word` (lower case) and the dictionary forms it may stand for, likeliest first."""
    out = [word]
    lang = REGISTRY.get(language)
    if lang is None:
        return out
    for mode, rules in lang.inflections:
        derived = [[w[:-len(end)] + base for end, base in rules if w.endswith(end) and len(w) > len(end) + 2]
                   for w in out]
        if mode == "each":
            out = [x for w, more in zip(out, derived) for x in (w, *more)]
        else:
            out = out + [x for more in derived for x in more]
    if lang.letter_folds:
        table = str.maketrans(dict(lang.letter_folds))
        out += [w.translate(table) for w in list(out) if w.translate(table) != w]
    return list(dict.fromkeys(out))


def _cognate_suffixes(language: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    lang = REGISTRY.get(language)
    return lang.cognate_suffixes if lang is not None else ()


def cognates(word: str, language: str) -> list[str]:
    """The English words `word` may be a cognate of, by its suffix (accents dropped)."""
    out = []
    for w in forms(word, language)[:4] if language == "fr" else forms(word, language):
        for end, english in _cognate_suffixes(language):
            if w.endswith(end) and len(w) - len(end) >= 3:
                out += [fold(w[:len(w) - len(end)] + e) for e in english]
    return list(dict.fromkeys(o for o in out if o))


LOOKS_LIKE = 0.85  # how alike a word and a translation are spelt to count as its cognate (difflib ratio)
_SPELLING = str.maketrans({"k": "c", "z": "c"})  # "Produktion" / "production", "Zertifikat" / "certificate"


def looks_like(word: str, english: str) -> bool:
    """Whether a one-word translation is spelt nearly as the word itself ("produktion": "production"),
    accents dropped and k, z read as c."""
    if " " in english or len(english) < 5:
        return False
    a, b = fold(word.lower()).translate(_SPELLING), fold(english.lower()).translate(_SPELLING)
    return a == b or SequenceMatcher(None, a, b).ratio() >= LOOKS_LIKE


class Lookup:
    """One language's words in English: `english(text)`. `dictionary`: a search.dictionaries.Dictionary (or
    anything with `in` and `senses`); `vocabulary`: the catalogue's words; `stopwords`: dropped; `more`: a
    second source of words (`in`, `senses`, `prefetch(words)`: translation/apertium_words.ApertiumWords)
    for the words the dictionary lacks under every form, and of a word's options (`_in_context`); `reverse`:
    the English-to-language dictionary read the other way (`senses`, `in`), more options."""

    # What it does beyond a plain look-up (the benchmark measures each by leaving it out).
    MECHANISMS = frozenset({"forms", "compounds", "senses", "cognates", "participles", "phrases"})
    # When `more` is read (benchmarks/frameworks_languages.py --words): "lacks" for a word the dictionary
    # lacks, before its cognate; "after" after its cognate; "senses" also for a word whose senses hold
    # neither its cognate nor a catalogue word; "" never.
    MORE = "lacks"

    def __init__(self, dictionary: Any, language: str, vocabulary: Vocabulary | None,
                 stopwords: Collection[str] = (), more: Any = None, reverse: Any = None) -> None:
        self.dictionary, self.language, self.stopwords = dictionary, language, frozenset(stopwords)
        self.reverse = reverse
        self.vocabulary = vocabulary or Vocabulary(())
        self.more = more if self.MORE else None
        self._words: dict[str, list[str]] = {}
        self._untouched: dict[str, list[str]] = {}  # word -> `_translated`, before `word` reads participles
        self._options: dict[str, list[str]] = {}  # word -> its translations, the chosen first (`_in_context`)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Has `more` look up at once the words of `texts` it may be asked for."""
        if self.more is None:
            return
        words = {w for text in texts for w in re.findall(r"[^\W\d_]+", text.lower()) if w not in self.stopwords}
        self.more.prefetch(sorted(w for w in words if self.MORE == "senses" or "phrases" in self.MECHANISMS
                                  or not self._known(w)))
        analyse = getattr(self.more, "analyse", None)
        if analyse is not None and "participles" in self.MECHANISMS:
            analyse(sorted(words))
            participles = getattr(self.more, "prefetch_participles", None)
            if participles is not None:  # their English verbs' participles (and their options'), all at once
                verbs = [verb for w in sorted(words) if self.more.is_participle(w) and len(self._plain(w)) == 1
                         for verb in self._options.get(w, self._plain(w))]
                participles(verbs)

    def english(self, text: str) -> str:
        return " ".join(words for words, _ in self.pieces(text)[0])

    def pieces(self, text: str, joins: bool = False) -> tuple[list[tuple[str, bool]], bool]:
        """`text`'s words in English, each with whether it continues the phrase before it (nothing but spaces
        between, no stop word: "produits bas carbone" is one phrase, "émissions de GES" two); a figure stays
        with the word before it ("scope 3"). `joins`: whether the text's start continues a phrase before it;
        returned with whether its end may be continued. Elided articles (l', d', qu') are stop words. A
        word's sense is chosen among its translations by the words around it (`_in_context`)."""
        parts: list[tuple[str, bool, bool]] = []  # (word or figure, continues the phrase before, a noun
        at = 0                                    # spelt as a stop word: `_noun`)
        for m in _WORD.finditer(text):
            joins = joins and not text[at:m.start()].strip()
            noun, at = self._noun(m.group(0), text[:m.start()]), m.end()
            token, word = m.group(0), m.group(0).lower()
            if word in self.stopwords and not noun:
                joins = False
                continue
            if any(c.isdigit() for c in word) and "-" not in word:
                split = [token]
            else:
                split = [word] if self._known(word) or "-" not in word else [p for p in word.split("-") if p]
            for part in split:
                if part in self.stopwords and not noun:
                    continue
                parts.append((part, joins, part in self.stopwords))
                joins = True
        english = [part if any(c.isdigit() for c in part) else " ".join(self.word(part) or [part])
                   for part, _, _ in parts]
        if "phrases" in self.MECHANISMS:
            english = self._in_context([part for part, _, _ in parts], english)
        out: list[tuple[str, bool]] = []
        dropped = False
        for i, ((part, continues, noun), words) in enumerate(zip(parts, english)):
            continues = continues and not dropped
            dropped = noun and self.vocabulary.together(words, around(english, i)) < TOGETHER
            if dropped:  # a stop word read as a noun only where its sense makes one of the catalogue's phrases
                continue
            if any(c.isdigit() for c in part) and continues and out:
                out[-1] = (f"{out[-1][0]} {words}", out[-1][1])
            else:
                out.append((words, continues))
        return out, joins and not text[at:].strip(" ") and not dropped

    def _noun(self, token: str, before: str) -> bool:
        """Whether a stop word is a noun here: written capitalised inside a sentence, in a language that
        capitalises its nouns (German "Eingekaufte Waren": goods, not "were")."""
        lang = REGISTRY.get(self.language)
        if "phrases" not in self.MECHANISMS or lang is None or not lang.capitalised_nouns:
            return False
        return token[:1].isupper() and not token.isupper() and bool(before.strip()) and \
            before.rstrip()[-1] not in ".!?:;" and any(c.isalpha() for c in before)

    def _in_context(self, parts: list[str], english: list[str]) -> list[str]:
        """Each word's translation re-chosen among its options by the words around it (context.in_context);
        a past participle's as the English participle of the verb chosen."""
        options = [self._options[part] if part in self._options and self._plain(part)[:1] == self._options[part][:1]
                   else [] for part in parts]

        def form(i: int, option: str) -> str:
            participle = self.word(parts[i]) != self._plain(parts[i])
            return self.more.participle(option) if participle else option

        return in_context(english, options, self.vocabulary, form)

    def word(self, word: str) -> list[str]:
        """`word` in English: one translation (a compound's: one per part); [] when nothing serves. A verb's
        past participle ("vendus": `more.is_participle`) is given as the English verb's ("sold", not "sell":
        `more.participle`), as the catalogue's phrases write it ("use of sold products")."""
        if word not in self._words:
            found = self._plain(word)
            if (len(found) == 1 and "participles" in self.MECHANISMS and self.more is not None
                    and hasattr(self.more, "is_participle") and self.more.is_participle(word)):
                found = [self.more.participle(found[0]) or found[0]]
            self._words[word] = found
        return self._words[word]

    def _plain(self, word: str) -> list[str]:
        """`word`'s translation as the dictionaries give it (`word` then makes a participle of it)."""
        if word not in self._untouched:
            self._untouched[word] = self._translated(word)
        return self._untouched[word]

    def _forms(self, word: str) -> list[str]:
        return forms(word, self.language) if "forms" in self.MECHANISMS else [word]

    def _known(self, word: str) -> bool:
        return any(f in self.dictionary for f in self._forms(word))

    def _translated(self, word: str) -> list[str]:
        for form in self._forms(word):
            if form in self.dictionary:
                chosen = self._sense(word, form)
                if chosen and self.more is not None and self.MORE == "senses" and not self._fits(word, chosen):
                    chosen = self._more(word, fitting=True) or chosen
                if chosen:
                    return [chosen]
        if self.more is not None and self.MORE == "lacks":
            found = self._more(word)
            if found:
                return [found]
        if self.language != "fr" and "compounds" in self.MECHANISMS:  # French does not close compounds
            for link in ("s", "es", "n", "en") if self.language == "de" else ():  # the rest of "(emission)sintensität"
                if word.startswith(link) and len(word) - len(link) >= MIN_PART and self._known(word[len(link):]):
                    return self.word(word[len(link):])
            parts = self._compound(word)
            if parts:
                return [w for p in parts for w in self.word(p)]
        found = self._cognate(word) or (self._more(word) if self.more is not None and self.MORE != "lacks" else "")
        return [found] if found else []

    def _fits(self, word: str, english: str) -> bool:
        """Whether a chosen translation is the word's cognate or a catalogue word."""
        return english in self.vocabulary or stem(english) in {stem(c) for c in cognates(word, self.language)}

    def _more(self, word: str, fitting: bool = False) -> str:
        """`word` in `more`: its translation chosen as a dictionary sense is (`_chosen`); "" when it has
        none (`fitting`: none that is the word's cognate or a catalogue word)."""
        if word not in self.more:
            return ""
        candidates = [t for sense in self.more.senses(word) for t in sense]
        chosen = self._chosen(word, candidates)
        self._keep_options(word, chosen, candidates)
        return chosen if chosen and (not fitting or self._fits(word, chosen)) else ""

    def _cognate(self, word: str) -> str:
        """The first English cognate of `word` the catalogue uses, "" when none."""
        if "cognates" not in self.MECHANISMS:
            return ""
        found = next((e for e in cognates(word, self.language) if e in self.vocabulary), "")
        return self.vocabulary.spelling(found) if found else ""

    def _sense(self, word: str, form: str) -> str:
        """Of the form's translations, the first that is a cognate of the word ("activité": "activity", not
        "action"), else the first the catalogue uses, else the word's own cognate the catalogue uses
        ("service", whose translations are "favor", "favour"), else the first. Its translations and `more`'s
        are the word's options (`_in_context`)."""
        candidates = [t for sense in self.dictionary.senses(form) for t in sense]
        chosen = self._chosen(word, candidates)
        more = self.more.senses(word) if self.more is not None and "phrases" in self.MECHANISMS else []
        self._keep_options(word, chosen, [*candidates, *(t for sense in more for t in sense)])
        return chosen

    def _keep_options(self, word: str, chosen: str, candidates: list[str]) -> None:
        """The word's options (`_in_context`): the translation chosen, the others, and the English words the
        English-to-language dictionary gives the word (or its first dictionary form it has) as a translation
        of (`reverse`: "acheter" -> buy, acquire, purchase)."""
        if word in self._options or not chosen or "phrases" not in self.MECHANISMS:
            return
        reverse = next((self.reverse.senses(f) for f in self._forms(word) if f in self.reverse), []) \
            if self.reverse is not None else []
        self._options[word] = list(dict.fromkeys([chosen, *candidates, *(t for sense in reverse for t in sense)]))

    def _chosen(self, word: str, candidates: list[str]) -> str:
        if "senses" in self.MECHANISMS:
            own = cognates(word, self.language)
            alike = {stem(c) for c in own}
            for chosen in (next((t for t in candidates if t in own), "")
                           or next((t for t in candidates if stem(t) in alike), "")
                           or next((t for t in candidates if looks_like(word, t)), ""),
                           next((t for t in candidates if t in self.vocabulary), ""), self._cognate(word)):
                if chosen:
                    return chosen
        return candidates[0] if candidates else ""

    def compound(self, word: str) -> list[str] | None:
        return self._compound(word) if "compounds" in self.MECHANISMS and self.language != "fr" else None

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
