"""A parsed PDF's layout made into blocks (ingest/pdf.py reads the pages): running headers and footers
found in the margin bands of many pages and dropped, body text size, heading levels from font sizes,
bullets and captions, a page's lines grouped into headings, paragraphs and tables in reading order, tables
split over a page break joined, and the document's title from its cover. Pure: pages in, blocks out."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from autofill.ingest import cleanup
from autofill.ingest.page_labels import page_labels
from autofill.ingest.tables import TableGrid, attach_header, is_headerless_continuation
from autofill.records import Block, PageContent

MARGIN_BAND = 0.09  # share of the page height at top and bottom where running headers/footers live
HEADING_RATIO = 1.15  # a line this much larger than body text is a heading
MAX_HEADING_CHARS = 160
MAX_LEVELS = 6
_BULLETS = ("\u2022", "\u25aa", "\u25cf", "\u25e6", "\u2023", "\u00b7 ")  # base-14 fonts render "•" as "·"
_CAPTION = re.compile(r"^(figure|fig\.|table|chart|source|note)s?\s*\d", re.IGNORECASE)  # captions are text




@dataclass
class Line:
    text: str
    size: float
    bold: bool
    bbox: tuple[float, float, float, float]


@dataclass
class RawPage:
    number: int
    height: float
    blocks: list[list[Line]]
    tables: list[TableGrid] = field(default_factory=list)
    ocr: list = field(default_factory=list)  # ocr.OcrBlock: text the text layer lacks (ingest/ocr.py)


@dataclass
class Item:
    """A block in the making: a heading, a paragraph or a table, with its place on the page."""

    kind: str
    bbox: tuple[float, float, float, float]
    text: str = ""
    level: int = 0
    table: TableGrid | None = None


def _in_band(line: Line, height: float) -> bool:
    return line.bbox[3] <= height * MARGIN_BAND or line.bbox[1] >= height * (1 - MARGIN_BAND)


def _margin_texts(pages: list[RawPage]) -> list[list[str]]:
    """Each page's header and footer lines (where printed page numbers are)."""
    return [[ln.text for b in p.blocks for ln in b if _in_band(ln, p.height)] for p in pages]


def strip_furniture(page: RawPage, furniture: set[str]) -> RawPage:
    """The page without page numbers and running headers/footers in its margin bands (a copy)."""
    kept = []
    for block in page.blocks:
        block = [
            ln for ln in block
            if not (_in_band(ln, page.height)
                    and (cleanup.is_page_number(ln.text) or cleanup.furniture_key(ln.text) in furniture))
        ]
        if block:
            kept.append(block)
    return replace(page, blocks=kept)


def _body_size(pages: list[RawPage]) -> float:
    weight: Counter[float] = Counter()
    for p in pages:
        for block in p.blocks:
            for ln in block:
                weight[ln.size] += len(ln.text)
    return weight.most_common(1)[0][0] if weight else 10.0


def _heading_levels(pages: list[RawPage], body: float) -> dict[float, int]:
    """Larger type means a higher heading: map each heading font size to a level 1..MAX_LEVELS-1.

    Only sizes used on two or more pages count: a size seen on one page only is display type (a
    cover title, a slogan, a big figure in an infographic), and as a level-1 heading it would head
    the section path of the whole document."""
    pages_by_size: dict[float, set[int]] = {}
    for p in pages:
        for b in p.blocks:
            for ln in b:
                if ln.size >= body * HEADING_RATIO and _heading_text(ln.text):
                    pages_by_size.setdefault(ln.size, set()).add(p.number)
    recurring = [size for size, where in pages_by_size.items() if len(where) >= 2 or len(pages) == 1]
    ordered = sorted(recurring, reverse=True)
    return {s: min(i + 1, MAX_LEVELS - 1) for i, s in enumerate(ordered)}


def _heading_text(text: str) -> bool:
    letters = sum(c.isalpha() for c in text)
    return letters >= 2 and letters >= 0.4 * len(text) and len(text) <= MAX_HEADING_CHARS


def _reads_like_heading(text: str, lines: int) -> bool:
    """Large type that reads like a sentence (a pull quote, an intro paragraph, a bullet) is text."""
    return lines <= 3 and len(text) <= MAX_HEADING_CHARS and not text.endswith((".", ",", ";")) \
        and not text.startswith(("\u2022", "-", "\u2013", "*", "\u25aa", "\u25cf")) and not _CAPTION.match(text)


