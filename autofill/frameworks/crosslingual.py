"""Rows in other languages mapped to datapoints as their English versions are (issue 46): the catalogue's
rules read English, so a German or French row is mapped through its English words: its language's glossary
terms, and the rest read from the bilingual dictionary the search's translator holds
(search/translation.QueryTranslator) by frameworks/lemmas.py (word forms, compounds, the catalogue's senses,
cognates; the words the dictionary lacks from Apertium's own dictionaries, word by word, where Apertium reads
the language: translation/apertium_words.py, `words_for`), with the original's own mapping joined in (quoted
codes, "Scope 1", acronyms and names read the same in any language): per concept the stronger of the two. A head-first language's phrases are read in
English order too ("produits bas carbone" -> "low carbon products"), and that reading joined as well.

A row the rules then leave with no datapoint at all whose language Apertium reads is joined with the
mapping of its Apertium translation, the row's whole text as the search translates it, kept in the
workspace's translation cache, so that a run translates it once (`with_machine`); not where its words are
read from a dictionary with Apertium's single words and Apertium reaches English only through another
language (`read_whole`: French, through Spanish): there that second reading no longer paid for its cost.

No multilingual model is loaded here: multilingual-e5-small as a second reader (reordering the rules'
datapoints, filling rows left with none, dropping weak ones, choosing between readings, standing in for
missing dictionary words) brought German and French no closer to English on the development halves and
the seen part, nor on the held-out halves or the fresh part (benchmarks/frameworks_languages.py --encoder:
it lines a row up with its English version well but tells the catalogue's concepts apart poorly; French
reordered gained 2 of the 46 unseen rows only) and would cost inspect about twice its time and 3.4 times its
memory.

A row whose language has no dictionary is read by the translator (Apertium where it is asked for and has a
route); a row whose language has neither, or `retrieval.translate_queries` off, is mapped as it is. Pure but for the translator the
caller may pass (tests pass their own)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Callable, Sequence

from autofill.frameworks.mapping import Mapper, Mapping, Match, MAX_MATCHES
from autofill.translation.translator import QueryTranslator
from autofill.frameworks.glossary import glossary_parts, without_negated
from autofill.frameworks.truncated import completed

log = logging.getLogger(__name__)
ENGLISH = "en"


def needs_translation(language: str) -> bool:
    return bool(language) and language != ENGLISH


def translator_for(settings, apertium: bool = False) -> Any:
    """The translator a run's rows are mapped through (None when query translation is off); the dictionary
    alone unless `apertium`."""
    retrieval = getattr(settings, "retrieval", None)
    if retrieval is None or not getattr(retrieval, "translate_queries", True):
        return None

    return QueryTranslator(retrieval.dictionaries, None, [ENGLISH], retrieval.apertium if apertium else "",
                           words=getattr(retrieval, "apertium", ""))


# Languages whose noun phrases put the head first ("produits bas carbone", "émissions brutes"): their
# English words are also read with each phrase's first word moved to its end ("low carbon products").
HEAD_FIRST = frozenset({"fr", "es", "it", "pt"})
_PUNCT = " -–/,.;:()?!'\""


def english_words(pairs: Sequence[tuple[str, str]], translator: Any, vocabulary: Any = None) -> list[str]:
    """Each (language, text) in English words, in the text's order (`english_texts`' first reading)."""
    return [texts[0] for texts in english_texts(pairs, translator, vocabulary)]


def english_texts(pairs: Sequence[tuple[str, str]], translator: Any, vocabulary: Any = None) -> list[tuple[str, ...]]:
    """Each (language, text) in English words: the glossary's terms first, the rest through the translator's
    dictionary read with lemmas.Lookup (word forms, compounds, the catalogue's senses and cognates:
    `vocabulary`, lemmas.catalogue_words), or through the translator itself where it has no dictionary for
    the language or translates with Apertium (("",) where neither gives a word). A head-first language's
    text has a second reading, its phrases in English order (`HEAD_FIRST`, `english_order`)."""
    readers: dict[str, Any] = {}  # language -> the look-up that makes its shortened compounds whole
    cut = [glossary_parts(_whole(without_negated(text, language), language, translator, vocabulary, readers),
                          language) for language, text in pairs]
    todo = [(language, part) for (language, _), parts in zip(pairs, cut) for part, english in parts
            if not english and part.strip(_PUNCT)]
    lookups = _lookups(todo, translator, vocabulary) if translator is not None else {}
    rest = [key for key in todo if key[0] not in lookups]
    done = iter(translator.for_texts(rest) if translator is not None and rest else [""] * len(rest))
    out = []
    for (language, _), parts in zip(pairs, cut):
        units: list[tuple[str, bool]] = []  # (English words, continues the phrase before)
        joins = False
        for part, english in parts:
            if english:
                units.append((part, joins))
                joins = True
            elif not part.strip(_PUNCT):
                joins = joins and not part.strip()
            elif language in lookups:
                found, joins = lookups[language].pieces(part, joins)
                units += found
            else:
                units.append((next(done), False))
                joins = False
        if not (any(e for _, e in parts) or translator):
            out.append(("",))
            continue
        texts = [_joined(w for w, _ in units)]
        if language in HEAD_FIRST and language in lookups:
            texts.append(_joined(english_order(units)))
        out.append(tuple(dict.fromkeys(texts)))
    return out


def _whole(text: str, language: str, translator: Any, vocabulary: Any, readers: dict[str, Any]) -> str:
    """`text` with its compounds cut short made whole (truncated.py), where the language closes compounds
    and the translator has its dictionary (`readers`: one look-up a language, made once)."""
    if "-" not in text or language in HEAD_FIRST or translator is None or not SHORTENED:
        return text
    if language not in readers:
        from autofill.frameworks.lemmas import Lookup
        from autofill.store.bm25_index import stop_words

        dictionary = _dictionary(translator, language)
        readers[language] = (Lookup(dictionary, language, vocabulary, stop_words(language))
                             if dictionary is not None else None)
    return completed(text, readers[language]) if readers[language] is not None else text


# German compounds cut short made whole (truncated.py): same top-1 as English, German dev 109 -> 110 of 121
# ("Stein- und Braunkohle": hard coal), seen, xdev, fb and the held-out parts unchanged (37 of 1,080 German
# texts of all parts hold such a compound).
SHORTENED = True


def _joined(words) -> str:
    return " ".join(" ".join(w for w in words if w).split())


def english_order(units: Sequence[tuple[str, bool]]) -> list[str]:
    """A head-first language's phrases in English order: each phrase's first word after the rest
    (("products", False), ("low", True), ("carbon", True) -> "low carbon products")."""
    out: list[str] = []
    phrase: list[str] = []
    for words, continues in (*units, ("", False)):
        if not continues and phrase:
            out += phrase[1:] + phrase[:1]
            phrase = []
        phrase.append(words)
    return out


def _lookups(todo: Sequence[tuple[str, str]], translator: Any, vocabulary: Any) -> dict[str, Any]:
    """A lemmas.Lookup for each language the translator has a dictionary for and no Apertium route, with
    Apertium's single words for the words the dictionary lacks where the translator has them (`words_for`:
    translation/apertium_words.py), looked up at once for all of `todo`'s texts, and the English-to-language
    dictionary read the other way where it is small (`reverse_for`)."""
    from autofill.frameworks.lemmas import Lookup
    from autofill.store.bm25_index import stop_words

    out = {}
    for language in dict.fromkeys(language for language, _ in todo):
        dictionary = _dictionary(translator, language)
        if dictionary is not None:
            words, reverse = getattr(translator, "words_for", None), getattr(translator, "reverse_for", None)
            out[language] = Lookup(dictionary, language, vocabulary, stop_words(language),
                                   words(language) if words is not None else None,
                                   reverse(language) if reverse is not None else None)
            out[language].prefetch(text for lang, text in todo if lang == language)
    return out


def _dictionary(translator: Any, language: str) -> Any:
    """The translator's dictionary for `language`, None where it has none or reads the language with Apertium."""
    routes = getattr(translator, "routes_for", None)
    find = getattr(translator, "dictionary_for", None)
    if find is None or (routes is not None and routes(language)):
        return None
    return find(language)


