"""parse_pdf on generated PDFs: pages, headings, tables, clean-up, and every kind of bad input."""

from __future__ import annotations

import hashlib

import pytest

from autofill.errors import InputError
from autofill.ingest import cleanup
from autofill.ingest.pdf import file_sha256, parse_pdf
from autofill.ingest.tables import (
    TableGrid,
    is_headerless_continuation,
    is_real_table,
    looks_tabular,
    merge_sparse_header,
)
from autofill.settings import IngestSettings
from tests import pdf_factory as pf


def page_text(doc, page: int) -> str:
    return "\n".join(b.text for b in doc.pages[page - 1].blocks)


def all_text(doc) -> str:
    return "\n".join(page_text(doc, p.page) for p in doc.pages)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = pf.make_sample_company_pdf(tmp_path_factory.mktemp("sample") / "northwind.pdf")
    return parse_pdf(path, IngestSettings())


# --------------------------------------------------------------------------- pages and text


def test_known_text_on_known_pages_one_based(tmp_path):
    path = pf.make_text_pdf(tmp_path / "three.pdf", ["Alpha page text here.", "Bravo page text here.", "Charlie page text here."])
    doc = parse_pdf(path, IngestSettings())
    assert doc.page_count == 3
    assert [p.page for p in doc.pages] == [1, 2, 3]
    for number, word in enumerate(["Alpha", "Bravo", "Charlie"], start=1):
        assert word in page_text(doc, number)
        assert all(word not in page_text(doc, other) for other in (1, 2, 3) if other != number)
    assert doc.file_name == "three.pdf"
    assert doc.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() == file_sha256(path)
    assert doc.empty_pages == []


@pytest.mark.parametrize(
    "page, fact",
    [
        (1, "This report covers the financial year ended 30 June 2024 (FY2024)."),
        (2, "Northwind Metals has committed to net zero Scope 1 and Scope 2 emissions by 2050."),
        (2, "Our medium-term target is a 35% reduction in Scope 1 and Scope 2 emissions by FY2030 from the FY2020 baseline."),
        (2, "We have not set a target for Scope 3 emissions."),
        (3, "The Board Sustainability Committee oversees climate-related risks and opportunities and meets four times a year."),
        (3, "15% of the Chief Executive Officer's short-term incentive is linked to emission reduction milestones."),
        (3, "| FY2022 | 1,310 | 690 | 2,000 |"),
        (4, "| FY2024 | 1,120 | 540 | 1,660 |"),
        (5, "Renewable electricity made up 46% of our electricity consumption in FY2024."),
        (5, "Total water withdrawal was 12.4 GL in FY2024."),
        (5, "This report is prepared in line with the recommendations of the Task Force on Climate-related Financial Disclosures (TCFD)."),
        (5, "Our emission reduction targets have not been validated by the Science Based Targets initiative (SBTi)."),
    ],
)
def test_sample_facts_are_on_their_pages(sample, page, fact):
    assert fact in page_text(sample, page)
    assert all(fact not in page_text(sample, p) for p in range(1, 6) if p != page)


def test_sample_shape(sample):
    assert sample.page_count == 5 and sample.empty_pages == []
    assert sample.title == "Northwind Metals Sustainability Report 2024"


def test_headings_and_levels(sample):
    headings = [(p.page, b.level, b.text) for p in sample.pages for b in p.blocks if b.kind == "heading"]
    assert (2, 1, "Climate strategy") in headings
    assert (2, 2, "Targets") in headings
    assert (3, 1, "Performance") in headings
    assert (3, 2, "Greenhouse gas emissions") in headings
    assert (5, 1, "Reporting frameworks") in headings
    # body text is never taken for a heading
    assert all("emissions by 2050" not in text for _, _, text in headings)


def test_running_header_and_page_numbers_removed(sample):
    text = all_text(sample)
    assert "Sustainability Report 2024" in page_text(sample, 1)  # the cover title itself stays
    assert "Northwind Metals | Sustainability Report 2024" not in text
    for p in sample.pages:
        assert all(b.text.strip() != str(p.page) for b in p.blocks)


