"""Page-aware PDF parsing: text in reading order, headings, tables as Markdown, layout clean-up.

Parser choice, measured with benchmarks/parsers.py on the 75 BHP pages (2-core machine shared with
other jobs; pages per wall-second on a quiet moment / pages per CPU-second under load):

    PyMuPDF plain text                    198 / 239      no tables, no fonts
    PyMuPDF text "dict" (fonts, sizes)    181 / 194      what headings need
    this module, tables off               114 / 101
    this module, tables "auto" (default)  6.5 / 7.8      table finder on ~10 tabular-looking pages
    PyMuPDF find_tables, lines only       4.6 / 6.1      finds none of BHP's tables (they are unruled)
    PyMuPDF find_tables, layout model     2.7 / 1.5      every page; finds BHP's emissions tables
    pymupdf4llm layout mode               2.2 / 1.8
    pdfplumber text + tables              3.5 / 5.8      finds none of BHP's tables

So: PyMuPDF text extraction for everything (fonts and sizes give headings), and PyMuPDF's
layout-gated table finder only on pages whose words look tabular (tables.py). Embedding the ~540
chunks of those pages takes ~27 s at ~20 chunks/s, so parsing stays a small share of an ingest;
`ingest.table_pages = "off"` makes it ~15x cheaper still, "all" finds text-only tables too at
~0.3-1 s a page. Nothing downloads anything: the layout model ships inside the PyMuPDF wheel.

Licence trade-off: PyMuPDF (and pymupdf4llm) are AGPL-3.0, accepted for this internal tool; a
product shipped to third parties would need Artifex's commercial licence or a move to pdfplumber
(MIT), which is slower and, on these reports, finds no tables without tuning.

Pages are numbered 1..N by their position in the file, whatever is printed on them; the printed
number is kept beside it (PageContent.label, from ingest/page_labels.py). Pages without a text layer
and large images on pages with one are read by OCR (ingest/ocr.py; blocks marked `ocr`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from autofill.errors import InputError
from autofill.ingest import cleanup, ocr
from autofill.ingest.page_labels import page_labels
from autofill.ingest.tables import TableGrid, attach_header, find_tables, is_headerless_continuation
from autofill.records import Block, PageContent, ParsedDocument
from autofill.settings import IngestSettings
from autofill.hashing import file_sha256

MARGIN_BAND = 0.09  # share of the page height at top and bottom where running headers/footers live
HEADING_RATIO = 1.15  # a line this much larger than body text is a heading
MAX_HEADING_CHARS = 160
MAX_LEVELS = 6
_BULLETS = ("\u2022", "\u25aa", "\u25cf", "\u25e6", "\u2023", "\u00b7 ")  # base-14 fonts render "•" as "·"
_CAPTION = re.compile(r"^(figure|fig\.|table|chart|source|note)s?\s*\d", re.IGNORECASE)  # captions are text




@dataclass
class _Line:
    text: str
    size: float
    bold: bool
    bbox: tuple[float, float, float, float]


@dataclass
class _RawPage:
    number: int
    height: float
    blocks: list[list[_Line]]
    tables: list[TableGrid] = field(default_factory=list)
    ocr: list = field(default_factory=list)  # ocr.OcrBlock: text the text layer lacks (ingest/ocr.py)


@dataclass
class _Item:
    """A block in the making: a heading, a paragraph or a table, with its place on the page."""

    kind: str
    bbox: tuple[float, float, float, float]
    text: str = ""
    level: int = 0
    table: TableGrid | None = None


# --------------------------------------------------------------------------- opening


def _open(path: Path):
    """Open a PDF or raise InputError with one line saying what is wrong with it. Messages leave out
    the file name: callers print "<path>: <message>"."""
    import pymupdf

    # MuPDF prints repair notices for damaged files on stderr; our own one-line errors say enough.
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    if not path.exists():
        raise InputError("file not found")
    if not path.is_file():
        raise InputError("not a file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}") from None
    if not head:
        raise InputError("empty file (0 bytes)")
    if b"%PDF-" not in head:  # the spec lets junk precede the header, within the first 1024 bytes
        raise InputError("not a PDF file (no %PDF- header)")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception:
        raise InputError("corrupt PDF: MuPDF cannot open it") from None
    if doc.needs_pass:
        doc.close()
        raise InputError("encrypted PDF: a password is needed to open it")
    if doc.page_count == 0:
        doc.close()
        raise InputError("empty PDF (0 pages)")
    return doc


# --------------------------------------------------------------------------- extraction


def _read_lines(page, number: int) -> _RawPage:
    """A page's text lines in blocks, with font size and weight (all of them: tables are found later)."""
    import pymupdf

    flags = pymupdf.TEXT_MEDIABOX_CLIP  # expand ligatures, no images
    blocks: list[list[_Line]] = []
    for block in page.get_text("dict", flags=flags)["blocks"]:
        lines = []
        for line in block.get("lines", ()):
            spans = [s for s in line["spans"] if s["text"].strip()]
            if not spans:
                continue
            text = cleanup.clean_spaces("".join(s["text"] for s in line["spans"]))
            weight = Counter()
            for s in spans:
                weight[round(s["size"] * 2) / 2] += len(s["text"])
            bold = all(s["flags"] & 16 or "bold" in s["font"].lower() for s in spans)
            lines.append(_Line(text, weight.most_common(1)[0][0], bold, tuple(line["bbox"])))
        if lines:
            blocks.append(lines)
    return _RawPage(number, page.rect.height, blocks)


