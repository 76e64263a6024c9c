"""PDFs for tests, written with PyMuPDF into a folder the test gives (usually tmp_path).

    from tests.pdf_factory import make_pdf, make_table_pdf, make_sample_company_pdf, ...

make_pdf(path, pages, header=None, page_numbers=True) -> Path
    pages: one list of items per page, items as in samples/make_sample_pdf.py:
      ("h1"|"h2"|"h3", text)  heading (bold, 20 / 15 / 12.5 pt; body text is 10 pt)
      ("p", text)             paragraph, wrapped
      ("lines", [str, ...])   lines exactly as given (e.g. "... emis-", "sions ...")
      ("table", header|None, rows)  ruled table PyMuPDF's find_tables detects; header None = rows only
      ("space", points)
    header: running header printed on every page; page_numbers: page number in the footer.
make_text_pdf(path, texts) -> Path          one paragraph per page, e.g. ["alpha", "beta"]
make_table_pdf(path, header_on_second=False) -> Path
    3 pages: p1 intro; p2 heading "Emissions" + table TABLE_HEADER + TABLE_ROWS[:3];
    p3 the same table continued (TABLE_ROWS[3:], header repeated only if header_on_second) + text.
make_big_table_pdf(path, rows=28) -> Path    one long table on one page (longer than a 1,000-char chunk)
make_sample_company_pdf(path) -> Path        the bundled Northwind Metals sample (5 pages)
make_encrypted_pdf(path) -> Path             needs a password ("secret") to open
make_corrupt_pdf(path) -> Path               starts like a PDF, the rest is garbage
make_not_pdf(path) -> Path                   a text file named .pdf
make_image_only_pdf(path, pages=2) -> Path   pages that are pictures of text (no text layer)
make_empty_pdf(path) -> Path                 a well-formed PDF with zero pages
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "make_sample_pdf.py"
_spec = importlib.util.spec_from_file_location("autofill_sample_builder", _SAMPLE)
sample_builder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sample_builder)

build_pdf = sample_builder.build_pdf

TABLE_HEADER = ["Site", "Scope 1 (kt)", "Scope 2 (kt)", "Water (GL)"]
TABLE_ROWS = [
    ["Alpha mine", "120", "45", "3.1"],
    ["Bravo smelter", "310", "95", "1.2"],
    ["Charlie port", "15", "8", "0.4"],
    ["Delta refinery", "205", "60", "2.2"],
    ["Echo mill", "88", "30", "0.9"],
]


def make_pdf(path, pages: list[list[tuple]], header: str | None = None, page_numbers: bool = True) -> Path:
    return build_pdf(path, pages, header=header, page_numbers=page_numbers)


def make_text_pdf(path, texts: list[str]) -> Path:
    return build_pdf(path, [[("p", t)] for t in texts])


def make_table_pdf(path, header_on_second: bool = False) -> Path:
    pages = [
        [
            ("h1", "Operations"),
            ("p", "This report describes the sites we operate and their footprint. Each site reports "
                  "its energy, emissions and water use every month to the group sustainability team."),
        ],
        [
            ("h1", "Emissions"),
            ("p", "Emissions and water by site for the reporting year are shown below."),
            ("space", 420),  # the table runs to the foot of the page, as a table cut by a page break does
            ("table", TABLE_HEADER, TABLE_ROWS[:3]),
        ],
        [
            ("table", TABLE_HEADER if header_on_second else None, TABLE_ROWS[3:]),
            ("p", "Totals exclude joint ventures that we do not operate."),
        ],
    ]
    return build_pdf(path, pages)


def big_table_rows(n: int) -> list[list[str]]:
    return [[f"Site {i:03d} processing plant", str(100 + i), str(40 + i), f"{i / 10:.1f}"] for i in range(1, n + 1)]


def make_big_table_pdf(path, rows: int = 28) -> Path:
    """A table of `rows` rows on one page (28 fit); 28 rows render to ~1,500 characters of Markdown."""
    pages = [[("h1", "Site data"), ("table", TABLE_HEADER, big_table_rows(rows))]]
    return build_pdf(path, pages)


def make_sample_company_pdf(path) -> Path:
    return sample_builder.build_sample(path)


def make_encrypted_pdf(path, password: str = "secret") -> Path:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Confidential figures.", fontsize=11)
    doc.save(str(path), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=password, owner_pw=password + "-owner")
    doc.close()
    return Path(path)


def make_corrupt_pdf(path) -> Path:
    Path(path).write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\nthis is not a PDF body\n")
    return Path(path)


def make_not_pdf(path) -> Path:
    Path(path).write_text("Scope 1 emissions were 1,120 kt.\nThis is a text file, not a PDF.\n")
    return Path(path)


def make_image_only_pdf(path, pages: int = 2) -> Path:
    """Render pages of text to pictures and place them in a new PDF: a scan without a text layer."""
    import pymupdf

    src = pymupdf.open()
    for i in range(pages):
        src.new_page().insert_text((72, 100), f"Scanned page {i + 1}: Scope 1 emissions 1,120 kt.", fontsize=14)
    out = pymupdf.open()
    for page in src:
        pix = page.get_pixmap(dpi=50)
        target = out.new_page(width=page.rect.width, height=page.rect.height)
        target.insert_image(target.rect, stream=pix.tobytes("png"))  # PNG keeps the file small
    out.save(str(path), deflate=True)
    return Path(path)


def make_empty_pdf(path) -> Path:
    """PyMuPDF refuses to save a document without pages, so write a minimal zero-page PDF by hand."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    Path(path).write_bytes(bytes(out))
    return Path(path)