def test_hyphenation_and_whitespace(tmp_path):
    path = pf.make_pdf(
        tmp_path / "hyph.pdf",
        [[
            ("lines", [
                "We cut our operational emis-",
                "sions at every site and adopted a five-",
                "year plan for climate-",
                "related risks.  Spaced     out    words   here.",
            ]),
            ("p", "Our climate-related disclosures follow the TCFD."),
        ]],
    )
    text = page_text(parse_pdf(path, IngestSettings()), 1)
    assert "operational emissions at every site" in text
    assert "five-year plan" in text
    assert "climate-related risks" in text  # the document itself spells it with a hyphen
    assert "Spaced out words here." in text
    assert "emis-" not in text and "  " not in text


def test_progress_is_reported_per_page(tmp_path):
    calls = []
    path = pf.make_text_pdf(tmp_path / "p.pdf", ["Page one has enough text to count.", "Page two has enough text to count.", "Page three has enough text."])
    parse_pdf(path, IngestSettings(), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_bullets_become_paragraphs(tmp_path):
    path = pf.make_pdf(tmp_path / "list.pdf", [[("lines", [
        "Our priorities for the year were:", "\u2022 cut operational emissions at the", "smelter and the port", "\u2022 buy renewable power",
    ])]])
    texts = [b.text for b in parse_pdf(path, IngestSettings()).pages[0].blocks]
    # Helvetica (base 14) prints the bullet as a middle dot; either way each item is a paragraph
    assert [t.lstrip("\u2022\u00b7 ") for t in texts] == [
        "Our priorities for the year were:",
        "cut operational emissions at the smelter and the port",
        "buy renewable power",
    ]


def test_blank_page_is_reported_as_empty(tmp_path):
    path = pf.make_pdf(tmp_path / "blank.pdf", [[("p", "First page has text.")], [], [("p", "Third page has text.")]])
    doc = parse_pdf(path, IngestSettings())
    assert doc.page_count == 3
    assert doc.empty_pages == [2]
    assert "Third page" in page_text(doc, 3)


def test_parsing_leaves_the_file_untouched(tmp_path):
    path = pf.make_text_pdf(tmp_path / "keep.pdf", ["Some text on the page."])
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    parse_pdf(path, IngestSettings())
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# --------------------------------------------------------------------------- tables

HEADER_MD = "| Site | Scope 1 (kt) | Scope 2 (kt) | Water (GL) |\n|---|---|---|---|"


def tables_of(doc, page: int) -> list[str]:
    return [b.text for b in doc.pages[page - 1].blocks if b.kind == "table"]


@pytest.fixture(scope="module", params=[False, True], ids=["header-once", "header-repeated"])
def split_table_doc(request, tmp_path_factory):
    """The 3-page table PDF, its table continued on page 3 without / with the header row printed."""
    path = pf.make_table_pdf(tmp_path_factory.mktemp("tables") / "t.pdf", header_on_second=request.param)
    return parse_pdf(path, IngestSettings())


def test_table_split_across_page_break_has_header_on_both_pages(split_table_doc):
    doc = split_table_doc
    assert tables_of(doc, 2) == [
        HEADER_MD + "\n| Alpha mine | 120 | 45 | 3.1 |\n| Bravo smelter | 310 | 95 | 1.2 |\n| Charlie port | 15 | 8 | 0.4 |"
    ]
    assert tables_of(doc, 3) == [HEADER_MD + "\n| Delta refinery | 205 | 60 | 2.2 |\n| Echo mill | 88 | 30 | 0.9 |"]
    # the cells are not repeated as loose text, and the text after the table is kept
    assert "Bravo smelter" not in "\n".join(b.text for b in doc.pages[1].blocks if b.kind != "table")
    assert doc.pages[2].blocks[-1].text == "Totals exclude joint ventures that we do not operate."


def test_table_comes_after_the_text_above_it(split_table_doc):
    assert [b.kind for b in split_table_doc.pages[1].blocks] == ["heading", "text", "table"]
    assert [b.kind for b in split_table_doc.pages[2].blocks] == ["table", "text"]


def test_big_table_is_one_block_with_all_rows(tmp_path):
    doc = parse_pdf(pf.make_big_table_pdf(tmp_path / "big.pdf", rows=28), IngestSettings())
    (table,) = tables_of(doc, 1)
    lines = table.split("\n")
    assert lines[:2] == HEADER_MD.split("\n")
    assert lines[2] == "| Site 001 processing plant | 101 | 41 | 0.1 |"
    assert len(lines) == 2 + 28
    assert [b.text for b in doc.pages[0].blocks if b.kind == "heading"] == ["Site data"]


def test_tables_off_keeps_table_text_as_text(tmp_path):
    doc = parse_pdf(pf.make_table_pdf(tmp_path / "t.pdf"), IngestSettings(table_pages="off"))
    assert tables_of(doc, 2) == []
    assert "Bravo smelter" in page_text(doc, 2)


def test_unknown_table_mode_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="table_pages"):
        parse_pdf(pf.make_text_pdf(tmp_path / "a.pdf", ["text"]), IngestSettings(table_pages="sometimes"))