def english_questions(rows: Sequence[Any], translator: Any, vocabulary: Any = None) -> list[tuple[str, ...]]:
    """Each row's question in English words (`english_texts`' readings): ("",) for an English row (or one of
    unknown language) and where no translation serves its language."""
    wanted = [(i, (q.language, q.question)) for i, q in enumerate(rows)
              if needs_translation(getattr(q, "language", "")) and str(q.question or "").strip()]
    out: list[tuple[str, ...]] = [("",)] * len(rows)
    for (i, _), texts in zip(wanted, english_texts([key for _, key in wanted], translator, vocabulary)):
        out[i] = texts
    return out


_VOCABULARIES: dict[int, tuple[Any, Any]] = {}


def vocabulary_of(catalogue: Any) -> Any:
    """The catalogue's English words (lemmas.catalogue_words), read once per catalogue."""
    from autofill.frameworks.lemmas import catalogue_words

    held = _VOCABULARIES.get(id(catalogue))
    if held is None or held[0] is not catalogue:
        held = _VOCABULARIES[id(catalogue)] = (catalogue, catalogue_words(catalogue))
    return held[1]


UNSURE = 0.6  # a mapping whose first datapoint is weaker (the floor of the workbook's cell: coverage.SHOWN)


def unsure(mapping: Mapping) -> bool:
    """Whether a row's mapping names no datapoint the workbook's cell would show (measured, not used:
    benchmarks/frameworks_languages.py --machine)."""
    return not mapping.matches or mapping.matches[0].strength < UNSURE


