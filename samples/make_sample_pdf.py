"""Build the bundled sample report, samples/northwind_sustainability_2024.pdf, with PyMuPDF.

    python samples/make_sample_pdf.py [OUT.pdf]

The file holds known facts on known pages (see the table in docs / the sample questionnaire's gold
key): a cover, targets, governance, an emissions table split across the page break between pages 3
and 4 (the header row is printed on page 3 only, as real reports do), energy, water and frameworks.

`build_pdf` is the small layout engine behind it; tests/pdf_factory.py reuses it to write test PDFs,
so the sample and the tests exercise the same kind of file. Page items are tuples:

    ("h1", text) ("h2", text) ("h3", text)   headings, bold Helvetica at 20 / 15 / 12.5 pt
    ("p", text)                              a paragraph, 10 pt, wrapped to the text width
    ("lines", [line, ...])                   lines exactly as given (to place hyphens at line ends)
    ("table", header | None, rows)           a ruled table; header None prints only the rows
    ("space", points)                        vertical gap
"""

from __future__ import annotations

import sys
from pathlib import Path

PAGE_W, PAGE_H = 595, 842  # A4 in points
MARGIN = 60
BODY_SIZE = 10.0
LEADING = 1.45
HEADING_SIZES = {"h1": 20.0, "h2": 15.0, "h3": 12.5}


_ADVANCES: dict[str, tuple[object, dict[str, float]]] = {}  # font name -> (Font, advance of each character)


def _advance(fontname: str, ch: str) -> float:
    """One character's advance at size 1, as Font.text_length adds it up (the font's own glyph or its
    fallback's), looked up once per font and character: text_length calls into MuPDF for every
    character of every candidate line: writing the tests' PDFs cost more than ingesting them."""
    import pymupdf

    font, advances = _ADVANCES.get(fontname) or _ADVANCES.setdefault(fontname, (pymupdf.Font(fontname), {}))
    if ch not in advances:
        language = pymupdf.mupdf.fz_text_language_from_string(None)  # what text_length passes without one
        gid, used = pymupdf.mupdf.fz_encode_character_with_fallback(font.this, ord(ch), 0, language)
        advances[ch] = pymupdf.mupdf.fz_advance_glyph(used, gid, 0)
    return advances[ch]


def _wrap(text: str, width: float, fontname: str, size: float) -> list[str]:
    # Font.text_length's measure, not get_text_length, which counts a non-ASCII letter (é, ü, ß) at half
    # its width and let German and French lines run past the margin; ASCII widths are the same in both.
    # text_length sums the characters' advances left to right and then scales: a candidate line's sum
    # carries on from its line's, so the widths (and the lines) are bit for bit text_length's.
    lines: list[str] = []
    line, line_sum = "", 0.0
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        rest = f" {word}" if line else word
        total = line_sum
        for ch in rest:
            total += _advance(fontname, ch)
        if line and total * size > width:
            lines.append(line)
            line, line_sum = word, 0.0
            for ch in word:
                line_sum += _advance(fontname, ch)
        else:
            line, line_sum = candidate, total
    if line:
        lines.append(line)
    return lines


def _draw_table(page, y: float, header: list[str] | None, rows: list[list[str]]) -> float:
    """Draw a fully ruled table (so PyMuPDF's line-based table finder sees real cells); return new y."""
    body = ([header] if header else []) + rows
    ncols = max(len(r) for r in body)
    width = PAGE_W - 2 * MARGIN
    col_w = width / ncols
    row_h = BODY_SIZE * 2.2
    for r, row in enumerate(body):
        top = y + r * row_h
        bold = bool(header) and r == 0
        for c in range(ncols):
            x0 = MARGIN + c * col_w
            page.draw_rect((x0, top, x0 + col_w, top + row_h), color=(0, 0, 0), width=0.6)
            cell = row[c] if c < len(row) else ""
            page.insert_text(
                (x0 + 4, top + row_h * 0.68), cell, fontsize=BODY_SIZE - 1, fontname="hebo" if bold else "helv"
            )
    return y + len(body) * row_h + BODY_SIZE