def _read_tables(page, raw: _RawPage, settings: IngestSettings, after_table: bool = False) -> None:
    """Find the page's tables and drop the lines they hold (the table's Markdown carries that text)."""
    import pymupdf

    if not (settings.extract_tables and settings.table_pages != "off"):
        return
    words = page.get_text("words", flags=pymupdf.TEXT_MEDIABOX_CLIP)
    raw.tables = find_tables(page, words, settings.table_pages, after_table)
    rects = [t.bbox for t in raw.tables]
    if not rects:
        return

    def in_table(line: _Line) -> bool:
        cx, cy = (line.bbox[0] + line.bbox[2]) / 2, (line.bbox[1] + line.bbox[3]) / 2
        return any(r[0] <= cx <= r[2] and r[1] <= cy <= r[3] for r in rects)

    raw.blocks = [kept for kept in ([ln for ln in b if not in_table(ln)] for b in raw.blocks) if kept]


def _read_page(page, number: int, settings: IngestSettings, after_table: bool = False) -> _RawPage:
    raw = _read_lines(page, number)
    _read_tables(page, raw, settings, after_table)
    return raw


def _add_ocr(page, raw: _RawPage, settings: IngestSettings) -> None:
    """OCR what the text layer lacks on this page (ingest/ocr.py decides where, if anywhere)."""
    known = [ln.bbox for b in raw.blocks for ln in b] + [t.bbox for t in raw.tables]
    chars = sum(len(ln.text) for b in raw.blocks for ln in b) + 200 * len(raw.tables)
    raw.ocr = ocr.read_page(page, known, chars, settings)


def _why_no_ocr_text(settings: IngestSettings) -> str:
    if not settings.ocr:
        return "OCR is off: ingest.ocr = false"
    if not ocr.available():
        return "OCR unavailable: Tesseract is not installed"
    failed = ocr.failures()
    return failed[0] if failed else "OCR found none either"


def _in_band(line: _Line, height: float) -> bool:
    return line.bbox[3] <= height * MARGIN_BAND or line.bbox[1] >= height * (1 - MARGIN_BAND)


def _margin_texts(pages: list[_RawPage]) -> list[list[str]]:
    """Each page's header and footer lines (where printed page numbers are)."""
    return [[ln.text for b in p.blocks for ln in b if _in_band(ln, p.height)] for p in pages]


def _stripped(page: _RawPage, furniture: set[str]) -> _RawPage:
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


def _body_size(pages: list[_RawPage]) -> float:
    weight: Counter[float] = Counter()
    for p in pages:
        for block in p.blocks:
            for ln in block:
                weight[ln.size] += len(ln.text)
    return weight.most_common(1)[0][0] if weight else 10.0


