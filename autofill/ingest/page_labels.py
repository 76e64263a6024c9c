"""The number printed on each page, which readers of a report quote ("p. 24") and which often differs
from the PDF page index autofill cites and evaluates with (a cover and contents come first).

Taken from the PDF's own page labels when it defines them (`/PageLabels`, what a PDF viewer shows),
else detected in the header and footer bands: a number standing alone or at either end of a margin
line ("24", "BHP Climate Transition Action Plan  27"), kept only where it agrees with the offset
(printed number minus page index) most pages show, so a year, a footnote or a phone number is never
taken for a folio. Pages without an agreeing number get "" (unknown)."""

from __future__ import annotations

import re
from collections import Counter

_EDGE_NUMBER = re.compile(r"^\s*(\d{1,4})\b|\b(\d{1,4})\s*$")
MIN_AGREEING_PAGES = 2  # an offset seen on one page only may be chance
MIN_AGREEING_SHARE = 0.3  # of the pages that show any candidate number


def pdf_labels(doc) -> list[str] | None:
    """The PDF's page labels, one per page, or None when the file defines none."""
    try:
        if not doc.get_page_labels():
            return None
        return [(page.get_label() or "").strip() for page in doc]
    except Exception:  # noqa: BLE001 - a malformed /PageLabels tree: fall back to detection
        return None


def candidates(margin_lines: list[str]) -> set[int]:
    """Numbers at either end of the page's header/footer lines."""
    out: set[int] = set()
    for line in margin_lines:
        for m in _EDGE_NUMBER.finditer(line.strip()):
            value = int(m.group(1) or m.group(2))
            if 0 < value < 1900:  # a year is not a folio
                out.add(value)
    return out


def detect_printed(margins: list[list[str]]) -> list[str]:
    """Printed page numbers from the margin lines of each page (index 0 = PDF page 1); "" unknown."""
    found = [candidates(lines) for lines in margins]
    offsets: Counter[int] = Counter()
    for i, nums in enumerate(found, start=1):
        for n in nums:
            offsets[n - i] += 1
    showing = sum(1 for nums in found if nums)
    if not offsets:
        return [""] * len(margins)
    offset, support = offsets.most_common(1)[0]
    if support < MIN_AGREEING_PAGES and len(margins) > 1 or support < MIN_AGREEING_SHARE * showing:
        return [""] * len(margins)
    return [str(i + offset) if i + offset in nums else "" for i, nums in enumerate(found, start=1)]


def page_labels(doc, margins: list[list[str]]) -> list[str]:
    """One printed label per page: the PDF's labels, else the detected folios."""
    return pdf_labels(doc) or detect_printed(margins)