def build_pdf(
    path: Path | str,
    pages: list[list[tuple]],
    *,
    header: str | None = None,
    page_numbers: bool = True,
) -> Path:
    """Write a PDF with one list of items per page (see the module docstring); return its path.

    `header` prints a running header at the top of every page; `page_numbers` prints the page
    number at the bottom centre, as layout artefacts the parser must remove."""
    import pymupdf

    path = Path(path)
    doc = pymupdf.open()
    width = PAGE_W - 2 * MARGIN
    for number, items in enumerate(pages, start=1):
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        if header:
            page.insert_text((MARGIN, 36), header, fontsize=8, fontname="helv", color=(0.4, 0.4, 0.4))
        if page_numbers:
            page.insert_text((PAGE_W / 2 - 5, PAGE_H - 30), str(number), fontsize=8, fontname="helv")
        y = MARGIN + 10
        for item in items:
            kind = item[0]
            if kind in HEADING_SIZES:
                size = HEADING_SIZES[kind]
                y += size * 0.6
                for line in _wrap(item[1], width, "hebo", size):
                    y += size * 1.2
                    page.insert_text((MARGIN, y), line, fontsize=size, fontname="hebo")
                y += size * 0.5
            elif kind in ("p", "lines"):
                lines = _wrap(item[1], width, "helv", BODY_SIZE) if kind == "p" else list(item[1])
                for line in lines:
                    y += BODY_SIZE * LEADING
                    page.insert_text((MARGIN, y), line, fontsize=BODY_SIZE, fontname="helv")
                y += BODY_SIZE * 0.9
            elif kind == "table":
                y = _draw_table(page, y + 4, item[1], item[2])
            elif kind == "space":
                y += float(item[1])
            else:
                raise ValueError(f"unknown page item {kind!r}")
            if y > PAGE_H - MARGIN:
                raise ValueError(f"page {number} overflows; move items to the next page")
    # Fixed dates and no random file id: the same pages always give the same bytes, so the committed
    # sample (and any hash-based chunk id in tests) only changes when its content does.
    doc.set_metadata({
        "title": "",
        "producer": "autofill samples",
        "creationDate": "D:20240901000000Z",
        "modDate": "D:20240901000000Z",
    })
    tmp = path.with_name(path.name + ".tmp")
    doc.save(tmp, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    tmp.replace(path)
    return path


# --------------------------------------------------------------------------- the Northwind sample

COMPANY = "Northwind Metals"
TABLE_HEADER = ["Year", "Scope 1 (kt CO2e)", "Scope 2 (kt CO2e)", "Total (kt CO2e)"]
TABLE_ROWS_P3 = [
    ["FY2020", "1,450", "820", "2,270"],
    ["FY2021", "1,390", "760", "2,150"],
    ["FY2022", "1,310", "690", "2,000"],
]
TABLE_ROWS_P4 = [
    ["FY2023", "1,210", "610", "1,820"],
    ["FY2024", "1,120", "540", "1,660"],
]

SAMPLE_PAGES: list[list[tuple]] = [
    [  # page 1: cover
        ("space", 160),
        ("h1", "Northwind Metals Sustainability Report 2024"),
        ("p", "This report covers the financial year ended 30 June 2024 (FY2024)."),
        ("p", "Northwind Metals mines and refines copper and nickel at three operations in Western "
              "Australia and employs about 4,200 people."),
    ],
    [  # page 2
        ("h1", "Climate strategy"),
        ("p", "Climate change is a material risk for our business and for the communities where we "
              "operate. Our strategy is to cut operational emissions, buy renewable electricity and "
              "work with customers on lower-carbon products."),
        ("h2", "Targets"),
        ("p", "Northwind Metals has committed to net zero Scope 1 and Scope 2 emissions by 2050."),
        ("p", "Our medium-term target is a 35% reduction in Scope 1 and Scope 2 emissions by FY2030 "
              "from the FY2020 baseline."),
        ("p", "We have not set a target for Scope 3 emissions."),
    ],
    [  # page 3
        ("h1", "Governance"),
        ("p", "The Board Sustainability Committee oversees climate-related risks and opportunities "
              "and meets four times a year."),
        ("p", "15% of the Chief Executive Officer's short-term incentive is linked to emission "
              "reduction milestones."),
        ("h1", "Performance"),
        ("h2", "Greenhouse gas emissions"),
        ("p", "Operational greenhouse gas emissions by financial year, on an operational control basis. "
              "Scope 2 emissions are market-based. Figures for earlier years are restated for the sale "
              "of the Harrow coal mine in FY2022, so that each year covers the same operations."),
        ("space", 250),  # the table runs to the foot of the page and continues overleaf
        ("table", TABLE_HEADER, TABLE_ROWS_P3),
    ],
    [  # page 4: the table continues without its header row
        ("table", None, TABLE_ROWS_P4),
        ("p", "Emissions fell in FY2024 as the Kestrel smelter switched to renewable electricity under "
              "a new power purchase agreement."),
    ],
    [  # page 5
        ("h1", "Energy and water"),
        ("p", "Renewable electricity made up 46% of our electricity consumption in FY2024."),
        ("p", "Total water withdrawal was 12.4 GL in FY2024."),
        ("h1", "Reporting frameworks"),
        ("p", "This report is prepared in line with the recommendations of the Task Force on "
              "Climate-related Financial Disclosures (TCFD)."),
        ("p", "Our emission reduction targets have not been validated by the Science Based Targets "
              "initiative (SBTi)."),
    ],
]


def build_sample(path: Path | str) -> Path:
    """Write the Northwind Metals sample report to `path`."""
    return build_pdf(path, SAMPLE_PAGES, header="Northwind Metals | Sustainability Report 2024")


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("northwind_sustainability_2024.pdf")
    build_sample(out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
