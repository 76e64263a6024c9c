"""The English wording of financial-statement and GHG-reporting terms in other languages (issue 33: "the
synonym handling works per language").

search/query.py's SYNONYMS map the terms English questions use to the wording English reports use
("capital expenditure" -> "purchases of property, plant and equipment"). A French or German question
names the same things in its own words ("tableau des flux de trésorerie", "Kapitalflussrechnung"), which
neither an English report nor the English map knows, and a machine translation often misses them
("fonds de roulement" came out of Apertium as "funds of rotation", "chiffre d'affaires" as "figure of
subjects"). TERMS gives, per language, each SYNONYMS concept's usual names in that language's financial and
sustainability reporting (the terms of its IFRS and GHG Protocol translations), mapped to the English key:
a row searched as its English translation also looks for the English term and its report wording, by
keyword and, on their own, densely (answer/retrieval.retrieve). Only SYNONYMS' concepts
are here: the map adds no concept English rows do not have. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from autofill.languages import with_

# Language -> {term (lower case, as written in that language) -> the SYNONYMS key it names}: each
# language's module in autofill/languages/ holds its own (`terms`).
TERMS: dict[str, dict[str, str]] = {code: dict(lang.terms) for code, lang in with_("terms").items()}

_PATTERNS = {lang: [(term, re.compile(r"(?<![\w&])" + re.escape(term) + r"(?![\w&])"))
                    for term in sorted(terms, key=len, reverse=True)]
             for lang, terms in TERMS.items()}


def english_keys(text: str, language: str) -> list[str]:
    """The SYNONYMS keys the `language` terms in `text` name, each once, in the order of the longest
    terms first; a term inside a longer one that matched ("ventes" inside "coût des ventes") is not
    matched again. [] for English and for a language without terms."""
    patterns = _PATTERNS.get(language)
    if not patterns:
        return []
    lowered = text.lower().replace("’", "'")
    out: list[str] = []
    for term, pattern in patterns:
        if pattern.search(lowered):
            lowered = pattern.sub(" ", lowered)
            key = TERMS[language][term]
            if key not in out:
                out.append(key)
    return out
