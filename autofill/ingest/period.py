"""A document's reporting period, detected at ingest from its own words. Pure: a ParsedDocument in,
a label out ("FY2022", "2023", "" when nothing says). The clues, strongest first:

1. "year ended 30 June 2020" / "financial year ending 31 December 2022" on the first pages
   (a year ending in December is a calendar year: "2022"; any other month a fiscal year: "FY2020");
2. a report title with a year: "2023 Sustainability Report", "Climate Change Report 2020" (the file
   name, the title, or the first pages' headings);
3. the fiscal year the text reports on most: "FY2021" mentions, leaving out targets ("by FY2030");
4. the years that dominate its tables: the latest year in each table's header row, most common first.
"""

from __future__ import annotations

import re
from collections import Counter

from autofill.records import ParsedDocument

FIRST_PAGES = 5
_YEAR_ENDED = re.compile(
    r"\b(?:financial\s+|fiscal\s+|reporting\s+)?(?:year|period)\s+end(?:ed|ing)\s+(?:on\s+)?"
    r"(\d{1,2}\s+([A-Za-z]+)|([A-Za-z]+)\s+\d{1,2},?)\s+((?:19|20)\d{2})", re.IGNORECASE)
_REPORT_WORDS = r"(?:sustainability|climate|annual|esg|integrated|impact|responsibility|environmental|" \
                r"non-financial|tcfd|carbon|emissions|csr)"
_TITLE_YEAR_FIRST = re.compile(r"\b((?:19|20)\d{2})\s+(?:[A-Za-z&-]+\s+){0,3}?" + _REPORT_WORDS +
                               r"(?:\s+[A-Za-z&-]+){0,3}?\s+(?:report|review|plan|statement|disclosure)",
                               re.IGNORECASE)
_TITLE_YEAR_LAST = re.compile(_REPORT_WORDS + r"(?:\s+[A-Za-z&-]+){0,3}?\s+(?:report|review|plan|statement|"
                              r"disclosure)s?\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_FY = re.compile(r"(?<![\w])(by|until|to|through|before|in|for)?\s*\bFY\s?((?:19|20)?\d{2})(?!\d)", re.IGNORECASE)
_TARGET_WORDS = {"by", "until", "to", "through", "before"}
_YEAR = re.compile(r"(?<![\w.,])((?:19|20)\d{2})(?![\w,]|\.\d)")


def _text(doc: ParsedDocument, pages: int | None = None) -> str:
    chosen = doc.pages if pages is None else doc.pages[:pages]
    return "\n".join(b.text for page in chosen for b in page.blocks)


def _headings(doc: ParsedDocument, pages: int) -> str:
    return "\n".join(b.text for page in doc.pages[:pages] for b in page.blocks if b.kind == "heading")


def _year_ended(text: str) -> str:
    m = _YEAR_ENDED.search(text)
    if not m:
        return ""
    month = (m.group(2) or m.group(3) or "").lower()
    year = m.group(4)
    return year if month.startswith("dec") else f"FY{year}"


def _title_year(text: str) -> int | None:
    for pattern in (_TITLE_YEAR_LAST, _TITLE_YEAR_FIRST):
        m = pattern.search(text)
        if m:
            return int(m.group(1))
    return None


def _fiscal_year(text: str) -> int | None:
    counts: Counter[int] = Counter()
    for m in _FY.finditer(text):
        if (m.group(1) or "").lower() in _TARGET_WORDS:
            continue
        y = m.group(2)
        counts[int(y) if len(y) == 4 else 2000 + int(y)] += 1
    if not counts:
        return None
    top = max(counts.values())
    return max(y for y, n in counts.items() if n == top)  # a tie: the later year is the one reported on


def _table_year(doc: ParsedDocument) -> int | None:
    counts: Counter[int] = Counter()
    for page in doc.pages:
        for b in page.blocks:
            if b.kind != "table":
                continue
            header = b.text.strip().splitlines()[0] if b.text.strip() else ""
            years = [int(y) for y in _YEAR.findall(header)] + [int(y) if len(y) == 4 else 2000 + int(y)
                                                               for y in re.findall(r"\bFY\s?((?:19|20)?\d{2})\b", header)]
            if years:
                counts[max(years)] += 1
    if not counts:
        return None
    top = max(counts.values())
    return max(y for y, n in counts.items() if n == top)


def detect_period(doc: ParsedDocument) -> str:
    """The document's reporting period label, or "" when nothing in it says."""
    first = _text(doc, FIRST_PAGES)
    ended = _year_ended(first)
    if ended:
        return ended
    whole = _text(doc)
    fiscal = _fiscal_year(whole)
    year = _title_year(" ".join([doc.file_name.rsplit(".", 1)[0].replace("_", " "), doc.title or "",
                                 _headings(doc, FIRST_PAGES)])) or _title_year(first)
    if year is not None:
        return f"FY{year}" if fiscal == year else str(year)
    if fiscal is not None:
        return f"FY{fiscal}"
    table = _table_year(doc)
    return str(table) if table is not None else ""