def test_degenerate_tables_are_rejected():
    assert is_real_table([["Year", "Scope 1"], ["FY2020", "1,450"], ["FY2021", "1,390"]])
    assert not is_real_table([["only one column"], ["x"], ["y"]])
    assert not is_real_table([["Year", "Scope 1"]])  # a header alone
    assert not is_real_table([["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]])  # one letter per cell
    assert not is_real_table([["Mike Henry", ""], ["Chief Executive Officer", "February 2020"]])
    prose = "This paragraph of the report was laid out in a grid by the table finder but it is just prose text."
    assert not is_real_table([[prose, prose], [prose, prose], [prose, "1"]])
    assert not is_real_table([["A", "", ""], ["", "", ""], ["", "", "B"]])


def test_two_row_header_is_merged():
    grid = [["", "", "Year ended 30 June", ""], ["", "2020", "2019", "2018"], ["Scope 1", "9.5", "9.7", "10.6"]]
    assert merge_sparse_header(grid) == [["", "2020", "Year ended 30 June 2019", "2018"], ["Scope 1", "9.5", "9.7", "10.6"]]
    full = [["Year", "Scope 1"], ["FY2020", "1"], ["FY2021", "2"]]
    assert merge_sparse_header(full) == full


def test_looks_tabular_wants_numbers_in_columns():
    def word(x, y, text):
        return (x, y, x + 20, y + 8, text, 0, 0, 0)

    table = [word(x, y, n) for y in (100, 120, 140) for x, n in ((200, "1,450"), (300, "820"), (400, "2,270"))]
    assert looks_tabular(table)
    prose = [word(50 + 30 * i, 100 + 12 * i, "2020") for i in range(10)]  # years scattered in text
    assert not looks_tabular(prose)
    assert looks_tabular(table[:6], after_table=True)  # two rows suffice where a table may continue
    assert not looks_tabular(table[:6])


def test_headerless_continuation_detection():
    first = TableGrid((0, 0, 1, 1), ["Year", "Scope 1", "Scope 2"], [["FY2020", "1,450", "820"]])
    rows_only = TableGrid((0, 0, 1, 1), ["FY2021", "1,390", "760"], [["FY2022", "1,310", "690"]])
    other = TableGrid((0, 0, 1, 1), ["Region", "Sites", "Staff"], [["Chile", "3", "1,200"]])
    assert is_headerless_continuation(first, rows_only)
    assert not is_headerless_continuation(first, other)  # a new table with its own header
    assert not is_headerless_continuation(first, TableGrid((0, 0, 1, 1), ["FY2021", "1"], []))  # other columns


# --------------------------------------------------------------------------- clean-up rules


def test_dehyphenation_rules():
    vocab = cleanup.vocabulary(["the climate-related risks", "greenhouse"])
    assert cleanup.join_lines(["reduce emis-", "sions now"], vocab) == "reduce emissions now"
    assert cleanup.join_lines(["a five-", "year plan"], vocab) == "a five-year plan"
    assert cleanup.join_lines(["our climate-", "related work"], vocab) == "our climate-related work"
    assert cleanup.join_lines(["green-", "house gas"], vocab) == "greenhouse gas"
    assert cleanup.join_lines(["the 2030-", "aligned goal"], vocab) == "the 2030-aligned goal"
    assert cleanup.join_lines(["Scope 1 -", "Scope 2"], vocab) == "Scope 1 - Scope 2"
    assert cleanup.join_lines(["decarbon\u00ad", "isation"], vocab) == "decarbonisation"
    assert cleanup.join_lines(["ends here.", "Next line"], vocab) == "ends here. Next line"


def test_clean_spaces_and_ligatures():
    assert cleanup.clean_spaces("e\ufb03cient   CO\u2082\u00a0emissions ") == "efficient CO2 emissions"
    assert cleanup.clean_spaces("soft\u00adhyphen inside") == "softhyphen inside"
    assert cleanup.clean_spaces("\uf0b7 Working with others") == "\u2022 Working with others"


def test_running_furniture_and_page_numbers():
    margins = [[f"Annual Report 2024 | {n}", str(n)] for n in range(1, 7)]
    margins[2].append("A one-off caption")
    keys = cleanup.running_furniture(margins)
    assert cleanup.furniture_key("Annual Report 2024 | 17") in keys
    assert cleanup.furniture_key("A one-off caption") not in keys
    assert cleanup.is_page_number("12") and cleanup.is_page_number("Page 3 of 10") and cleanup.is_page_number("iv")
    assert not cleanup.is_page_number("2050 targets")


def test_normalize_for_match_ignores_pdf_quirks():
    n = cleanup.normalize_for_match
    assert n("a five-year plan") == n("A five- year  plan")
    assert n("cut emissions") == n("cut emis- sions")


# --------------------------------------------------------------------------- bad input


def assert_one_line(exc: InputError, *fragments: str) -> None:
    """One line, without the file name: the caller prints "<path>: <message>"."""
    message = str(exc)
    assert "\n" not in message and ".pdf" not in message
    for fragment in fragments:
        assert fragment in message


def test_missing_file(tmp_path):
    with pytest.raises(InputError) as err:
        parse_pdf(tmp_path / "nope.pdf", IngestSettings())
    assert_one_line(err.value, "file not found")


def test_not_a_pdf(tmp_path):
    with pytest.raises(InputError) as err:
        parse_pdf(pf.make_not_pdf(tmp_path / "notes.pdf"), IngestSettings())
    assert_one_line(err.value, "not a PDF")


def test_zero_byte_file(tmp_path):
    (tmp_path / "zero.pdf").write_bytes(b"")
    with pytest.raises(InputError) as err:
        parse_pdf(tmp_path / "zero.pdf", IngestSettings())
    assert_one_line(err.value, "empty file")


def test_corrupt_pdf(tmp_path):
    with pytest.raises(InputError) as err:
        parse_pdf(pf.make_corrupt_pdf(tmp_path / "broken.pdf"), IngestSettings())
    assert_one_line(err.value, "corrupt PDF")


def test_encrypted_pdf(tmp_path):
    with pytest.raises(InputError) as err:
        parse_pdf(pf.make_encrypted_pdf(tmp_path / "locked.pdf"), IngestSettings())
    assert_one_line(err.value, "encrypted PDF", "password")


def test_pdf_without_pages(tmp_path):
    with pytest.raises(InputError) as err:
        parse_pdf(pf.make_empty_pdf(tmp_path / "nopages.pdf"), IngestSettings())
    assert_one_line(err.value, "empty PDF (0 pages)")


def test_image_only_pdf(tmp_path):
    with pytest.raises(InputError) as err:
        parse_pdf(pf.make_image_only_pdf(tmp_path / "scan.pdf", pages=2), IngestSettings(ocr=False))
    assert_one_line(err.value, "image-only PDF: no extractable text on any of 2 pages (OCR is off: ingest.ocr = false)")
