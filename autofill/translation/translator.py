"""A question searched in its documents' language as well (issue 33): its words translated one by one
with a bilingual dictionary (translation/dictionaries.py, opened through dictionary_cache.py), each
word's translation the one the multilingual model finds nearest to the whole question, and the result
searched beside the question (search/retrieval.retrieve's `translation`): dense, and by BM25 in place of
the question's own words, which English documents do not hold (the translation keeps its names and
figures).

Where Apertium has a route into English (translation/apertium.py: Spanish, and French through Spanish and
through Catalan, from Debian's apertium-eng-spa, apertium-fr-es, apertium-fra-cat and apertium-eng-cat),
the row is machine-translated whole instead: its morphology and word order are read, not looked up word
by word (BHP expert Spanish recall@6 0.658 -> 0.753). A questionnaire's rows are translated side by side
(`for_rows`: a process each, as many at once as there are cores). The dictionary serves the languages
Apertium has no route for (German) and any row it fails on.

Where it applies, as measured (README, "Other languages"): a row searched with the store's multilingual
index (store/multilingual.py) whose documents are all English and whose language has a dictionary into
English. Into other languages it lost: German compounds and inflections do not meet dictionary forms, and
the English-French dictionary is small. No dictionary: the row is searched as before, and the run says how
to install one.

Apertium's translations are kept in the workspace (`vectordb/.query-cache/translations.sqlite`, beside
the query vectors, `embedding.query_cache`): a review's re-answer of one row, which translates its whole
questionnaire to centre it, and a re-run do not translate again (a French row costs about 0.5 s). `forget`
removes the file with the other shared caches.

`translate_query` is pure (the dictionary, stop words and similarity are given); `QueryTranslator` is
what a run holds."""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

from autofill.translation.apertium import Route, describe
from autofill.translation.apertium import routes as apertium_routes
from autofill.translation.apertium import translate as apertium_translate
from autofill.translation.dictionaries import Dictionary, find, package
from autofill.translation.dictionary_cache import open_dictionary
from autofill.language import ENGLISH, LANGUAGES
from autofill.records import QuestionRow, build_query
from autofill.store.bm25_index import stop_words
from autofill.store import derived

log = logging.getLogger(__name__)
_WORD = re.compile(r"[^\W_][\w\-]*", re.UNICODE)
# Candidate translations read per sense (its first ones are its commonest).
PER_SENSE = 2
CACHE_VERSION = 2  # bump when the key or what a route gives changes


def cache_path(vectordb: Path) -> Path:
    """Where a workspace keeps Apertium's translations (next to the query vectors)."""

    return derived.translations(vectordb)


def cache_key(data: str, found: Sequence[Route], language: str, text: str) -> str:
    material = "\x00".join((str(CACHE_VERSION), data, describe(found), language, text))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def split_compound(dictionary: Dictionary, word: str) -> list[str] | None:
    """A closed compound as (modifier, head), both in the dictionary, the longest head first; a linking
    "s" or "n" of the modifier may go ("klimarisiken" -> klima + risiken)."""
    for i in range(3, len(word) - 3):
        modifier, head = word[:i], word[i:]
        if head not in dictionary:
            continue
        for m in (modifier, modifier[:-1] if modifier[-1] in "sn" else ""):
            if m and m in dictionary:
                return [m, head]
    return None


def _candidates(dictionary: Dictionary, word: str) -> list[str]:
    out: list[str] = []
    for sense in dictionary.senses(word):
        out += [t for t in sense[:PER_SENSE] if t not in out]
    return out


def translate_query(text: str, dictionary: Dictionary, stopwords: Collection[str],
                    similarity: Callable[[str], float], per_word: int = 1) -> str:
    """`text` word by word into the dictionary's target language: stop words dropped, figures kept, a
    word the dictionary lacks split at hyphens or into a compound's parts, still unknown parts kept as
    they are (names, acronyms); of a word's candidate translations the `per_word` most `similar` to the
    whole text (`similarity(candidate)`), in the dictionary's order."""
    out: list[str] = []
    for token in _WORD.findall(text):
        word = token.lower()
        if word in stopwords:
            continue
        if any(c.isdigit() for c in word) and "-" not in word:
            out.append(token)
            continue
        if word in dictionary:
            parts = [word]
        else:
            parts = [p for p in word.split("-") if p] if "-" in word else (split_compound(dictionary, word) or [word])
        for part in parts:
            if part.isdigit():
                out.append(part)
            elif part not in stopwords:
                out += _chosen(_candidates(dictionary, part) or [part], similarity, per_word)
    return " ".join(out)


