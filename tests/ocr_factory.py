"""PDFs for the OCR, page label and review pack tests, written with PyMuPDF (and Pillow for a chart).

make_scanned_pdf(path, pages) -> Path
    pages: one list of text lines per page; each page is rendered to a 150 dpi picture and placed in a
    new PDF without a text layer (a scanned report).
make_blank_scan_pdf(path) -> Path          one page that is a picture of nothing (a blank scan)
make_chart_page_pdf(path, prose, labels, values) -> Path
    one page with a text paragraph `prose` and, below it, a bar chart image (Pillow) whose title, bar
    labels and printed values exist only as pixels.
make_labelled_pdf(path, pages, labels) -> Path     pages of text with PDF page labels ("i", "ii", "1"...)
make_footer_numbered_pdf(path, pages, first_printed) -> Path
    pages of text whose footer prints "Annual report 2024   N" with N = first_printed + index.
"""

from __future__ import annotations

import io
from pathlib import Path


def _text_page(doc, lines: list[str], fontsize: float = 14):
    page = doc.new_page()
    y = 90
    for line in lines:
        page.insert_text((72, y), line, fontsize=fontsize)
        y += fontsize * 1.8
    return page


def make_scanned_pdf(path, pages: list[list[str]]) -> Path:
    import pymupdf

    src = pymupdf.open()
    for lines in pages:
        _text_page(src, lines)
    out = pymupdf.open()
    for page in src:
        pix = page.get_pixmap(dpi=150)
        target = out.new_page(width=page.rect.width, height=page.rect.height)
        target.insert_image(target.rect, stream=pix.tobytes("png"))
    out.save(str(path), deflate=True)
    return Path(path)


def make_blank_scan_pdf(path) -> Path:
    import pymupdf

    out = pymupdf.open()
    page = out.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 560), False)
    pix.set_rect(pix.irect, (236, 236, 230))
    page.insert_image(page.rect, stream=pix.tobytes("png"))
    out.save(str(path), deflate=True)
    return Path(path)


def chart_png(title: str, labels: list[str], values: list[str]) -> bytes:
    """A bar chart as a PNG: title, one bar per label with its value printed above it."""
    from PIL import Image, ImageDraw, ImageFont

    width, height = 1200, 700
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=40)
    draw.text((60, 30), title, fill="black", font=font)
    base, slot = 620, (width - 120) // len(labels)
    top = max(float(v.replace(",", "")) for v in values)
    for i, (label, value) in enumerate(zip(labels, values)):
        x = 60 + i * slot + 40
        h = int(380 * float(value.replace(",", "")) / top)
        draw.rectangle((x, base - h, x + slot - 100, base), fill=(40, 110, 170))
        draw.text((x, base - h - 50), value, fill="black", font=font)
        draw.text((x, base + 15), label, fill="black", font=font)
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return buffer.getvalue()


def make_chart_page_pdf(path, prose: str, title: str, labels: list[str], values: list[str]) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 200), prose, fontsize=11)
    page.insert_image(pymupdf.Rect(72, 220, 523, 483), stream=chart_png(title, labels, values))
    doc.save(str(path), deflate=True)
    return Path(path)


def make_labelled_pdf(path, pages: list[str], labels: list[dict]) -> Path:
    """`labels`: PyMuPDF page label rules, e.g. [{"startpage": 0, "style": "r"}, {"startpage": 2, "style": "D"}]."""
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 523, 700), text, fontsize=11)
    doc.set_page_labels(labels)
    doc.save(str(path))
    return Path(path)


def make_footer_numbered_pdf(path, pages: list[str], first_printed: int, unnumbered: tuple[int, ...] = ()) -> Path:
    """Footers print "Annual report 2024   N" (N = first_printed + index); pages in `unnumbered`
    (0-based) have no footer (a cover)."""
    import pymupdf

    doc = pymupdf.open()
    for i, text in enumerate(pages):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 700), text, fontsize=11)
        if i not in unnumbered:
            page.insert_text((72, page.rect.height - 30), f"Annual report 2024   {first_printed + i}", fontsize=9)
    doc.save(str(path))
    return Path(path)