def _line_level(line: Line, block: list[Line], body: float, levels: dict[float, int]) -> int:
    """The heading level of a line, 0 for body text."""
    if not _heading_text(line.text):
        return 0
    if line.size in levels:
        return levels[line.size]
    # A bold line at body size standing alone as its block is a run-in heading ("Targets").
    if line.bold and len(block) == 1 and abs(line.size - body) <= 0.6 and len(line.text) <= 80 \
            and not line.text.rstrip().endswith((".", ",", ";", ":")):
        return min(len(levels) + 1, MAX_LEVELS)
    return 0


def _page_items(page: RawPage, body: float, levels: dict[float, int], vocab: set[str]) -> list[Item]:
    items: list[Item] = []
    for block in page.blocks:
        run: list[Line] = []
        run_level = -1

        def flush() -> None:
            if not run:
                return
            bbox = (min(l.bbox[0] for l in run), min(l.bbox[1] for l in run),
                    max(l.bbox[2] for l in run), max(l.bbox[3] for l in run))
            text = cleanup.join_lines([l.text for l in run], vocab)
            if run_level > 0 and _reads_like_heading(text, len(run)):
                items.append(Item("heading", bbox, text, run_level))
            else:
                items.append(Item("text", bbox, text))

        for line in block:
            level = _line_level(line, block, body, levels)
            bullet = line.text.startswith(_BULLETS)  # each list item is a paragraph of its own
            if level != run_level or bullet or (level > 0 and run and line.bbox[1] - run[-1].bbox[3] > line.size):
                flush()
                run = []
                run_level = level
            run.append(line)
        flush()
    for table in page.tables:  # place each table before the first text below its top edge
        tx0, ty0, tx1, _ = table.bbox
        at = next(
            (i for i, it in enumerate(items) if it.bbox[1] >= ty0 - 2 and it.bbox[0] < tx1 and it.bbox[2] > tx0),
            len(items),
        )
        items.insert(at, Item("table", table.bbox, table=table))
    for block in page.ocr:  # OCR text goes where its image is, like a table
        x0, y0, x1, _ = block.bbox
        at = next((i for i, it in enumerate(items) if it.bbox[1] >= y0 - 2 and it.bbox[0] < x1 and it.bbox[2] > x0),
                  len(items))
        items.insert(at, Item("ocr", block.bbox, cleanup.join_lines(list(block.lines), vocab)))
    return items


def _join_split_tables(pages_items: list[list[Item]]) -> None:
    """A table that ends one page and starts the next without its header gets the header back."""
    for prev_items, items in zip(pages_items, pages_items[1:]):
        if not prev_items or not items or prev_items[-1].kind != "table" or items[0].kind != "table":
            continue
        prev, cur = prev_items[-1].table, items[0].table
        if is_headerless_continuation(prev, cur):
            items[0].table = attach_header(prev, cur)


@dataclass
class Style:
    """What parsing decides from the whole document and then applies to every page."""

    labels: list[str]
    furniture: set[str]
    body: float
    levels: dict[float, int]
    vocab: set[str]


def page_style(doc, pages: list[RawPage]) -> Style:
    """Printed page labels, running headers/footers, body size, heading levels and the vocabulary for
    line-end hyphens, from all pages of the document."""
    margins = _margin_texts(pages)
    labels = page_labels(doc, margins)
    furniture = cleanup.running_furniture(margins)
    stripped = [strip_furniture(p, furniture) for p in pages]
    body = _body_size(stripped)
    return Style(labels, furniture, body, _heading_levels(stripped, body),
                 cleanup.vocabulary(ln.text for p in stripped for b in p.blocks for ln in b))


def assemble(pages: list[RawPage], style: Style,
             before: list[Item] | None = None) -> tuple[list[PageContent], list[Item] | None]:
    """Pages in final form: headings, text, tables (headers put back on split ones; `before` is the
    items of the page before the first, whose table may continue here), OCR text. Also returns the
    last page's items, the `before` of the next call."""
    items = [_page_items(strip_furniture(p, style.furniture), style.body, style.levels, style.vocab) for p in pages]
    _join_split_tables(([before] if before is not None else []) + items)
    contents: list[PageContent] = []
    for p, page_items in zip(pages, items):
        blocks = [
            Block("table", it.table.markdown()) if it.kind == "table"
            else Block("text", it.text, ocr=True) if it.kind == "ocr" else Block(it.kind, it.text, it.level)
            for it in page_items
            if it.kind == "table" or it.text
        ]
        contents.append(PageContent(p.number, blocks, label=style.labels[p.number - 1] if style.labels else ""))
    return contents, (items[-1] if items else before)


def cover_title(first: RawPage) -> str:
    """The largest type on the first page, which on a report cover is its title."""
    lines = [ln for b in first.blocks for ln in b if _heading_text(ln.text)]
    if not lines:
        return ""
    top = max(ln.size for ln in lines)
    return " ".join(ln.text for ln in lines if ln.size == top)[:MAX_HEADING_CHARS]
