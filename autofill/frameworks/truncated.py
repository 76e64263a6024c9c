"""Shortened compounds made whole (issue 46): German writes two compounds that share their head once, the
first cut short with a hyphen ("Stein- und Braunkohle", "Wasser- und Bodenverschmutzung", "Planungs- und
Investitionsentscheidungen"). Read word by word, the shortened one is its modifier alone ("Stein": stone,
where "Steinkohle" is hard coal); made whole ("Steinkohle und Braunkohle") each compound is read as it is
meant. The shared head is found by splitting the second compound against the dictionary (lemmas.Lookup's
`compound`); a compound the dictionary cannot split, a figure ("Scope 1- und Scope 2-Emissionen") and a
hyphen not followed by a joining word ("CO2- Bilanz") are left as written. Pure but for the look-up given."""

from __future__ import annotations

import re
from typing import Any

# A word cut short with a hyphen, a joining word (a stop word: "und", "oder", "sowie"), the next word.
_SHORTENED = re.compile(r"(?<![\w-])([^\W\d_]{3,})-(\s+([^\W\d_]+\.?)\s+)([^\W\d_][\w]*)")


def completed(text: str, lookup: Any) -> str:
    """`text` with each compound cut short made whole by the next compound's head."""
    if "-" not in text:
        return text

    def whole(m: re.Match) -> str:
        if m.group(3).lower().rstrip(".") not in lookup.stopwords:
            return m.group(0)
        parts = lookup.compound(m.group(4).lower())
        head = parts[-1] if parts else ""
        if not head or not m.group(4).lower().endswith(head):
            return m.group(0)
        return f"{m.group(1)}{m.group(4)[-len(head):].lower()}{m.group(2)}{m.group(4)}"

    return _SHORTENED.sub(whole, text)
