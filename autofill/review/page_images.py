"""Images of cited PDF pages with the cited passage highlighted, for the review report.

A chunk spans many lines and may have been cleaned up at ingest (tables turned into Markdown,
headings marked), so it is never searched for whole: it is cut into sentences and table cells, each
is searched on the page (PyMuPDF's search crosses line ends and hyphenation), and long sentences
that are not found are retried as shorter word windows. Highlights are added to an in-memory copy
of the PDF and removed after rendering; the source file is only ever read. Pages are written as
palette PNGs: a third of the size of a full-colour PNG and as legible (see pixmap_to_palette_png)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from autofill.pdflib import import_pymupdf


# 16 roughens anti-aliased letters on coloured panels; 64 gains nothing visible.
PALETTE_COLORS = 32
HIGHLIGHT_RGB = (1.0, 0.84, 0.0)  # the amber a reviewer expects from a text marker
DEFAULT_DPI = 90
MAX_SEARCHES_PER_PASSAGE = 80
_MIN_FRAGMENT_CHARS = 16
_MIN_FRAGMENT_WORDS = 3
_WINDOW_WORDS = 7
_ANCHOR_CHARS = 50  # fragments this long are taken to occur once on a page
_ANCHOR_LINES = 2  # how far (in lines) from the anchors a short fragment's hit may lie
_MARKDOWN = re.compile(r"(\*\*|__|`|^#+\s*|^\s*[-*\u2022]\s+|^\s*\d+[.)]\s+)", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def passage_fragments(text: str) -> list[str]:
    """Distinctive pieces of a chunk worth searching for: sentences and table cells with at least
    a few words, Markdown removed, whitespace collapsed, longest first within each line order."""
    pieces: list[str] = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or set(line) <= set("|-: "):
            continue  # blank line or a Markdown table rule
        cells = [c for c in line.split("|")] if line.count("|") >= 2 else [line]
        for cell in cells:
            cell = _MARKDOWN.sub(" ", cell)
            for sentence in _SENTENCE_END.split(cell):
                # Trailing punctuation is dropped: the chunk may end a sentence where the page goes on.
                sentence = " ".join(sentence.split()).rstrip(".,;:!?")
                if len(sentence) >= _MIN_FRAGMENT_CHARS and len(sentence.split()) >= _MIN_FRAGMENT_WORDS:
                    if sentence not in pieces:
                        pieces.append(sentence)
    return pieces


def word_windows(fragment: str, size: int = _WINDOW_WORDS) -> list[str]:
    """Non-overlapping windows of `size` words (the last one may be shorter but not tiny)."""
    words = fragment.split()
    out = []
    for i in range(0, len(words), size):
        window = " ".join(words[i:i + size]).rstrip(".,;:!?")
        if len(window) >= _MIN_FRAGMENT_CHARS and len(window.split()) >= _MIN_FRAGMENT_WORDS:
            out.append(window)
    return out


def search_textpage(page):
    """The page's text layer, built once for all searches on it (with the flags PyMuPDF's own
    search_for uses: hyphenated line ends joined, ligatures kept); building it dominates search time."""
    pymupdf = import_pymupdf()

    flags = (pymupdf.TEXT_DEHYPHENATE | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_PRESERVE_LIGATURES
             | pymupdf.TEXT_MEDIABOX_CLIP)
    return page.get_textpage(flags=flags)


def find_passage_quads(page, text: str, textpage=None) -> list:
    """Quads covering the parts of `text` found on a PyMuPDF page (empty when none is found)."""
    textpage = textpage or search_textpage(page)
    found: list[tuple[str, list]] = []  # (fragment searched, its hits)
    searches = 0
    for fragment in passage_fragments(text):
        if searches >= MAX_SEARCHES_PER_PASSAGE:
            break
        searches += 1
        hits = page.search_for(fragment, quads=True, textpage=textpage)
        if hits:
            found.append((fragment, hits))
        elif len(fragment.split()) > _WINDOW_WORDS:
            # Whole sentences can miss on one extraction quirk (a footnote digit, a ligature, a line
            # cleaned at ingest); shorter windows still find the rest of the sentence.
            for window in word_windows(fragment):
                if searches >= MAX_SEARCHES_PER_PASSAGE:
                    break
                searches += 1
                hits = page.search_for(window, quads=True, textpage=textpage)
                if hits:
                    found.append((window, hits))
    return _near_anchors(found)


def _near_anchors(found: list[tuple[str, list]]) -> list:
    """Drop hits of short, common fragments ("Carbon offsets will be used as required") that lie far
    from where the passage's long, distinctive fragments were found: a sentence repeated elsewhere
    on the page must not be highlighted as if it were part of the cited passage."""
    anchors = [q for frag, hits in found if len(frag) >= _ANCHOR_CHARS for q in hits]
    if not anchors:
        return [q for _, hits in found for q in hits]
    line = max(q.rect.height for q in anchors)
    top = min(q.rect.y0 for q in anchors) - _ANCHOR_LINES * line
    bottom = max(q.rect.y1 for q in anchors) + _ANCHOR_LINES * line
    out = list(anchors)
    for frag, hits in found:
        if len(frag) < _ANCHOR_CHARS:
            out.extend(q for q in hits if q.rect.y1 >= top and q.rect.y0 <= bottom)
    return out


@dataclass
class RenderedPage:
    image: Path  # the palette PNG written
    width: int
    height: int
    highlighted: bool  # at least part of the passage was found and highlighted


class PageRenderer:
    """Renders (file, page, passages) once each into `out_dir`; reuses the PNG when the same page is
    asked for with the same highlight again (many questions cite the same passage)."""

    def __init__(self, out_dir: Path, dpi: int = DEFAULT_DPI, colors: int = PALETTE_COLORS):
        self.out_dir = Path(out_dir)
        self.dpi = dpi
        self.colors = colors
        self._docs: dict[Path, object] = {}
        self._done: dict[tuple, RenderedPage] = {}
        # (pdf, page, passages) -> its page, so a passage cited by many questions is searched on its
        # page once: the text search dominated a long questionnaire's report (benchmarks/run_rows.py).
        self._asked: dict[tuple, RenderedPage] = {}

    def _open(self, pdf: Path):
        pymupdf = import_pymupdf()

        doc = self._docs.get(pdf)
        if doc is None:
            # Opened from bytes: annotations are added to this in-memory copy and never saved.
            doc = pymupdf.open(stream=pdf.read_bytes(), filetype="pdf")
            self._docs[pdf] = doc
        return doc

    def page_count(self, pdf: Path) -> int:
        return self._open(pdf).page_count

    def render(self, pdf: Path, file_name: str, page_number: int, passages: list[str]) -> RenderedPage:
        """PNG of 1-based `page_number` of `pdf` with every passage in `passages` highlighted."""
        asked = (str(pdf), page_number, tuple(passages))
        if asked in self._asked:
            return self._asked[asked]
        doc = self._open(pdf)
        if doc.needs_pass:
            raise ValueError("the PDF is password-protected")
        if not 1 <= page_number <= doc.page_count:
            raise ValueError(f"page {page_number} is outside the PDF's {doc.page_count} pages")
        page = doc[page_number - 1]
        quads = []
        textpage = search_textpage(page) if passages else None
        for text in passages:
            quads.extend(find_passage_quads(page, text, textpage))
        rects = tuple(sorted({tuple(round(v, 1) for v in q.rect) for q in quads}))
        key = (str(pdf), page_number, rects)
        if key in self._done:
            self._asked[asked] = self._done[key]
            return self._done[key]
        annot = None
        if quads:
            annot = page.add_highlight_annot(quads)
            annot.set_colors(stroke=HIGHLIGHT_RGB)
            annot.set_opacity(0.55)
            annot.update()
        try:
            pix = page.get_pixmap(dpi=self.dpi, annots=True)
        finally:
            if annot is not None:
                page.delete_annot(annot)
        digest = hashlib.sha1(repr(key).encode()).hexdigest()[:10]
        stem = re.sub(r"[^A-Za-z0-9]+", "-", Path(file_name).stem).strip("-")[:60] or "document"
        target = self.out_dir / f"{stem}-p{page_number}-{digest}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        # Full-colour PNGs of report pages run to ~240 kB each (100 MB for a long questionnaire);
        # reports are opened and shared, so pages are reduced to a palette first.
        target.write_bytes(pixmap_to_palette_png(pix, self.colors))
        rendered = RenderedPage(image=target, width=pix.width, height=pix.height, highlighted=bool(quads))
        self._done[key] = self._asked[asked] = rendered
        return rendered

    def close(self) -> None:
        for doc in self._docs.values():
            doc.close()
        self._docs.clear()


def pixmap_to_palette_png(pix, colors: int = PALETTE_COLORS) -> bytes:
    """A rendered page as an indexed PNG of at most `colors` colours.

    Cited pages are mostly text on a few flat backgrounds, so a small palette keeps letter edges sharp
    where JPEG smears them (quality 75 saved only ~20% on BHP pages; this saves ~65%). Pillow's fast
    octree quantizer was both smaller and faster than median cut here; no dithering, which would only
    add noise to text."""
    import io

    from PIL import Image

    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    paletted = image.quantize(colors=colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    paletted.save(buffer, format="PNG")
    return buffer.getvalue()
