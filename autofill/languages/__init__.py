"""Languages in one place (issue 44): one module per language, each holding all autofill knows of it.

Every module of this package named after an ISO 639-1 code (`de.py`) defines `LANGUAGE = Language(...)`;
`REGISTRY` is all of them, read once at import. Adding a language is adding one file here: detection
(autofill/language.py), keyword stemming and stop words (store/bm25_index.py), instruction words
(search/query.py), the words of a closed form of answer and "not disclosed" (checks/form.py), the
questionnaire's header words (workbook/headers.py) and the English names of its financial terms
(search/terms.py) all read the registry, not tables of their own.

Pure data and a loader: no I/O beyond importing the modules, nothing heavy imported."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping


def _words(text: str | Iterable[str]) -> frozenset[str]:
    return frozenset(text.split() if isinstance(text, str) else text)


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1
    name: str  # English name ("German")
    # Place among the languages: where two languages count the same function words, the first wins
    # (detection ties), and a later language's form words override an earlier's where all are read.
    order: int = 100
    stemmer: str = ""  # PyStemmer algorithm; "" = none
    stopwords: str = ""  # name of the bm25s.stopwords list; "" = none
    # Detection: the commonest function words (short, so no language wins by a longer list), and for a
    # language its script names alone, the script's characters as a regex class; `script_rank` orders
    # the script checks (Japanese before Chinese: Japanese text has Chinese characters too).
    markers: frozenset[str] = frozenset()
    script: str = ""
    script_rank: int = 0
    # Words that instruct whoever answers, not words the evidence uses (search/query.py).
    instruction_words: frozenset[str] = frozenset()
    # Closed answer values as a form of answer writes them (lower case) -> what each means ("yes", "no",
    # "partially", "not disclosed", "n/a", ...), and the word for "or" in "Ja oder Nein" (checks/form.py).
    form_words: Mapping[str, str] = field(default_factory=dict)
    or_word: str = ""
    # A questionnaire's column names by role ("question", "answer", ...; workbook/headers.py).
    headers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Financial and GHG terms as this language writes them (lower case) -> the search/query.SYNONYMS key
    # (English) each names (search/terms.py).
    terms: Mapping[str, str] = field(default_factory=dict)
    # Sustainability-reporting terms as this language writes them (lower case; German: the start of a word
    # or a compound's part, inflection endings left to the match) -> their usual English wording, read
    # before the dictionary when a row is mapped to framework datapoints (frameworks/crosslingual.py).
    glossary: Mapping[str, str] = field(default_factory=dict)
    # Regular suffix correspondences of learned words with English, longest first: (this language's
    # ending, its English endings); a word the dictionary lacks is read as its English cognate when the
    # catalogue uses it ("méthodologie" -> "methodology"; frameworks/lemmas.py `cognates`).
    cognate_suffixes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # How a word's dictionary forms are found (frameworks/lemmas.py `forms`), stage by stage: ("each",
    # rules): each form so far followed by what its ending gives; ("after", rules): what all forms so far
    # give, after them. A rule (ending, replacement) applies to a word longer than its ending by 3 or more.
    inflections: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    # Letters a dictionary form may have without their marks, tried last ("ä" -> "a": umlaut plurals).
    letter_folds: tuple[tuple[str, str], ...] = ()
    # A negated aside as this language writes it (a regex, case ignored): what a row says it does not ask
    # for ("(nicht in Scope 1 oder 2 enthalten)"), left out before its words are read into English for the
    # datapoint mapping, as English rows' are (frameworks/contrast.py `without_negations`).
    negated: str = ""
    # Whether the language writes its nouns capitalised (German): such a word inside a sentence is a noun,
    # even where a stop word is spelt so ("Waren": goods, "waren": were; frameworks/lemmas.py).
    capitalised_nouns: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "markers", _words(self.markers))
        object.__setattr__(self, "instruction_words", _words(self.instruction_words))
        object.__setattr__(self, "form_words", MappingProxyType(dict(self.form_words)))
        object.__setattr__(self, "headers", MappingProxyType({r: tuple(w) for r, w in self.headers.items()}))
        object.__setattr__(self, "terms", MappingProxyType(dict(self.terms)))
        object.__setattr__(self, "glossary", MappingProxyType(dict(self.glossary)))


def load(package: str = __name__, paths: Iterable[str] | None = None) -> dict[str, Language]:
    """Every `LANGUAGE` of the modules of `package` (found on `paths`, default the package's own), by
    code, in their `order`. A module whose file name is not its language's code is a mistake: ValueError.
    Subpackages are not languages (glossaries/: each language's glossary, which its module imports)."""
    if paths is None:
        paths = importlib.import_module(package).__path__
    found: list[Language] = []
    for info in pkgutil.iter_modules(list(paths)):
        if info.name.startswith("_") or info.ispkg:
            continue
        lang = getattr(importlib.import_module(f"{package}.{info.name}"), "LANGUAGE", None)
        if not isinstance(lang, Language):
            continue
        if lang.code != info.name:
            raise ValueError(f"{package}.{info.name} defines language {lang.code!r}: name the file {lang.code}.py")
        found.append(lang)
    return {lang.code: lang for lang in sorted(found, key=lambda lang: (lang.order, lang.code))}


REGISTRY: dict[str, Language] = load()
ENGLISH = "en"


def get(code: str) -> Language | None:
    """The language of `code`, None for one autofill does not know (and for "")."""
    return REGISTRY.get(code)


def with_(attribute: str) -> dict[str, Language]:
    """The languages that have `attribute` (non-empty), in registry order."""
    return {code: lang for code, lang in REGISTRY.items() if getattr(lang, attribute)}
