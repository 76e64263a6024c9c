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

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from autofill.errors import InputError
from autofill.ingest import cleanup, ocr
from autofill.ingest.pdf_layout import Item, Line, RawPage, assemble, cover_title, page_style, strip_furniture
from autofill.ingest.tables import find_tables
from autofill.records import PageContent, ParsedDocument
from autofill.settings import IngestSettings
from autofill.hashing import file_sha256

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


def _read_lines(page, number: int) -> RawPage:
    """A page's text lines in blocks, with font size and weight (all of them: tables are found later)."""
    import pymupdf

    flags = pymupdf.TEXT_MEDIABOX_CLIP  # expand ligatures, no images
    blocks: list[list[Line]] = []
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
            lines.append(Line(text, weight.most_common(1)[0][0], bold, tuple(line["bbox"])))
        if lines:
            blocks.append(lines)
    return RawPage(number, page.rect.height, blocks)


def _read_tables(page, raw: RawPage, settings: IngestSettings, after_table: bool = False) -> None:
    """Find the page's tables and drop the lines they hold (the table's Markdown carries that text)."""
    import pymupdf

    if not (settings.extract_tables and settings.table_pages != "off"):
        return
    words = page.get_text("words", flags=pymupdf.TEXT_MEDIABOX_CLIP)
    raw.tables = find_tables(page, words, settings.table_pages, after_table)
    rects = [t.bbox for t in raw.tables]
    if not rects:
        return

    def in_table(line: Line) -> bool:
        cx, cy = (line.bbox[0] + line.bbox[2]) / 2, (line.bbox[1] + line.bbox[3]) / 2
        return any(r[0] <= cx <= r[2] and r[1] <= cy <= r[3] for r in rects)

    raw.blocks = [kept for kept in ([ln for ln in b if not in_table(ln)] for b in raw.blocks) if kept]


def _read_page(page, number: int, settings: IngestSettings, after_table: bool = False) -> RawPage:
    raw = _read_lines(page, number)
    _read_tables(page, raw, settings, after_table)
    return raw


def _add_ocr(page, raw: RawPage, settings: IngestSettings) -> None:
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
            self._guess = page_style(self._doc, self._raw)
        except Exception as exc:  # damaged content streams surface while reading pages
            self._doc.close()
            raise InputError(f"corrupt PDF: cannot read its pages ({exc})") from None
        self.sha256 = file_sha256(self.path)
        self.page_count = len(self._raw)
        self.pages: list[PageContent] = []  # what read() has returned so far
        self._before: list[Item] | None = None

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
        contents, self._before = assemble(raw, self._guess, self._before)
        self.pages.extend(contents)
        return contents

    def finish(self) -> tuple[ParsedDocument, bool]:
        """The whole document (reading what read() has not), and whether it equals the pages read()
        returned. Raises InputError when no page has text."""
        while not self.done:
            self.read(64)
        try:
            style = page_style(self._doc, self._raw)
            title = ((self._doc.metadata or {}).get("title", "") or "").strip()
        except Exception as exc:  # damaged page labels or metadata, as parse_pdf always said
            raise InputError(f"corrupt PDF: cannot read its pages ({exc})") from None
        contents, _ = assemble(self._raw, style)
        if title.lower() in (self.path.stem.lower(), "untitled"):
            title = ""  # a file name or placeholder in the metadata says nothing; use the first heading
        empty = [c.page for c in contents if c.char_count < self.settings.min_page_chars]
        if len(empty) == len(contents):
            why = _why_no_ocr_text(self.settings)
            raise InputError(f"image-only PDF: no extractable text on any of {len(contents)} pages ({why})")
        if not title:
            title = cover_title(strip_furniture(self._raw[0], style.furniture)) \
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
