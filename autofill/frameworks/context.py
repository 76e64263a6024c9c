"""A word's sense chosen by the words around it (issue 46): of the translations a word has (its dictionary's
senses, Apertium's, the English dictionary's read the other way: frameworks/lemmas.py `Lookup`), the one
that makes up phrases of the catalogue's rules with the most of its neighbours' translations
(lemmas.Vocabulary.together: two words one rule phrase holds, "purchased goods and services"), where it
makes them with at least `TOGETHER` of them and with more than the translation first chosen:

- "Biens et services achetés": "biens" is "good" (Apertium), not FreeDict's first sense "well";
  "achetés" "purchased" (English-French read the other way), not "bought";
- "Eingekaufte Waren und Dienstleistungen": "goods", not "ware" (the word's own cognate) or "products";
- "à court, moyen et long terme": "medium", not "remedy".

The evidence is the catalogue's own phrases, not a list of words; one neighbour alone is too weak a sign
(`TOGETHER`: with one, "Behandlung" next to "sold" read "use", the "use of sold products" of another
category). A word read as its first sense elsewhere is left as it is. Pure."""

from __future__ import annotations

from typing import Any, Callable, Sequence

CONTEXT = 2  # how many words each side of a word are its neighbours
TOGETHER = 2  # with how many of them a translation must make phrases to be chosen over the first


def around(english: Sequence[str], i: int, width: int = CONTEXT) -> list[str]:
    """The English words of the `width` words each side of the `i`th (each word's translation may be
    several)."""
    return [w for j in range(max(0, i - width), min(len(english), i + width + 1)) if j != i
            for w in english[j].split()]


def in_context(english: Sequence[str], options: Sequence[Sequence[str]], vocabulary: Any,
               form: Callable[[int, str], str] = lambda i, option: option) -> list[str]:
    """Each word's translation (`english`) re-chosen, left to right, among its `options` (the first: the
    translation chosen alone; a word with fewer than two is left as it is): the single-word option that makes
    catalogue phrases with the most neighbours (a neighbour with options: with one of them, so that two
    words choose each other, "biens" "good" and "achetés" "purchase"), `TOGETHER` at least and more than the
    first does; `form` gives the chosen option as the word reads (a past participle's English participle)."""
    out = list(english)
    readings = [[*english[j].split(), *(o for o in options[j] if " " not in o)] for j in range(len(english))]
    for i, choices in enumerate(options):
        if len(choices) < 2:
            continue
        near = [readings[j] for j in range(max(0, i - CONTEXT), min(len(out), i + CONTEXT + 1)) if j != i]

        def score(option: str) -> int:
            return sum(vocabulary.together(option, words) > 0 for words in near)

        best, most = "", max(score(choices[0]), TOGETHER - 1)
        for option in choices[1:]:
            found = score(option) if " " not in option else 0
            if found > most:
                best, most = option, found
        if best:
            out[i] = form(i, best) or best
        readings[i] = out[i].split()  # its neighbours after it read it as chosen
    return out
