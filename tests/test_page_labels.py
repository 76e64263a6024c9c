"""Printed page numbers (autofill/ingest/page_labels.py): from the PDF's page labels, else from the
header/footer; carried into chunks, citations (`FILE p. 26 (printed 24)`) and the Evidence sheet,
while Sources still parse to PDF page indexes for eval."""

from __future__ import annotations

from autofill.ingest.chunking import chunk_document
from autofill.ingest.page_labels import candidates, decode_pdf_string, detect_printed, number_label
from autofill.ingest.pdf import parse_pdf
from autofill.records import Citation, Passage
from autofill.review.reader import parse_sources
from autofill.settings import IngestSettings
from autofill.workbook.evidence import printed_pages
from tests import ocr_factory as of

TEXTS = [f"Page {i}. Our Scope 1 emissions fell by {i} per cent against the baseline year." for i in range(1, 6)]


def test_the_pdfs_own_page_labels_win(tmp_path):
    pdf = of.make_labelled_pdf(tmp_path / "labelled.pdf", TEXTS,
                               [{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                                {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}])
    doc = parse_pdf(pdf, IngestSettings(ocr=False))
    assert [p.label for p in doc.pages] == ["i", "ii", "1", "2", "3"]
    chunks = chunk_document(doc, "Acme", IngestSettings(chunk_chars=120, min_chunk_chars=50))
    by_page = {c.page_start: c for c in chunks}
    assert by_page[4].page_label == "2" and by_page[4].page_labels[0] == "2"


def test_footer_numbers_are_detected_when_the_pdf_has_no_labels(tmp_path):
    pdf = of.make_footer_numbered_pdf(tmp_path / "footer.pdf", TEXTS, first_printed=0, unnumbered=(0,))
    doc = parse_pdf(pdf, IngestSettings(ocr=False))
    # page 1 is an unnumbered cover, page 2 prints 1 ... page 5 prints 4; the year 2024 is never a folio
    assert [p.label for p in doc.pages] == ["", "1", "2", "3", "4"]
    assert all("Annual report" not in b.text for p in doc.pages for b in p.blocks)  # still stripped


def test_detection_takes_the_offset_most_pages_agree_on():
    margins = [["Cover"], ["Annual report 2024   2"], ["3 Contents", "Call 1800 555"], ["Annual report 2024   4"],
               ["Annual report 2024   7"]]  # page 5 prints a number off the sequence
    assert detect_printed(margins) == ["", "2", "3", "4", ""]
    assert detect_printed([["2024"], ["2024"]]) == ["", ""]  # years are not folios
    assert detect_printed([["12"], ["40"], ["7"]]) == ["", "", ""]  # no two pages agree
    assert candidates(["BHP Climate Transition Action Plan  27"]) == {27}


def test_citations_show_both_numbers_and_sources_still_parse_to_pdf_pages():
    p = Passage("c1", "Report.pdf", 26, 27, "", "text", page_labels=["24", "25"])
    assert p.citation().label() == "Report.pdf p. 26 (printed 24)"
    assert p.citation(27).label() == "Report.pdf p. 27 (printed 25)"
    assert Citation("Report.pdf", 5, "5").label() == "Report.pdf p. 5"  # same number: said once
    assert Citation("Report.pdf", 5).label() == "Report.pdf p. 5"
    sources = "; ".join([p.citation().label(), "Other.pdf p. 3", "Third.pdf pp. 4-5"])
    assert parse_sources(sources) == [("Report.pdf", 26), ("Other.pdf", 3), ("Third.pdf", 4)]
    assert printed_pages(p) == "24-25"
    assert printed_pages(Passage("c2", "R.pdf", 3, 3, "", "t", page_labels=["3"])) == ""
    assert printed_pages(Passage("c3", "R.pdf", 3, 3, "", "t")) == ""


def test_labels_stored_as_utf16_hex_strings_are_decoded(tmp_path):
    """A prefix written as a hex string (`<FEFF0043004F0056>`: "COV" in UTF-16 with its byte order mark, as
    Acrobat writes non-ASCII labels) and one PyMuPDF writes as UTF-8 bytes are text in the labels,
    the chunks and the citations, never `(printed <FEFF0043004F0056>b)`."""
    import pymupdf

    path = tmp_path / "hexlabels.pdf"
    doc = pymupdf.open()
    for text in TEXTS:
        doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 523, 700), text, fontsize=11)
    doc.xref_set_key(doc.pdf_catalog(), "PageLabels",
                     "<</Nums[0<</P<FEFF0043004F0056>/S/a>>3<</P<C39C2D>/S/D/St 7>>]>>")
    doc.save(str(path))
    parsed = parse_pdf(path, IngestSettings(ocr=False))
    assert [p.label for p in parsed.pages] == ["COVa", "COVb", "COVc", "Ü-7", "Ü-8"]
    chunks = chunk_document(parsed, "Acme", IngestSettings(chunk_chars=120, min_chunk_chars=50))
    page2 = next(c for c in chunks if c.page_start == 2)
    passage = Passage("c1", "hexlabels.pdf", 2, 2, "", page2.text, page_labels=list(page2.page_labels))
    assert passage.citation().label() == "hexlabels.pdf p. 2 (printed COVb)"


def test_pdf_strings_and_label_numbers():
    assert decode_pdf_string("<FEFF0043004F0056>") == "COV"
    assert decode_pdf_string("<feff 0041 00DC>") == "AÜ"  # spaces and lower case in the hex
    assert decode_pdf_string("<FFFE41004200>") == "AB"  # little-endian mark
    assert decode_pdf_string("<C39C2D>") == "Ü-"  # UTF-8 bytes
    assert decode_pdf_string(r"\376\377\000A\000B") == "AB"  # UTF-16 in a literal string, octal escapes
    assert decode_pdf_string(r"A\(1\)") == "A(1)" and decode_pdf_string("Annex ") == "Annex "
    assert [number_label("r", n) for n in (1, 4, 9, 14, 49)] == ["i", "iv", "ix", "xiv", "xlix"]
    assert [number_label("A", n) for n in (1, 26, 27, 53)] == ["A", "Z", "AA", "AAA"]
    assert (number_label("D", 12), number_label("", 3), number_label("R", 3)) == ("12", "", "III")
