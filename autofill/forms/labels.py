"""Where a form's words are: the label beside an input cell, the column heading above a breakdown
cell, the section heading (VSME: "B3 - ...", "C4 - ...") a cell sits under, the paragraph reference
("24(a)") printed beside a label, and the language the labels were resolved in. Reads through `Book`
so label formulas are followed to the translation the form has selected."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cached_property

from autofill.forms.book import Area, Book
from autofill.language import detect_many

_SECTION = re.compile(r"^\s*([A-Z]{1,2}\d{1,2}(?:\.\d{1,2})?)\s*[-–—:.]\s*\S")
_REFERENCE = re.compile(r"^\s*(?:\d{1,3}(?:\s*\([a-z0-9ivx]+\))*(?:\s*[-,;]\s*\d{1,3}(?:\s*\([a-z0-9ivx]+\))*)*|N/?A)\s*$", re.I)
_LANG_CODE = re.compile(r"\[([a-z]{2,3})\]\s*$")
_LANG_NAMES = {"english": "en", "danish": "da", "dutch": "nl", "french": "fr", "german": "de", "irish": "ga",
               "italian": "it", "lithuanian": "lt", "polish": "pl", "portuguese": "pt", "slovenian": "sl",
               "spanish": "es", "swedish": "sv", "finnish": "fi", "czech": "cs", "greek": "el",
               "hungarian": "hu", "romanian": "ro", "bulgarian": "bg", "croatian": "hr", "slovak": "sk",
               "estonian": "et", "latvian": "lv", "maltese": "mt", "norwegian": "no"}
MAX_LEFT = 12
MAX_UP = 30


def clean(text: str) -> str:
    """A label as one line: whitespace collapsed, leading info marks dropped."""
    text = " ".join(str(text or "").split())
    return text.lstrip("ℹ️ *•-–").strip() if text.startswith(("ℹ", "*", "•")) else text


def wordy(text: str) -> bool:
    """Text that can be a label: at least two letters and not a paragraph reference."""
    return sum(ch.isalpha() for ch in text) >= 2 and not _REFERENCE.match(text)


def language_code(text: str) -> str:
    m = _LANG_CODE.search(text or "")
    if m:
        return m.group(1)
    first = (text or "").strip().split(" ")[0].lower()
    return _LANG_NAMES.get(first, "")


class SheetWords:
    """The words of one sheet, found around cells; `is_input(col, row)` says which cells are inputs
    (those are never labels)."""

    def __init__(self, book: Book, sheet: str, is_input):
        self.book, self.sheet, self.is_input = book, sheet, is_input
        ws = book.wb[sheet]
        self.max_row, self.max_col = ws.max_row, ws.max_column
        self.merged_at: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        for rng in ws.merged_cells.ranges:
            c1, r1, c2, r2 = rng.min_col, rng.min_row, rng.max_col, rng.max_row
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    self.merged_at[(c, r)] = (c1, r1, c2, r2)

    def top_left(self, col: int, row: int) -> tuple[int, int]:
        box = self.merged_at.get((col, row))
        return (box[0], box[1]) if box else (col, row)

    def covered(self, col: int, row: int) -> bool:
        """A cell hidden under a merged range (not its top-left)."""
        return self.top_left(col, row) != (col, row)

    def text(self, col: int, row: int) -> str:
        return clean(self.book.text(self.sheet, col, row))

    def left_label(self, col: int, row: int) -> tuple[str, int]:
        """The nearest label-like text to the left on the same row, and its column (0 if none)."""
        c = col - 1
        while c >= max(1, col - MAX_LEFT):
            tc, tr = self.top_left(c, row)
            if tr == row or (tc, tr) != (col, row):
                t = self.text(tc, tr)
                if t and wordy(t) and not self.is_input(tc, tr):
                    return t, tc
            c = tc - 1 if tc < c else c - 1
        return "", 0

    def heading_above(self, col: int, row: int, stop_at_input: bool = True) -> str:
        """The nearest column heading above: text in a cell (or a merged block) that starts in this
        column, skipping inputs, empty cells and row labels that reach over from the left."""
        for r in range(row - 1, max(0, row - MAX_UP), -1):
            tc, tr = self.top_left(col, r)
            if tc != col:
                continue
            if stop_at_input and self.is_input(tc, tr) and (tc, tr) != (col, row):
                continue
            t = self.text(tc, tr)
            if t and wordy(t) and t not in ("TRUE", "FALSE"):
                return t
        return ""

    def label_above(self, col: int, row: int) -> str:
        """For an input with nothing on its left: the nearest text on a row above, from its column leftwards."""
        for r in range(row - 1, max(0, row - 5), -1):
            for c in range(col, 0, -1):
                tc, tr = self.top_left(c, r)
                t = self.text(tc, tr)
                if t and wordy(t) and not self.is_input(tc, tr):
                    return t
        return ""

    def reference(self, label_col: int, row: int) -> str:
        """A paragraph reference printed left of the label ("24(a)")."""
        for c in range(1, label_col):
            t = self.text(c, row)
            if t and _REFERENCE.match(t) and any(ch.isdigit() for ch in t):
                return t
        return ""

    @cached_property
    def _sections(self) -> tuple[list[int], list[tuple[str, str]]]:
        rows, found = [], []
        for r in range(1, self.max_row + 1):
            for c in range(1, min(self.max_col, 6) + 1):
                raw = self.book.raw(self.sheet, c, r)
                if raw is None or self.covered(c, r):
                    continue
                t = self.text(c, r)
                m = _SECTION.match(t)
                if m:
                    rows.append(r)
                    found.append((m.group(1), t))
                    break
        return rows, found

    def section(self, row: int) -> tuple[str, str]:
        """The section code and heading text a row sits under ("B3", "B3 - Total Energy ...")."""
        rows, found = self._sections
        i = bisect_right(rows, row) - 1
        return found[i] if i >= 0 else ("", "")


def form_language(book: Book) -> tuple[str, tuple[str, ...], Area | None]:
    """The language a form's labels were looked up in, the languages it offers, and the cell that
    chooses it: from the cell the label formulas match against a list of languages."""
    for key, options in book.lookups.items():
        chosen = book.text(key.sheet, key.c1, key.r1)
        code = language_code(chosen)
        if not code:
            continue
        offered = tuple(c for c in (language_code(book.text(options.sheet, cc, rr)) for cc, rr in options.cells()) if c)
        return code, offered, key
    return "", (), None


def labels_language(labels: list[str]) -> str:
    """The language of a form's labels read together, when the form has no language choice."""

    return detect_many(labels)


def option_for(book: Book, options: Area, language: str) -> str:
    """The option of a language list that names `language` (an ISO code or a language's name)."""
    want = language.strip().lower()
    for c, r in options.cells():
        text = book.text(options.sheet, c, r)
        if language_code(text) == want or text.strip().lower() == want or text.lower().startswith(want + " "):
            return text
    return ""
