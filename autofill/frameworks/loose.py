"""The catalogue's patterns matched in any word order, for the English words of a row written in another
language (issue 46): a German or French row read word by word into English keeps its own order ("Standort
in einem Gebiet mit schutzbedürftiger Biodiversität" -> "sites area sensitive biodiversity"), so a pattern
written for English ("biodiversity[- ]sensitive") misses what its words say.

A pattern is expanded into the literal phrases it matches (`phrases`: alternatives, optional letters and
groups, character classes; a pattern with an unbounded repeat or too many phrases has none), each phrase
into its words without their plural "s", stop words left out (`stem_sets`; no stemmer: "reduced
emissions", the figure achieved, is not "reduce emissions"). A row's English words match a phrase loosely
when every word of the phrase is among them, all within a few words of each other (`WINDOW` more than
the phrase has). A phrase of one word needs nothing more than its regex: it is
not read loosely (its stem would widen it: "polic" is a fragment of "policy"); nor is one with a figure
("scope 3": a translation keeps figures as written).

Only the translated readings of a row are matched so (frameworks/crosslingual.py); an English row's mapping
is the regexes' alone. Pure."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import product
from typing import Iterable, Sequence

try:  # Python 3.11+: the regex parser is re._parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]
    from re import _constants as sre_constants  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MAX_PHRASES = 64  # a pattern matching more literal phrases than this is not read loosely
WINDOW = 1  # how many other words may stand between a phrase's words
_WORD = re.compile(r"[a-z0-9]+")


def _expand(parsed, budget: int) -> list[str] | None:
    """The literal strings a parsed (sub)pattern matches, or None when unbounded or over `budget`."""
    out = [""]
    for op, arg in parsed:
        if op is sre_constants.LITERAL:
            choices = [chr(arg)]
        elif op is sre_constants.IN:
            choices = []
            for kind, value in arg:
                if kind is sre_constants.LITERAL:
                    choices.append(chr(value))
                elif kind is sre_constants.RANGE and value[1] - value[0] < 10:
                    choices += [chr(c) for c in range(value[0], value[1] + 1)]
                else:
                    return None
        elif op is sre_constants.SUBPATTERN:
            choices = _expand(arg[-1], budget)
        elif op is sre_constants.BRANCH:
            choices = []
            for branch in arg[1]:
                more = _expand(branch, budget)
                if more is None:
                    return None
                choices += more
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
            low, high, sub = arg
            if high > 1 or low > 1:
                return None
            inner = _expand(sub, budget)
            if inner is None:
                return None
            choices = ([""] if low == 0 else []) + inner
        elif op is sre_constants.AT:  # \b, ^, $: no letters
            continue
        else:
            return None
        if choices is None:
            return None
        out = [a + b for a, b in product(out, choices)]
        if len(out) > budget:
            return None
    return out


def phrases(pattern: str) -> list[str]:
    """The literal phrases `pattern` matches (lower case), [] when there are too many or no bound."""
    try:
        parsed = sre_parse.parse(pattern.lower())
    except (re.error, OverflowError, RecursionError):
        return []
    found = _expand(parsed, MAX_PHRASES)
    return list(dict.fromkeys(found)) if found else []


def stem(word: str) -> str:
    """A word without its plural "s" ("emissions" -> "emission"): lighter than a stemmer, so that a
    phrase's tense and form still count ("reduced emissions", the figure achieved, is not "reduce
    emissions")."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@lru_cache(maxsize=4096)
def stem_sets(pattern: str) -> tuple[frozenset[str], ...]:
    """Each phrase of `pattern` of two or more words as the stems of its words, stop words left out."""
    from autofill.store.bm25_index import stop_words

    stop = stop_words("en")
    out = []
    for phrase in phrases(pattern):
        words = [w for w in _WORD.findall(phrase) if w not in stop]
        if len(words) >= 2 and not any(w.isdigit() for w in words):  # figures are kept as written
            out.append(frozenset(stem(w) for w in words))
    return tuple(dict.fromkeys(out))


def text_stems(text: str) -> tuple[str, ...]:
    """`text`'s words as English stems, in order (stop words kept as they are, so distances stay)."""
    return tuple(stem(w) for w in _WORD.findall(text.lower()))


def _near(stems: frozenset[str], words: Sequence[str]) -> bool:
    """Whether every stem of `stems` is among `words`, all within len(stems) + WINDOW words."""
    width = len(stems) + WINDOW
    at = [i for i, w in enumerate(words) if w in stems]
    for start, i in enumerate(at):
        seen = {words[j] for j in at[start:] if j - i < width}
        if stems <= seen:
            return True
    return False


def matches(pattern: re.Pattern | str, words: Sequence[str]) -> bool:
    """Whether a row's English words (`text_stems`) hold one of `pattern`'s phrases of two or more words,
    in any order."""
    source = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    present = set(words)
    return any(stems <= present and _near(stems, words) for stems in stem_sets(source))


def any_matches(patterns: Iterable[re.Pattern], words: Sequence[str]) -> bool:
    return any(matches(p, words) for p in patterns)