def _chosen(group: list[str], similarity: Callable[[str], float], per_word: int) -> list[str]:
    """The `per_word` candidates most similar to the whole text, in the dictionary's order."""
    if len(group) <= per_word:
        return group
    scores = [similarity(c) for c in group]
    return [group[i] for i in sorted(sorted(range(len(group)), key=lambda i: -scores[i])[:per_word])]


class QueryTranslator:
    """A run's query translation: `for_rows(rows)` (`for_row(row)`) -> each row's text in its documents'
    language, or "".
    `embedder`: the multilingual index's (its query vectors choose among a word's translations; None: a
    word's first translation);
    `apertium`: Apertium's data folder ("" not used); `cache`: a sqlite_cache.BlobCache for Apertium's
    translations (None: kept for the run only); `words`: Apertium's data folder for single words the
    dictionary lacks (`words_for`: translation/apertium_words.py; "" none)."""

    def __init__(self, folder: str, embedder: Any, document_languages: Sequence[str], apertium: str = "",
                 cache: Any = None, words: str = "") -> None:
        self.folder, self.embedder, self.apertium, self.cache, self.words = folder, embedder, apertium, cache, words
        self._words: dict[str, Any] = {}
        self.target = target_language(document_languages)
        self._guard = threading.Lock()
        self._done: dict[tuple[str, str], str] = {}
        self._dictionaries: dict[str, Dictionary | None] = {}  # looked for once per language
        self._reverse: dict[str, Dictionary | None] = {}
        self._routes: dict[str, tuple[Route, ...]] = {}

    def routes_for(self, language: str) -> tuple[Route, ...]:
        """Apertium's routes into the target language, looked for once per language."""
        if not self.apertium or not self.target or not language or language == self.target:
            return ()
        with self._guard:
            if language not in self._routes:
                self._routes[language] = apertium_routes(self.apertium, language, self.target)
            return self._routes[language]

    def dictionary_for(self, language: str) -> Dictionary | None:
        if not self.target or not language or language == self.target:
            return None
        with self._guard:
            return self._dictionary_unlocked(language)

    def reverse_for(self, language: str) -> Dictionary | None:
        """The target -> `language` dictionary read the other way (dictionaries.read_reverse: FreeDict's
        English-French for French), None where there is none or it is too large to read whole in a moment
        (dictionary_cache.COMPACT_FROM); read once per language."""
        if not self.target or not language or language == self.target:
            return None
        with self._guard:
            if language not in self._reverse:
                from autofill.translation.dictionaries import read_reverse, text_of
                from autofill.translation.dictionary_cache import COMPACT_FROM

                index = find(self.folder, self.target, language)
                small = index is not None and text_of(index).stat().st_size < COMPACT_FROM
                self._reverse[language] = Dictionary(index, read_reverse(index)) if small else None
            return self._reverse[language]

    def words_for(self, language: str) -> Any:
        """Apertium's single words of `language` in the target language (apertium_words.ApertiumWords), None
        where `words` is not set or Apertium has no route for it; looked for once per language."""
        if not self.words or not self.target or not language or language == self.target:
            return None
        with self._guard:
            if language not in self._words:
                from autofill.translation.apertium_words import words_of

                found = words_of(self.words, language, self.target)
                self._words[language] = found if found else None
            return self._words[language]

    def _dictionary_unlocked(self, language: str) -> Dictionary | None:
        if language not in self._dictionaries:
            index = find(self.folder, language, self.target)
            self._dictionaries[language] = open_dictionary(index) if index is not None else None
        return self._dictionaries[language]

    def for_row(self, row: QuestionRow) -> str:
        return self.for_rows([row])[0]

    def for_rows(self, rows: Sequence[QuestionRow]) -> list[str]:
        """Each row's text in the target language ("" where neither Apertium nor a dictionary serves its
        language); the texts not yet translated go through Apertium side by side, language by language."""

        return self.for_texts([(row.language, build_query(row)) for row in rows])

    def for_texts(self, keys: Sequence[tuple[str, str]]) -> list[str]:
        """Each (language, text) in the target language, as `for_rows` translates a row's text (the datapoint
        mapping's question: frameworks/crosslingual.py)."""
        keys = list(keys)
        todo: dict[str, list[str]] = {}
        for language, text in dict.fromkeys(keys):
            if (self.routes_for(language) or self.dictionary_for(language) is not None) and \
                    (language, text) not in self._done:
                todo.setdefault(language, []).append(text)
        with self._guard:
            for language, texts in todo.items():  # Apertium first; the dictionary where it fails
                found = self._routes.get(language, ())
                machine = self._cached_machine(texts, found, language) if found else ["" for _ in texts]
                for text, translated in zip(texts, machine):
                    self._done[(language, text)] = translated or self._by_dictionary(text, language)
            return [self._done.get(key, "") for key in keys]

    def _by_dictionary(self, text: str, language: str) -> str:
        dictionary = self._dictionary_unlocked(language)
        if dictionary is None:
            return ""
        return translate_query(text, dictionary, stop_words(language), self._similarity(text))

    def _cached_machine(self, texts: list[str], found: Sequence[Route], language: str) -> list[str]:
        """`_machine`'s translations, those in the cache read from it and the new ones written to it."""
        if self.cache is None:
            return self._machine(texts, found)
        keys = [cache_key(self.apertium, found, language, text) for text in texts]
        known = {k: v.decode("utf-8") for k, v in self.cache.get_blobs(keys).items()}
        missing = [(key, text) for key, text in zip(keys, texts) if key not in known]
        if missing:
            new = dict(zip([key for key, _ in missing], self._machine([text for _, text in missing], found)))
            self.cache.put_blobs({k: v.encode("utf-8") for k, v in new.items() if v})  # not a failure's ""
            known.update(new)
        return [known[key] for key in keys]

    def _machine(self, texts: list[str], found: Sequence[Route]) -> list[str]:
        """Apertium's translations, or "" for a text it fails on (the dictionary then serves that row)."""
        import subprocess

        try:
            return apertium_translate(texts, found, self.apertium)
        except (OSError, subprocess.SubprocessError) as exc:
            if len(texts) > 1:  # one text's failure fails them all: each again, so only that one falls back
                return [self._machine([text], found)[0] for text in texts]
            log.warning("Apertium (%s) failed on a row (%s); its words are looked up in the dictionary",
                        describe(found), exc)
            return [""]

    def _similarity(self, text: str) -> Callable[[str], float]:
        if self.embedder is None:  # no multilingual model: each word's first sense, in the dictionary's order
            return lambda candidate: 0.0
        import numpy as np

        whole = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        return lambda candidate: float(whole @ np.asarray(self.embedder.embed_query(candidate), dtype=np.float32))

    def note(self, language: str) -> str:
        return translation_note(self.folder, language, self.target, self.apertium)