def unmapped(mapping: Mapping) -> bool:
    """Whether a row's mapping names no datapoint at all, not even a weak one (`with_machine`'s rows)."""
    return not mapping.matches


def joined(original: Mapping, translated: Mapping) -> Mapping:
    """Per concept the stronger match of the row as written and of its English words, strongest first;
    the codes the original quotes kept."""
    best: dict[str, Match] = {}
    for m in (*translated.matches, *original.matches):
        if m.concept not in best or m.strength > best[m.concept].strength:
            best[m.concept] = m
    ranked = sorted(best.values(), key=lambda m: -m.strength)
    kept = ranked[:MAX_MATCHES] + [m for m in ranked[MAX_MATCHES:]
                                   if m.concept in original.concepts[MAX_MATCHES:]
                                   or m.concept in translated.concepts[MAX_MATCHES:]]
    return Mapping(tuple(kept), tuple(dict.fromkeys((*original.quoted, *translated.quoted))))


# The first reading of a row's English words (in the row's own word order) has the catalogue's phrases
# matched in any order (loose.py); a second reading, already in English order, is matched as written.
# Same top-1 as English (benchmarks/frameworks_languages.py --without loose), dev / old seen: German 100 ->
# 104 of 121, 72 -> 75 of 84; French 98 -> 96, 70 -> 76 (both readings loosely: 95, 74); against gold on
# the seen part, top-1 German 71% -> 75%, French 73% -> 80%.
LOOSELY = True


def map_texts(mapper: Mapper, questions: Sequence[str], contexts: Sequence[str],
              english: Sequence[str | Sequence[str]], languages: Sequence[str] = ()) -> list[Mapping]:
    """Each question's mapping, joined with its English words' where it has them (a text, or the readings
    `english_texts` gives; the first matched loosely: `LOOSELY`). `languages`: each question's, whose
    negated asides its own mapping leaves out (`without_negated`)."""
    out = []
    for i, (question, context, words) in enumerate(zip(questions, contexts, english)):
        mapping = mapper.map(without_negated(question, languages[i]) if i < len(languages) else question, context)
        for reading, text in enumerate((words,) if isinstance(words, str) else words):
            if text:
                mapping = joined(mapping, mapper.map(text, context, loosely=LOOSELY and reading == 0))
        out.append(mapping)
    return out


def machine_for(settings) -> Any:
    """The translator that reads a row whole with Apertium, as the search does (translation/apertium.py),
    with the workspace's translation cache (`vectordb/.query-cache/translations.sqlite`, the search's:
    what one translated the other reads); None where query translation is off. One per workspace and
    process (inspect maps its rows twice)."""
    retrieval = getattr(settings, "retrieval", None)
    if retrieval is None or not getattr(retrieval, "translate_queries", True) or not retrieval.apertium:
        return None
    vectordb = getattr(settings, "vectordb_dir", None)
    path = None
    if vectordb is not None and getattr(getattr(settings, "embedding", None), "query_cache", False):
        from autofill.translation.translator import cache_path

        path = cache_path(Path(vectordb))
        folder = path.parent if path.parent.is_dir() else Path(vectordb)
        if not (folder.is_dir() and os.access(folder, os.W_OK)):  # no workspace, or a read-only one
            path = None
    key = (retrieval.dictionaries, retrieval.apertium, str(path or ""))
    if key not in _MACHINES:
        cache = None
        if path is not None:
            from autofill.sqlite_cache import BlobCache

            cache = BlobCache(path, "translation cache")
        _MACHINES[key] = QueryTranslator(retrieval.dictionaries, None, [ENGLISH], retrieval.apertium, cache)
    return _MACHINES[key]