def _heading_levels(pages: list[_RawPage], body: float) -> dict[float, int]:
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


def _line_level(line: _Line, block: list[_Line], body: float, levels: dict[float, int]) -> int:
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


def _page_items(page: _RawPage, body: float, levels: dict[float, int], vocab: set[str]) -> list[_Item]:
    items: list[_Item] = []
    for block in page.blocks:
        run: list[_Line] = []
        run_level = -1

        def flush() -> None:
            if not run:
                return
            bbox = (min(l.bbox[0] for l in run), min(l.bbox[1] for l in run),
                    max(l.bbox[2] for l in run), max(l.bbox[3] for l in run))
            text = cleanup.join_lines([l.text for l in run], vocab)
            if run_level > 0 and _reads_like_heading(text, len(run)):
                items.append(_Item("heading", bbox, text, run_level))
            else:
                items.append(_Item("text", bbox, text))

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
        items.insert(at, _Item("table", table.bbox, table=table))
    for block in page.ocr:  # OCR text goes where its image is, like a table
        x0, y0, x1, _ = block.bbox
        at = next((i for i, it in enumerate(items) if it.bbox[1] >= y0 - 2 and it.bbox[0] < x1 and it.bbox[2] > x0),
                  len(items))
        items.insert(at, _Item("ocr", block.bbox, cleanup.join_lines(list(block.lines), vocab)))
    return items


def _join_split_tables(pages_items: list[list[_Item]]) -> None:
    """A table that ends one page and starts the next without its header gets the header back."""
    for prev_items, items in zip(pages_items, pages_items[1:]):
        if not prev_items or not items or prev_items[-1].kind != "table" or items[0].kind != "table":
            continue
        prev, cur = prev_items[-1].table, items[0].table
        if is_headerless_continuation(prev, cur):
            items[0].table = attach_header(prev, cur)


@dataclass
class _Style:
    """What parsing decides from the whole document and then applies to every page."""

    labels: list[str]
    furniture: set[str]
    body: float
    levels: dict[float, int]
    vocab: set[str]


def _style(doc, pages: list[_RawPage]) -> _Style:
    """Printed page labels, running headers/footers, body size, heading levels and the vocabulary for
    line-end hyphens, from all pages of the document."""
    margins = _margin_texts(pages)
    labels = page_labels(doc, margins)
    furniture = cleanup.running_furniture(margins)
    stripped = [_stripped(p, furniture) for p in pages]
    body = _body_size(stripped)
    return _Style(labels, furniture, body, _heading_levels(stripped, body),
                  cleanup.vocabulary(ln.text for p in stripped for b in p.blocks for ln in b))


def _assemble(pages: list[_RawPage], style: _Style,
              before: list[_Item] | None = None) -> tuple[list[PageContent], list[_Item] | None]:
    """Pages in final form: headings, text, tables (headers put back on split ones; `before` is the
    items of the page before the first, whose table may continue here), OCR text. Also returns the
    last page's items, the `before` of the next call."""
    items = [_page_items(_stripped(p, style.furniture), style.body, style.levels, style.vocab) for p in pages]
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


def _cover_title(first: _RawPage) -> str:
    """The largest type on the first page, which on a report cover is its title."""
    lines = [ln for b in first.blocks for ln in b if _heading_text(ln.text)]
    if not lines:
        return ""
    top = max(ln.size for ln in lines)
    return " ".join(ln.text for ln in lines if ln.size == top)[:MAX_HEADING_CHARS]


# --------------------------------------------------------------------------- entry points


