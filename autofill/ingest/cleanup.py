"""Pure text clean-up for PDF layout artefacts: line-end hyphenation, whitespace, running headers and
footers, page numbers. No PDF library here, so every rule is testable on plain strings."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]")
# "emis-" at a line end: letters (or digits, "2030-") right before a hyphen or soft hyphen.
_LINE_END_HYPHEN = re.compile(r"([A-Za-z0-9]+)[-\u00ad\u2010]$")
_NEXT_WORD = re.compile(r"^([a-z][A-Za-z]*)")
_PAGE_NUMBER = re.compile(
    r"^(page\s*)?[ivxlcdm\d]{1,5}(\s*(of|/)\s*\d{1,5})?$|^[-\u2013]\s*\d{1,5}\s*[-\u2013]$", re.IGNORECASE
)

# First halves of compounds that are usually written with a hyphen ("five-year", "long-term",
# "climate-related"). When a line ends in one of these plus a hyphen, the hyphen is part of the word,
# not a typesetter's break. The document's own vocabulary decides first (see dehyphenate_join).
COMPOUND_FIRST = frozenset(
    """one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty
    hundred long short medium mid low high net non self well multi cross climate carbon energy cost
    risk science year end full part state world best large small time market nature fossil zero
    decision first second third half water land sector value supply""".split()
)


# Symbol/Wingdings bullets land in Unicode's private use area; show them as the bullet they are.
_PUA_BULLETS = str.maketrans({c: "\u2022" for c in "\uf0b7\uf0a7\uf0a8\uf0d8\uf0fc\uf076\uf06e\uf0e0\uf0d7\uf02d"})


def clean_spaces(text: str) -> str:
    """NFKC (ligatures, full-width forms, "CO₂" -> "CO2"), drop soft hyphens inside lines, collapse
    runs of spaces, private-use bullets to "•"; newlines are kept."""
    text = unicodedata.normalize("NFKC", text).translate(_PUA_BULLETS)
    lines = []
    for line in text.split("\n"):
        line = _SPACES.sub(" ", line).strip()
        # A soft hyphen is invisible unless it ends a line, where dehyphenate_join needs it.
        lines.append(line[:-1].replace("\u00ad", "") + line[-1:] if line else line)
    return "\n".join(lines)


def vocabulary(texts: Iterable[str]) -> set[str]:
    """Lower-cased words of a document, hyphenated compounds included, to decide line-end hyphens."""
    vocab: set[str] = set()
    for text in texts:
        vocab.update(w.lower() for w in _WORD.findall(text))
    return vocab


def dehyphenate_join(left_line: str, right_line: str, vocab: set[str]) -> tuple[str, str]:
    """Decide how a line ending in a hyphen joins the next one.

    Returns (left, separator): "emis-" + "sions" -> ("emis", "") for "emissions", while
    "five-" + "year" -> ("five-", "") for "five-year". Lines not ending in a hyphen join with a space."""
    match = _LINE_END_HYPHEN.search(left_line)
    nxt = _NEXT_WORD.match(right_line)
    if not match or not nxt:
        return left_line, " "
    soft = left_line.endswith("\u00ad")
    first, second = match.group(1), nxt.group(1)
    stem = left_line[:-1]
    if soft:
        return stem, ""
    compound, merged = f"{first}-{second}".lower(), f"{first}{second}".lower()
    if compound in vocab:
        return stem + "-", ""
    if merged in vocab:
        return stem, ""
    if first.lower() in COMPOUND_FIRST or any(c.isdigit() for c in first) or (len(first) > 1 and first.isupper()):
        return stem + "-", ""
    return stem, ""


def join_lines(lines: list[str], vocab: set[str]) -> str:
    """Join the lines of one paragraph into one line, repairing line-end hyphenation."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        left, sep = dehyphenate_join(out, line, vocab)
        out = f"{left}{sep}{line}"
    return _SPACES.sub(" ", out).strip()


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


def furniture_key(text: str) -> str:
    """Running headers/footers differ only in numbers ("Annual Report 2020 | 23"): compare without them."""
    return re.sub(r"\d+", "#", _SPACES.sub(" ", text.strip().lower()))


def running_furniture(page_margin_lines: list[list[str]], min_pages: int = 3, share: float = 0.3) -> set[str]:
    """Keys of lines that sit in the top/bottom margin of many pages: running headers and footers.

    `page_margin_lines` holds, per page, the texts of lines in that page's margin bands. A key must
    recur on at least `min_pages` pages and on `share` of the pages that have any text."""
    counts: Counter[str] = Counter()
    for lines in page_margin_lines:
        counts.update({furniture_key(t) for t in lines if t.strip()})
    pages_with_text = sum(1 for lines in page_margin_lines if lines) or 1
    needed = max(min_pages, share * pages_with_text)
    return {key for key, n in counts.items() if n >= needed and any(c.isalpha() for c in key)}


def normalize_for_match(text: str) -> str:
    """A form for checking that a quote occurs in a passage despite PDF quirks: case, whitespace,
    line-end hyphens ("five- year", "emis- sions"), soft hyphens and ligatures are all ignored."""
    text = unicodedata.normalize("NFKC", text).lower().replace("\u00ad", "")
    text = re.sub(r"[-\u2010\u2011]\s+", "", text)
    text = re.sub(r"[-\u2010\u2011]", "", text)
    return re.sub(r"\s+", "", text)