_MACHINES: dict[tuple[str, str, str], Any] = {}


def read_word_by_word(translator: Any, language: str) -> bool:
    """Whether `translator` reads `language`'s words from its dictionary with Apertium's single words for the
    words the dictionary lacks (`_lookups`)."""
    words = getattr(translator, "words_for", None)
    return (translator is not None and _dictionary(translator, language) is not None and words is not None
            and words(language) is not None)


def pivoted(machine: Any, language: str) -> bool:
    """Whether Apertium reads `language` only through another language (French: fr-es then spa-eng)."""
    routes = machine.routes_for(language) if machine is not None else ()
    return bool(routes) and all(len(route) > 1 for route in routes)


def read_whole(translator: Any, machine: Any, language: str) -> bool:
    """Whether a row of `language` the rules leave with no datapoint is read again through Apertium's whole
    translation (`with_machine`): not where its words are read word by word with Apertium's single words
    and Apertium reaches English only through another language. French, same top-1 as English without and
    with that second reading (benchmarks/frameworks_languages.py, `shipped` against `nothing`): dev 102
    against 100 of 121, seen 76 / 75 of 84, xdev 63 / 62 of 78, fb 33 / 32 of 35, where it was chosen; held
    94 / 94, unseen 37 / 37, fresh 136 / 138, xheld 47 / 49, run at the end: 589 against 587 of 690 in all,
    while the pivot's words ("durabilité" -> durability, "rejets" -> poured, "biens" -> sakes) took most of
    inspect's time on a French questionnaire (39-45 s against 4.2 s, 100 rows). Spanish, whose pair is
    direct (spa-eng), keeps it: 35 against 34 of the 48 BHP rows."""
    return not (read_word_by_word(translator, language) and pivoted(machine, language))


def with_machine(mappings: Sequence[Mapping], rows: Sequence[Any], mapper: Mapper, contexts: Sequence[str],
                 machine: Any, when: Callable[[Mapping], bool] = unmapped,
                 skip: Callable[[str], bool] = lambda language: False) -> list[Mapping]:
    """Each mapping the rules leave with no datapoint (`when`: `unmapped`) of a row whose language Apertium
    reads joined with the mapping of the row's Apertium translation: the row's whole text
    (records.build_query), as the search translates it, so a run translates it once (the translation
    cache). The dictionary lacks many French words Apertium knows ("cible", "leviers"). French, same top-1
    as English (benchmarks/frameworks_languages.py --machine): development halves 86 -> 88 of 121, old seen
    part 69 -> 70 of 84. Joined on every row, or on rows whose first datapoint is under 0.6 (`unsure`), it
    gained less on the development halves (87) and lost on the seen part (63, 65): a weak right datapoint
    was put behind a stronger wrong one."""
    mappings = list(mappings)
    if machine is None:
        return mappings
    todo = [i for i, (q, m) in enumerate(zip(rows, mappings))
            if when(m) and needs_translation(getattr(q, "language", "")) and str(q.question or "").strip()
            and not skip(q.language) and machine.routes_for(q.language)]
    if not todo:
        return mappings
    for i, text in zip(todo, machine.for_rows([rows[i] for i in todo])):
        if text.strip():
            mappings[i] = joined(mappings[i], mapper.map(text, contexts[i]))
    return mappings


def map_rows(settings, rows: Sequence[Any], mapper: Mapper, contexts: Sequence[str],
             translator: Any = "settings", machine: Any = "settings") -> list[Mapping]:
    """Each QuestionRow's mapping (`contexts`: each row's number and section, coverage.row_context); rows in
    another language through their English words, and those left with no datapoint through Apertium's
    translation where it reads their language (`with_machine`; `machine`: a QueryTranslator with Apertium,
    None for none)."""
    rows = list(rows)
    crossing = any(needs_translation(getattr(q, "language", "")) for q in rows)
    if translator == "settings":
        translator = translator_for(settings) if crossing else None
    if isinstance(machine, str):
        machine = machine_for(settings) if crossing else None
    english = english_questions(rows, translator, vocabulary_of(mapper.catalogue) if translator is not None else None)
    return with_machine(map_texts(mapper, [q.question for q in rows], contexts, english,
                                  [str(getattr(q, "language", "") or "") for q in rows]), rows, mapper, contexts,
                        machine, skip=lambda language: not read_whole(translator, machine, language))