class PdfReader:
    """One PDF read page batch by page batch, so that its first pages can be chunked and embedded while
    the rest is parsed (ingest/parse_helper.py streams them). parse_pdf is this reader in one batch.

    Opening reads every page's text lines (fast: ~150 pages/s); `read(n)` then finds the tables of the
    next n pages (the slow part), runs OCR where needed and returns them in final form. Some decisions
    need the whole document (body size and heading levels, running headers/footers, printed page
    labels, the vocabulary that decides line-end hyphens), and tables take their text out of those
    counts; so batches are assembled with these decisions taken from all lines before any table was
    found, and `finish()` takes them again from the final pages and assembles the whole document.
    `exact` says whether that equals what the batches gave (nearly always: table cells rarely change
    a document's body size or headings); where it does not, the caller uses the document `finish()`
    returns, which is always exactly what parsing the file in one go gives."""

    def __init__(self, path: Path, settings: IngestSettings):
        self.path, self.settings = Path(path), settings
        if settings.table_pages not in ("auto", "all", "off"):
            raise InputError(f"unknown ingest.table_pages {settings.table_pages!r} (auto, all, off)")
        self._doc = _open(self.path)
        try:
            self._raw = [_read_lines(page, i) for i, page in enumerate(self._doc, start=1)]
            self._guess = _style(self._doc, self._raw)
        except Exception as exc:  # damaged content streams surface while reading pages
            self._doc.close()
            raise InputError(f"corrupt PDF: cannot read its pages ({exc})") from None
        self.sha256 = file_sha256(self.path)
        self.page_count = len(self._raw)
        self.pages: list[PageContent] = []  # what read() has returned so far
        self._before: list[_Item] | None = None

    @property
    def done(self) -> bool:
        return len(self.pages) >= self.page_count

    def read(self, n: int) -> list[PageContent]:
        """The next `n` pages (fewer at the end of the file)."""
        start = len(self.pages)
        raw = self._raw[start:start + n]
        try:
            for p in raw:
                page = self._doc[p.number - 1]
                # A table ending low on the previous page may continue at the top of this one.
                prev = self._raw[p.number - 2] if p.number > 1 else None
                after = bool(prev and prev.tables and prev.tables[-1].bbox[3] >= 0.65 * prev.height)
                _read_tables(page, p, self.settings, after_table=after)
                if self.settings.ocr:
                    _add_ocr(page, p, self.settings)
        except InputError:
            raise
        except Exception as exc:  # damaged content streams surface while reading pages
            raise InputError(f"corrupt PDF: cannot read its pages ({exc})") from None
        contents, self._before = _assemble(raw, self._guess, self._before)
        self.pages.extend(contents)
        return contents

    def finish(self) -> tuple[ParsedDocument, bool]:
        """The whole document (reading what read() has not), and whether it equals the pages read()
        returned. Raises InputError when no page has text."""
        while not self.done:
            self.read(64)
        try:
            style = _style(self._doc, self._raw)
            title = ((self._doc.metadata or {}).get("title", "") or "").strip()
        except Exception as exc:  # damaged page labels or metadata, as parse_pdf always said
            raise InputError(f"corrupt PDF: cannot read its pages ({exc})") from None
        contents, _ = _assemble(self._raw, style)
        if title.lower() in (self.path.stem.lower(), "untitled"):
            title = ""  # a file name or placeholder in the metadata says nothing; use the first heading
        empty = [c.page for c in contents if c.char_count < self.settings.min_page_chars]
        if len(empty) == len(contents):
            why = _why_no_ocr_text(self.settings)
            raise InputError(f"image-only PDF: no extractable text on any of {len(contents)} pages ({why})")
        if not title:
            title = _cover_title(_stripped(self._raw[0], style.furniture)) \
                or next((b.text for c in contents for b in c.blocks if b.kind == "heading"), "")
        doc = ParsedDocument(path=self.path, file_name=self.path.name, sha256=self.sha256, pages=contents,
                             page_count=len(contents), empty_pages=empty, title=title)
        return doc, contents == self.pages

    def close(self) -> None:
        self._doc.close()

    def __enter__(self) -> PdfReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def parse_pdf(
    path: Path, settings: IngestSettings, progress: Callable[[int, int], None] | None = None
) -> ParsedDocument:
    """Parse one PDF into pages of heading, text and table blocks. Raises InputError for files that
    are missing, not PDFs, corrupt, encrypted, without pages, or without text on any page.

    `progress(done, total)` is called after each page (for a progress bar)."""
    with PdfReader(path, settings) as reader:
        while not reader.done:
            reader.read(1)
            if progress:
                progress(len(reader.pages), reader.page_count)
        return reader.finish()[0]