def translation_note(folder: str, language: str, target: str, apertium: str = "") -> str:
    """What run and inspect say for a questionnaire in `language` against documents in `target` (the
    translator's): that its rows are searched in the documents' language too (by Apertium from the data in
    `apertium`, else a dictionary in `folder`), or which package would make them so; "" where it does not
    apply."""
    if not target or not language or language == target or language not in LANGUAGES:
        return ""
    found = apertium_routes(apertium, language, target) if apertium else ()
    if found:
        return (f"{LANGUAGES[language].name} questions are searched in {LANGUAGES[target].name} words too "
                f"(Apertium {describe(found)})")
    names = f"{LANGUAGES[language].name}-{LANGUAGES[target].name}"
    if find(folder, language, target) is not None:
        return (f"{LANGUAGES[language].name} questions are searched in "
                f"{LANGUAGES[target].name} words too ({names} dictionary in {folder})")
    if package(language, target):
        return (f"no {names} dictionary in {folder}: install the Debian package "
                f"{package(language, target)} (bash scripts/install_dictionaries.sh) to search "
                f"{LANGUAGES[language].name} questions in {LANGUAGES[target].name} words too")
    return ""


def target_language(document_languages: Sequence[str]) -> str:
    """The language questions are translated into: English, when every document is English (or of
    unknown language, read as English everywhere else too); "" otherwise."""
    languages = {code or ENGLISH for code in document_languages} or {ENGLISH}
    return ENGLISH if languages == {ENGLISH} else ""
