"""A row's own terms in its language (issue 46): its language's reporting glossary and term names given
in English (`glossary_parts`: "Treibhausgasemissionen" -> greenhouse gas emissions, found with German endings
and inside compounds), and its negated asides as its language writes them (`without_negated`: "(nicht in
Scope 1 oder Scope 2 enthalten)"), which a row's mapping leaves out. Read by frameworks/crosslingual.py.
Pure: the tables are languages/<code>.py's."""

from __future__ import annotations

import re
from functools import lru_cache

from autofill.languages import REGISTRY

_LETTER = r"[^\W\d_]"
# German inflection endings a glossary term may carry at the end of a word ("klimabezogenen").
_GERMAN_ENDINGS = "(?:e|en|er|es|em|n|s|ns|ern)"
_ENDINGS = "(?:es|s|x|e)?"  # other languages: a word's plural and feminine endings
COMPOUND_PART = 7  # German: a term this long is also found inside a compound ("Gesamt|treibhausgasemissionen")


def _normal(text: str) -> str:
    return str(text or "").lower().replace("’", "'")


@lru_cache(maxsize=None)
def _negated(language: str) -> re.Pattern | None:
    lang = REGISTRY.get(language)
    return re.compile(lang.negated, re.IGNORECASE) if lang is not None and lang.negated else None


def without_negated(text: str, language: str) -> str:
    """`text` without its negated asides as its language writes them (`Language.negated`: "(nicht in Scope 1
    oder Scope 2 enthalten)"), as English rows' are left out of their mapping (contrast.without_negations)."""
    pattern = _negated(language)
    return pattern.sub(" ", text) if pattern is not None else text


def glossary_of(language: str) -> dict[str, str]:
    """The language's terms in English: its reporting glossary (languages/<code>.py `glossary`) and its
    financial and GHG term names (`terms`: "chiffre d'affaires" is revenue, not "cipher stuff") but those
    holding a glossary term, which the glossary reads."""
    lang = REGISTRY.get(language)
    if lang is None:
        return {}
    glossary = {_normal(t): e for t, e in lang.glossary.items()}
    terms = {_normal(t): e for t, e in lang.terms.items()  # "treibhausgasemissionen": the glossary's words;
             if " " in t.strip() or not any(g in _normal(t) for g in glossary)}  # "compensation carbone" whole
    return {**terms, **glossary}


@lru_cache(maxsize=None)
def glossary_pattern(language: str) -> re.Pattern | None:
    """One pattern finding the language's glossary terms (`glossary_of`), longest first."""

    glossary = glossary_of(language)
    if not glossary:
        return None
    parts = []
    for term in sorted(glossary, key=len, reverse=True):
        body = re.escape(term)
        if language == "de":  # each word of a term may carry its ending ("gefährlichen Abfälle")
            body = body.replace(r"\ ", rf"{_GERMAN_ENDINGS}?\s+")
            start = "" if len(term) >= COMPOUND_PART else f"(?<!{_LETTER})"
            parts.append(f"{start}{body}(?:{_GERMAN_ENDINGS}(?!{_LETTER}))?")
        else:  # each word in the singular or plural, masculine or feminine ("zone sensible", "zones sensibles")
            body = r"\s+".join(re.escape(_stem(w)) + _ENDINGS for w in term.split())
            parts.append(f"(?<!{_LETTER}){body}(?!{_LETTER})")
    return re.compile("|".join(parts))


def glossary_parts(text: str, language: str) -> list[tuple[str, bool]]:
    """`text` cut into (words, already English): the glossary's terms in English, the rest as written."""
    pattern = glossary_pattern(language)
    if pattern is None:
        return [(text, False)]

    glossary = glossary_of(language)
    lowered = _normal(text)
    out: list[tuple[str, bool]] = []
    at = 0
    for m in pattern.finditer(lowered):
        if m.start() > at:
            out.append((text[at:m.start()], False))
        found = m.group(0)
        term = next((t for t in (found, *(found[:-n] for n in range(1, 4))) if t in glossary), "") or \
            _term_of(found, glossary, language)
        out.append((glossary.get(term, found), True))
        at = m.end()
    if at < len(text):
        out.append((text[at:], False))
    return out


def _stem(word: str) -> str:
    """A word of a term without its plural or feminine ending ("sensibles" -> "sensibl")."""
    return re.sub(r"(?:es|s|x|e)$", "", word) if len(word) > 3 else word


def _term_of(found: str, glossary: dict[str, str], language: str) -> str:
    """The glossary term a match with endings inside it stands for ("gefährlichen abfälle", "zone sensible")."""
    words = found.split()
    for term in glossary:
        parts = term.split()
        if len(parts) == len(words) and all(
                w.startswith(p) if language == "de" else _stem(w) == _stem(p) for w, p in zip(words, parts)):
            return term
    return ""
