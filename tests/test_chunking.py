"""chunk_document: sizes, boundaries, overlap, tables, sections, pages, ids. Mostly on hand-built
ParsedDocuments (chunking is pure); the end-to-end cases use generated PDFs."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from autofill.ingest.chunking import chunk_document, split_sentences, split_table
from autofill.ingest.pdf import parse_pdf
from autofill.records import Block, PageContent, ParsedDocument
from autofill.settings import IngestSettings
from tests import pdf_factory as pf

COMPANY = "Northwind Metals"


def make_doc(pages: list[list[Block]], name: str = "report.pdf", sha: str | None = None) -> ParsedDocument:
    sha = sha or hashlib.sha256(name.encode()).hexdigest()
    contents = [PageContent(i, blocks) for i, blocks in enumerate(pages, start=1)]
    return ParsedDocument(Path(name), name, sha, contents, len(contents))


def H(text: str, level: int = 1) -> Block:
    return Block("heading", text, level)


def T(text: str) -> Block:
    return Block("text", text)


def sentences(n: int, start: int = 0, words: int = 12) -> str:
    """n distinct, numbered sentences of ~80 characters."""
    return " ".join(f"Sentence {i} says " + " ".join(f"w{i}x{j}" for j in range(words - 3)) + "." for i in range(start, start + n))


def table_md(rows: int, start: int = 0) -> str:
    lines = ["| Site | Scope 1 (kt) | Scope 2 (kt) |", "|---|---|---|"]
    lines += [f"| Site number {i:03d} | {100 + i} | {50 + i} |" for i in range(start, start + rows)]
    return "\n".join(lines)


S = IngestSettings()


# --------------------------------------------------------------------------- sizes and boundaries


def test_chunks_stay_within_size_and_cut_at_sentence_ends():
    rng = random.Random(7)
    pages = []
    n = 0
    for _ in range(6):
        blocks = []
        for _ in range(rng.randint(2, 6)):
            k = rng.randint(1, 20)
            blocks.append(T(sentences(k, n)))
            n += k
        pages.append(blocks)
    chunks = chunk_document(make_doc(pages), COMPANY, S)
    assert len(chunks) > 5
    for c in chunks:
        assert len(c.text) <= S.chunk_chars
        assert c.text.endswith(".")  # every cut falls at a sentence end
        assert c.text.startswith("Sentence ")  # and every chunk (overlap included) starts at one
    # nothing is lost: every sentence appears in some chunk
    joined = "\n".join(c.text for c in chunks)
    assert all(f"Sentence {i} says" in joined for i in range(n))


def test_paragraphs_that_fit_are_not_split():
    paras = [sentences(3, 10 * i) for i in range(8)]  # ~250 characters each
    chunks = chunk_document(make_doc([[T(p) for p in paras]]), COMPANY, S)
    for p in paras:
        assert any(p in c.text for c in chunks), "a paragraph that fits in a chunk was cut"


def test_sentence_longer_than_a_chunk_is_cut_between_words():
    long_sentence = " ".join(f"word{i}" for i in range(400)) + "."
    chunks = chunk_document(make_doc([[T(long_sentence)]]), COMPANY, IngestSettings(chunk_overlap=0))
    assert len(chunks) >= 3
    assert all(len(c.text) <= S.chunk_chars for c in chunks)
    assert " ".join(c.text for c in chunks) == long_sentence


def test_split_sentences_keeps_abbreviations_and_decimals():
    text = "Emissions fell 1.5 per cent, e.g. at Olympic Dam. Scope 3 rose. We act now!"
    assert split_sentences(text) == ["Emissions fell 1.5 per cent, e.g. at Olympic Dam.", "Scope 3 rose.", "We act now!"]


# --------------------------------------------------------------------------- overlap


def test_overlap_repeats_whole_sentences_from_the_previous_chunk():
    chunks = chunk_document(make_doc([[T(sentences(40))]]), COMPANY, S)
    assert len(chunks) >= 3
    for prev, nxt in zip(chunks, chunks[1:]):
        old, new = split_sentences(prev.text), split_sentences(nxt.text)
        # the new chunk starts with the last sentence(s) of the old one, and only those
        lap = max(k for k in range(len(new)) if old[len(old) - k:] == new[:k])
        assert lap >= 1
        assert len(" ".join(new[:lap])) <= 2 * S.chunk_overlap


def test_no_overlap_when_disabled():
    chunks = chunk_document(make_doc([[T(sentences(40))]]), COMPANY, IngestSettings(chunk_overlap=0))
    seen = [s for c in chunks for s in split_sentences(c.text)]
    assert len(seen) == len(set(seen)) == 40


def test_no_overlap_across_a_new_section():
    doc = make_doc([[H("Targets"), T(sentences(4)), H("Governance"), T(sentences(4, 100))]])
    first, second = chunk_document(doc, COMPANY, S)
    assert second.text.startswith("Governance")
    assert "Sentence 3 says" not in second.text


# --------------------------------------------------------------------------- sections and pages


def test_section_paths_follow_the_heading_stack():
    doc = make_doc([
        [H("Climate strategy"), T(sentences(3)), H("Targets", 2), T(sentences(3, 10))],
        [H("Governance"), T(sentences(3, 20)), H("Board", 2), T(sentences(3, 30)), H("Committees", 3), T(sentences(3, 40))],
        [H("Audit", 4), T(sentences(3, 50)), H("Remuneration", 2), T(sentences(3, 60))],
    ])
    sections = {c.text.split("\n")[0]: c.section for c in chunk_document(doc, COMPANY, S)}
    assert sections == {
        "Climate strategy": "Climate strategy",
        "Targets": "Climate strategy > Targets",
        "Governance": "Governance",
        "Board": "Governance > Board",
        "Committees": "Governance > Board > Committees",
        "Audit": "Governance > Committees > Audit",  # deeper than three: chapter and innermost two
        "Remuneration": "Governance > Remuneration",
    }


def test_chunk_may_span_a_page_break_but_prefers_to_cut_there():
    small = make_doc([[T(sentences(2))], [T(sentences(2, 10))]])  # ~130 characters a page
    (only,) = chunk_document(small, COMPANY, S)
    assert (only.page_start, only.page_end) == (1, 2)
    half_full = make_doc([[T(sentences(10))], [T(sentences(2, 20))]])  # ~650 characters on page 1
    chunks = chunk_document(half_full, COMPANY, S)
    assert [(c.page_start, c.page_end) for c in chunks][0] == (1, 1)
    assert chunks[-1].page_end == 2 and "Sentence 20 says" in chunks[-1].text


def test_page_numbers_of_long_text():
    doc = make_doc([[T(sentences(30, 100 * p))] for p in range(4)])
    for c in chunk_document(doc, COMPANY, S):
        for s in split_sentences(c.text):
            page = int(s.split()[1]) // 100 + 1
            assert c.page_start <= page <= c.page_end


# --------------------------------------------------------------------------- tables


def test_table_that_fits_stays_whole():
    table = table_md(5)
    chunks = chunk_document(make_doc([[H("Data"), T("Our sites emitted the following."), Block("table", table)]]), COMPANY, S)
    (chunk,) = chunks
    assert table in chunk.text and chunk.has_table


def test_big_table_is_split_by_rows_with_header_repeated():
    table = table_md(100)  # ~3,400 characters
    doc = make_doc([[H("Site data"), Block("table", table), T(sentences(2))]])
    chunks = chunk_document(doc, COMPANY, S)
    pieces = [c for c in chunks if c.has_table]
    assert len(pieces) >= 3
    header = "| Site | Scope 1 (kt) | Scope 2 (kt) |\n|---|---|---|"
    rows_seen = []
    for c in pieces:
        assert len(c.text) <= S.chunk_chars
        body = c.text[c.text.index(header):]
        rows_seen += [ln for ln in body.split("\n")[2:] if ln.startswith("| Site number")]
        assert c.section == "Site data"
    assert rows_seen == table.split("\n")[2:]  # every row once, in order
    assert not chunks[-1].has_table or "Sentence 0" in chunks[-1].text


def test_caption_lines_above_a_table_open_every_piece_of_it():
    table = table_md(100)
    doc = make_doc([[T("The accompanying notes are part of this statement."), T("Northwind and Subsidiaries"),
                     T("Consolidated Statement of Cash Flows"), T("Years ended December 31"), Block("table", table)]])
    chunks = chunk_document(doc, COMPANY, S)
    pieces = [c for c in chunks if c.has_table]
    assert len(pieces) >= 3
    caption = "Northwind and Subsidiaries Consolidated Statement of Cash Flows Years ended December 31"
    assert all(c.text.startswith(caption + "\n| Site |") for c in pieces)
    assert all(len(c.text) <= S.chunk_chars for c in pieces)
    # the sentence before the caption is running text: it stays out of the caption
    assert not any("accompanying" in c.text for c in pieces)
    assert sum(c.text.count("Consolidated Statement of Cash Flows") for c in chunks) == len(pieces)


def test_headings_right_above_a_table_are_its_caption_and_still_its_section():
    doc = make_doc([[H("Financial statements"), T(sentences(3))],
                    [H("CONSOLIDATED BALANCE SHEETS", 2), H("(In millions, except par value)", 2),
                     Block("table", table_md(60))]])
    chunks = chunk_document(doc, COMPANY, S)
    pieces = [c for c in chunks if c.has_table]
    assert len(pieces) >= 2
    assert all(c.text.startswith("CONSOLIDATED BALANCE SHEETS (In millions, except par value)\n| Site |") for c in pieces)
    assert all(c.section == "Financial statements > (In millions, except par value)" for c in pieces)
    assert not any(c.text.strip() in ("CONSOLIDATED BALANCE SHEETS", "(In millions, except par value)") for c in chunks)


def test_no_caption_from_long_text_or_a_finished_sentence_or_another_page():
    long = "Word " * 60
    for blocks in ([T(long.strip()), Block("table", table_md(3))], [T("Emissions fell by a tenth."), Block("table", table_md(3))]):
        (chunk,) = chunk_document(make_doc([blocks]), COMPANY, S)
        assert chunk.text.split("\n\n")[-1].startswith("| Site |")
    two_pages = make_doc([[T("Table 4 Site data")], [Block("table", table_md(3))]])
    (table,) = [c for c in chunk_document(two_pages, COMPANY, S) if c.has_table]
    assert "Table 4 Site data\n|" not in table.text  # text on page 1 is no caption of a table on page 2
    assert table.text.split("\n\n")[-1].startswith("| Site |")


def test_caption_carries_to_the_page_a_table_runs_on_to():
    doc = make_doc([[T("Consolidated Balance Sheets"), Block("table", table_md(5))], [Block("table", table_md(5))],
                    [T("Other text here."), Block("table", table_md(3))]])
    tables = [c for c in chunk_document(doc, COMPANY, S) if c.has_table]
    assert [c.page_start for c in tables][:2] == [1, 2]
    assert tables[0].text.startswith("Consolidated Balance Sheets\n|")
    assert tables[1].text.startswith("Consolidated Balance Sheets\n|")
    # the table on page 3 follows text: a new table, no caption of its own (the text ends a sentence)
    text = "\n".join(c.text for c in tables)
    assert text.count("Consolidated Balance Sheets") == 2 and "Other text here.\n\n| Site |" in text


def test_split_table_pieces():
    pieces = split_table(table_md(40), 300)
    assert len(pieces) > 1
    assert all(p.startswith("| Site | Scope 1 (kt) | Scope 2 (kt) |\n|---|---|---|\n| Site number") for p in pieces)
    assert all(len(p) <= 300 for p in pieces)


def test_table_across_page_break_from_pdf_has_header_in_each_chunk(tmp_path):
    doc = parse_pdf(pf.make_table_pdf(tmp_path / "t.pdf"), IngestSettings())
    chunks = chunk_document(doc, COMPANY, S)
    tables = [c for c in chunks if c.has_table]
    assert [(c.page_start, c.page_end) for c in tables] == [(2, 2), (3, 3)]
    header = "| Site | Scope 1 (kt) | Scope 2 (kt) | Water (GL) |\n|---|---|---|---|"
    assert all(header in c.text for c in tables)
    assert "| Bravo smelter | 310 | 95 | 1.2 |" in tables[0].text
    assert "| Echo mill | 88 | 30 | 0.9 |" in tables[1].text
    assert all(c.section == "Emissions" for c in tables)
    assert not any(c.has_table for c in chunks if c not in tables)


def test_sample_pdf_chunks(tmp_path):
    doc = parse_pdf(pf.make_sample_company_pdf(tmp_path / "northwind_sustainability_2024.pdf"), IngestSettings())
    chunks = chunk_document(doc, COMPANY, S)

    def where(fact: str):
        (c,) = [c for c in chunks if fact in c.text]
        return c.page_start, c.page_end, c.section

    assert where("net zero Scope 1 and Scope 2 emissions by 2050") == (2, 2, "Climate strategy > Targets")
    assert where("meets four times a year") == (3, 3, "Governance")
    assert where("| FY2020 | 1,450 | 820 | 2,270 |") == (3, 3, "Performance > Greenhouse gas emissions")
    assert where("| FY2024 | 1,120 | 540 | 1,660 |") == (4, 4, "Performance > Greenhouse gas emissions")
    assert where("(TCFD)") == (5, 5, "Reporting frameworks")
    fy24 = next(c for c in chunks if "FY2024 | 1,120" in c.text)
    assert fy24.text.startswith("| Year | Scope 1 (kt CO2e) | Scope 2 (kt CO2e) | Total (kt CO2e) |")
    # Embedded: the section path and the passage; company, file and page are the same in every chunk.
    assert fy24.embed_text == f"Performance > Greenhouse gas emissions\n{fy24.text}"


# --------------------------------------------------------------------------- identity


def test_ids_are_deterministic_unique_and_carry_the_file_hash():
    doc = make_doc([[H("A"), T(sentences(30))], [T(sentences(30, 100))]])
    first = chunk_document(doc, COMPANY, S)
    again = chunk_document(doc, COMPANY, S)
    assert first == again
    assert [c.index for c in first] == list(range(len(first)))
    assert len({c.id for c in first}) == len(first)
    assert all(c.id == f"{doc.sha256[:16]}-{c.index:05d}" for c in first)
    changed = make_doc(doc.pages and [p.blocks for p in doc.pages], sha="f" * 64)
    assert not {c.id for c in first} & {c.id for c in chunk_document(changed, COMPANY, S)}


def test_metadata_and_content_hash():
    doc = make_doc([[H("Targets"), T(sentences(5))]], name="climate.pdf")
    (chunk,) = chunk_document(doc, COMPANY, S)
    assert chunk.company == COMPANY and chunk.file_name == "climate.pdf" and chunk.doc_sha256 == doc.sha256
    assert chunk.content_hash == hashlib.sha256(chunk.text.encode()).hexdigest()
    assert not chunk.has_table


def test_chunks_never_cross_documents():
    a = make_doc([[T("Alpha only. " * 60)]], name="a.pdf")
    b = make_doc([[T("Bravo only. " * 60)]], name="b.pdf")
    for doc, word, other in ((a, "Alpha", "Bravo"), (b, "Bravo", "Alpha")):
        for c in chunk_document(doc, COMPANY, S):
            assert c.file_name == doc.file_name and c.doc_sha256 == doc.sha256
            assert word in c.text and other not in c.text


def test_empty_document_gives_no_chunks():
    assert chunk_document(make_doc([[], []]), COMPANY, S) == []


@pytest.mark.parametrize("size", [200, 500, 1500])
def test_configurable_chunk_size(size):
    settings = IngestSettings(chunk_chars=size, chunk_overlap=size // 8, min_chunk_chars=size // 5)
    doc = make_doc([[H("Section"), T(sentences(60)), Block("table", table_md(30))]])
    chunks = chunk_document(doc, COMPANY, settings)
    assert all(len(c.text) <= size for c in chunks)
    assert sum(1 for c in chunks if len(c.text) >= size // 2) >= len(chunks) // 2  # mostly well filled


def test_many_headings_in_a_row_do_not_overflow():
    doc = make_doc([[H(f"Heading number {i} with a fairly long title text", 1 + i % 3) for i in range(60)] + [T(sentences(3))]])
    chunks = chunk_document(doc, COMPANY, S)
    assert all(len(c.text) <= S.chunk_chars for c in chunks)
    assert "Sentence 2 says" in chunks[-1].text


def test_a_paragraph_cut_inside_a_sentence_does_not_end_a_chunk_there():
    # PyMuPDF splits a paragraph at a column edge: block 2 ends mid-sentence, block 3 goes on with it.
    first = sentences(6)
    unfinished = "Scope 3 emissions from the processing of our products represent 96"
    rest = "per cent of the total, which is why we set goals for them. " + sentences(6, start=20)
    doc = make_doc([[T(first), T(sentences(3, start=10) + " " + unfinished), T(rest)]])
    chunks = chunk_document(doc, COMPANY, IngestSettings(chunk_chars=1000, chunk_overlap=150))
    assert len(chunks) >= 2
    assert chunks[0].text.rstrip().endswith(".")  # the chunk ends where a sentence does
    whole = unfinished + " per cent of the total"
    assert any(whole in c.text for c in chunks)  # the sentence is found whole in one chunk


def test_chunks_carry_ocr_marks_and_printed_page_labels():
    pages = [PageContent(1, [T(sentences(3))], label="ii"),
             PageContent(2, [Block("text", sentences(3, start=5), ocr=True)], label="1")]
    doc = ParsedDocument(Path("r.pdf"), "r.pdf", "ab" * 32, pages, 2)
    chunks = chunk_document(doc, COMPANY, IngestSettings(chunk_chars=300, min_chunk_chars=50))
    by_page = {(c.page_start, c.page_end): c for c in chunks}
    assert all(not c.ocr for c in chunks if c.page_end == 1) and any(c.ocr for c in chunks if c.page_end == 2)
    assert all(c.page_labels == tuple(("ii", "1")[p - 1] for p in range(c.page_start, c.page_end + 1))
               for c in by_page.values())
