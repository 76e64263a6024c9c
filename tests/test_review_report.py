"""The reviewer's HTML report: content, escaping, page images with highlights, PDF links, locating
PDFs (explicit paths, Run info, the evidence store, the workspace) and atomic output."""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

import openpyxl
import pymupdf
import pytest
from click.testing import CliRunner

from autofill.cli import cli
from autofill.errors import InputError
from autofill.review.page_images import HIGHLIGHT_RGB, find_passage_quads, passage_fragments, word_windows
from autofill.review.page_images import PALETTE_COLORS
from autofill.review.reader import parse_sources, read_filled_workbook
from autofill.review.report import write_review_report
from autofill.settings import Settings
from tests.review_fixtures import (ANSWER_1, CITED_TEXT, EVIDENCE_ONLY, HOSTILE_TEXT, PAGE_TEXTS, PDF_NAME,
                                   QUESTION_1, QUESTION_2, QUESTION_3, make_output_workbook, make_report_pdf)

DPI = 90


@pytest.fixture
def case(tmp_path, workspace):
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = make_report_pdf(docs / PDF_NAME)
    (tmp_path / "out").mkdir()
    out = make_output_workbook(tmp_path / "out" / "filled.xlsx")
    return {"pdf": pdf, "out": out, "settings": Settings(workspace=workspace), "tmp": tmp_path}


def _report(case, **kwargs) -> tuple[Path, str]:
    path = write_review_report(case["settings"], case["out"], **kwargs)
    return path, path.read_text(encoding="utf-8")


def _images(html_text: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', html_text)


def _pixels(png: Path) -> pymupdf.Pixmap:
    pix = pymupdf.Pixmap(str(png))
    assert pix.n >= 3
    return pix


def test_report_shows_every_question_answer_and_status(case):
    path, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    assert path == case["out"].parent / "filled_review" / "index.html"
    for q in (QUESTION_1, QUESTION_2, QUESTION_3):
        assert html.escape(q) in text
    assert html.escape(ANSWER_1) in text
    assert "Step 1: page 2 states a net zero commitment for 2050." in text
    assert "Checked against p. 2" in text and "Look in the water section" in text  # reviewer comments
    assert "failed: rate limited" in text and "Needs changes" in text and "Approved" in text
    assert text.count('<article class="question') == 3  # the section heading row is not a question
    # Summary: company and model from Run info, counts by status.
    assert "Acme" in text and "gpt-4o-mini" in text and "0.0123" in text
    assert re.search(r"Answered</span><b>1</b>", text)


def test_section_rows_are_not_questions_and_numbers_are_kept(case):
    book = read_filled_workbook(case["out"])
    assert [(q.row, q.number) for q in book.questions] == [(5, "1"), (6, "2"), (7, "3")]
    assert book.info("company") == "Acme"
    q1 = book.questions[0]
    assert [(e.rank, e.page_start, e.cited) for e in q1.evidence] == [(1, 2, True), (2, 1, False)]
    assert book.questions[2].evidence == []


def test_document_text_is_escaped_and_nothing_is_fetched_from_outside(case):
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    # Offline: no external stylesheet, script, font or image.
    assert not re.search(r'(src|href)="(https?:)?//', text) and "<link" not in text and "@import" not in text
    assert "<script>" not in text.lower()
    assert "<b>bold</b>" not in text
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in text
    assert "&lt;b&gt;bold&lt;/b&gt;" in text


def test_evidence_only_rows_are_marked(case):
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    article = text.split('id="q-questionnaire-6"')[1].split("</article>")[0]
    assert "Evidence only." in article and "No language model answered this row" in article
    assert EVIDENCE_ONLY in article
    other = text.split('id="q-questionnaire-5"')[1].split("</article>")[0]
    assert "No language model answered this row" not in other


def test_every_passage_is_listed_with_rank_file_page_and_cited_flag(case):
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    q1 = text.split('id="q-questionnaire-5"')[1].split("</article>")[0]
    cited, _, others = q1.partition('<details class="others">')
    cited = re.sub(r"</?mark>", "", cited)
    assert html.escape(CITED_TEXT) in cited and "#1" in cited
    # The retrieval score reads as relevance relative to the best passage; the raw score is in the tooltip.
    assert "relevance 100/100" in cited and "raw score 0.91" in cited
    assert "relevance 60/100" in others  # 0.55 / 0.91
    assert "badge ok\">cited" in cited
    # The uncited passage is there, marked, without an image but with a link.
    assert html.escape(PAGE_TEXTS[0]) in others and "not cited" in others and "#2" in others
    assert "<img" not in others and "#page=1" in others


def test_links_open_the_pdf_at_the_cited_page_by_relative_paths(case):
    path, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    rel = "../../docs/" + PDF_NAME.replace(" ", "%20")
    assert f'href="{rel}#page=2"' in text and f'href="{rel}#page=3"' in text
    assert "file://" not in text
    assert 'href="../filled.xlsx"' in text
    for href in set(re.findall(r'href="([^"#]+)(?:#[^"]*)?"', text)):  # every link resolves from the report
        assert (path.parent / href.replace("%20", " ")).exists(), href


def _rel(pdf: Path, out: Path) -> str:
    """The report's link to `pdf`: relative to the report folder next to the workbook `out`."""
    import os
    from urllib.parse import quote

    return quote(Path(os.path.relpath(pdf.resolve(), (out.parent / f"{out.stem}_review").resolve())).as_posix())


FIRST_SENTENCE = CITED_TEXT.split(". ")[0] + "."


def _amber_share(image: pymupdf.Pixmap, rect, scale: float) -> float:
    amber = samples = 0
    for y in range(int(rect.y0 * scale) + 1, int(rect.y1 * scale) - 1):
        for x in range(int(rect.x0 * scale) + 1, int(rect.x1 * scale) - 1, 2):
            px = image.pixel(x, y)
            samples += 1
            amber += px[0] > 200 and px[1] > 150 and px[2] < 140
    return amber / max(samples, 1)


def _render(pdf: Path, page: int) -> pymupdf.Pixmap:
    with pymupdf.open(pdf) as doc:
        return doc[page - 1].get_pixmap(dpi=DPI)


def _diff_fraction(a: pymupdf.Pixmap, b: pymupdf.Pixmap, clip=None) -> float:
    """Fraction of pixels (optionally outside `clip`, in pixels) whose colour differs noticeably."""
    assert (a.width, a.height) == (b.width, b.height)
    sa, sb, n = a.samples, b.samples, a.n
    differ = total = 0
    for y in range(0, a.height, 2):
        for x in range(0, a.width, 2):
            if clip and clip[0] <= x <= clip[2] and clip[1] <= y <= clip[3]:
                continue
            i = (y * a.width + x) * n
            total += 1
            if any(abs(sa[i + c] - sb[i + c]) > 40 for c in range(3)):
                differ += 1
    return differ / total


def test_cited_page_image_is_that_page_with_the_passage_highlighted(case):
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    q1 = text.split('id="q-questionnaire-5"')[1].split("</article>")[0]
    [src] = _images(q1)
    png = case["out"].parent / "filled_review" / src
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    # A palette PNG (colour type 3) of at most PALETTE_COLORS colours, not PyMuPDF's full-colour PNG.
    assert data[12:16] == b"IHDR" and data[25] == 3, data[:32]
    assert data[33 + 4:33 + 8] == b"PLTE" and int.from_bytes(data[33:37], "big") // 3 <= PALETTE_COLORS
    image = _pixels(png)
    assert abs(image.width - 595 * DPI / 72) <= 1 and abs(image.height - 842 * DPI / 72) <= 1  # A4 at 90 dpi

    with pymupdf.open(case["pdf"]) as doc:
        rects = doc[1].search_for("Acme Metals commits to net zero operational greenhouse gas emissions")
    assert rects
    scale = DPI / 72
    r = rects[0]
    box = (int(r.x0 * scale) - 2, int(r.y0 * scale) - 2, int(r.x1 * scale) + 2, int(r.y1 * scale) + 2)
    # Inside the passage: many pixels take the highlight's amber (high red and green, low blue).
    amber = 0
    samples = 0
    for y in range(box[1] + 3, box[3] - 3):
        for x in range(box[0] + 3, box[2] - 3, 2):
            px = image.pixel(x, y)
            samples += 1
            if px[0] > 200 and px[1] > 150 and px[2] < 140:
                amber += 1
    assert amber / samples > 0.4, (amber, samples)
    # Only the sentence that carries the answer (net zero by 2050) is highlighted, not the next one.
    with pymupdf.open(case["pdf"]) as doc:
        others = doc[1].search_for("thirty percent reduction in Scope 1 and 2")
    assert others and all(_amber_share(image, r, scale) < 0.05 for r in others)
    assert tuple(round(c * 255) for c in HIGHLIGHT_RGB)[2] < 60  # the test's colour rule matches the real colour

    # Outside the highlighted lines it is page 2 exactly, and clearly not page 1 or 3.
    page2, page1 = _render(case["pdf"], 2), _render(case["pdf"], 1)
    all_hits = [q for q in rects]
    with pymupdf.open(case["pdf"]) as doc:
        for frag in passage_fragments(CITED_TEXT):
            all_hits += doc[1].search_for(frag)
    union = pymupdf.Rect()
    for h in all_hits:
        union |= h
    clip = tuple(int(v * scale) + d for v, d in zip(union, (-4, -4, 4, 4)))
    assert _diff_fraction(image, page2, clip) < 0.0005
    assert _diff_fraction(image, page1, clip) > 0.005
    # Inside them it is, within the palette's tolerance, the full-colour render of page 2 with the same
    # highlight: the highlight's colour survives the palette and no letter of the passage is lost.
    with pymupdf.open(case["pdf"]) as doc:
        page = doc[1]
        annot = page.add_highlight_annot(find_passage_quads(page, FIRST_SENTENCE))
        annot.set_colors(stroke=HIGHLIGHT_RGB)
        annot.set_opacity(0.55)
        annot.update()
        highlighted = page.get_pixmap(dpi=DPI, annots=True)
    assert _diff_fraction(image, highlighted) < 0.0005
    assert _diff_fraction(image, page2) > 0.005  # ...which the plain page is not
    # The page outside the report is untouched: no highlight leaked into the source PDF.
    assert not any(doc_page.annots() and list(doc_page.annots()) for doc_page in pymupdf.open(case["pdf"]))


def test_source_pdf_is_never_modified(case):
    before = hashlib.sha256(case["pdf"].read_bytes()).hexdigest()
    mtime = case["pdf"].stat().st_mtime_ns
    _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    assert hashlib.sha256(case["pdf"].read_bytes()).hexdigest() == before
    assert case["pdf"].stat().st_mtime_ns == mtime


def test_each_page_and_highlight_is_rendered_once(case, tmp_path):
    # Two more questions cite the same passage on the same page with the same answer: still one PNG.
    wb = openpyxl.load_workbook(case["out"])
    ws, ev = wb["Questionnaire"], wb["Evidence"]
    for row in (8, 9):
        ws.cell(row, 3, f"Repeat question {row}")
        ws.cell(row, 5, ANSWER_1)
        ws.cell(row, 7, f"{PDF_NAME} p. 2")
        ws.cell(row, 9, "Answered")
        ev.append([row, f"Repeat question {row}", 1, PDF_NAME, 2, "yes", 0.9, CITED_TEXT])
    wb.save(case["out"])
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    srcs = _images(text)
    assert len(srcs) == 4  # q1, q2 and the two repeats
    assert len(set(srcs)) == 2  # p.2 with that highlight once, p.3 once
    pngs = list((case["out"].parent / "filled_review" / "pages").glob("*.png"))
    assert len(pngs) == 2


def test_a_passage_cited_by_many_questions_is_searched_on_its_page_once(case, monkeypatch):
    # A long questionnaire cites the same few passages hundreds of times: searching each page's text
    # again for every question was most of a 5,000-row run's report (benchmarks/run_rows.py).
    import autofill.review.page_images as page_images

    searched = []
    real = page_images.find_passage_quads
    monkeypatch.setattr(page_images, "find_passage_quads",
                        lambda page, text, textpage=None: searched.append((page.number, text)) or
                        real(page, text, textpage))
    wb = openpyxl.load_workbook(case["out"])
    ws, ev = wb["Questionnaire"], wb["Evidence"]
    for row in range(8, 14):
        ws.cell(row, 3, f"Repeat question {row}")
        ws.cell(row, 5, ANSWER_1)
        ws.cell(row, 7, f"{PDF_NAME} p. 2")
        ws.cell(row, 9, "Answered")
        ev.append([row, f"Repeat question {row}", 1, PDF_NAME, 2, "yes", 0.9, CITED_TEXT])
    wb.save(case["out"])
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    assert len(_images(text)) == 8 and len(set(_images(text))) == 2  # every question still shows its page
    assert searched and len(searched) == len(set(searched))  # each (page, passage) searched once


def test_missing_pdf_renders_without_image_and_says_where(case, caplog):
    gone = case["tmp"] / "moved" / PDF_NAME
    with caplog.at_level("WARNING", logger="autofill"):
        path, text = _report(case, pdf_paths={PDF_NAME: gone})
    assert f"PDF not found at {html.escape(str(gone))}" in text
    # A warning through logging: the CLI prints it as `autofill: warning: ...` (tests/test_cli_output.py).
    assert any(r.levelname == "WARNING" and f"PDF not found at {gone}" in r.getMessage() for r in caplog.records)
    assert _images(text) == []
    assert html.escape(ANSWER_1) in text  # the rest of the report is still there


def test_pdf_paths_from_run_info_documents(case):
    make_output_workbook(case["out"], run_info={"documents": {PDF_NAME: str(case["pdf"])}})
    _, text = _report(case)
    assert len(_images(text)) == 2
    assert _rel(case["pdf"], case["out"]) + "#page=2" in text


def test_pdf_found_under_the_workspace(case):
    target = case["settings"].workspace / "reports" / PDF_NAME
    target.parent.mkdir()
    target.write_bytes(case["pdf"].read_bytes())
    make_output_workbook(case["out"], run_info={"company": ""})
    _, text = _report(case)
    assert len(_images(text)) == 2
    assert _rel(target, case["out"]) + "#page=2" in text


def test_pdf_path_from_the_evidence_store(case):
    from autofill.records import DocumentRecord
    from autofill.store.chroma_store import open_store

    settings = case["settings"]
    sha = hashlib.sha256(case["pdf"].read_bytes()).hexdigest()
    store = open_store(settings, "Acme", create=True, embedder="test-embedder")
    store.replace_document(DocumentRecord(PDF_NAME, sha, pages=3, chunks=0, empty_pages=0, ingested_at="",
                                          source_path=str(case["pdf"])), [], [])
    _, text = _report(case)  # company "Acme" comes from the Run info sheet
    assert len(_images(text)) == 2
    assert _rel(case["pdf"], case["out"]) + "#page=3" in text
    assert "changed since it was ingested" not in text

    # The PDF at the recorded path is replaced by another file: the reviewer is warned.
    case["pdf"].write_bytes(make_report_pdf(case["tmp"] / "other.pdf").read_bytes() + b"\n%changed\n")
    _, text = _report(case)
    assert "has changed since it was ingested" in text


def test_unknown_store_still_renders(case):
    path, text = _report(case, company="Nobody")
    assert "evidence store for &#39;Nobody&#39; unavailable" in text
    assert html.escape(ANSWER_1) in text


def test_cited_falls_back_to_sources_without_cited_column_and_sheet_column(case):
    make_output_workbook(case["out"], cited_column=False, evidence_sheet_column=True)
    _, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    q1 = text.split('id="q-questionnaire-5"')[1].split("</article>")[0]
    assert len(_images(q1)) == 1 and "#page=2" in q1


def test_rerun_replaces_the_report_atomically(case):
    path, _ = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    stale = path.parent / "pages" / "stale.png"
    stale.write_bytes(b"old")
    path2, text = _report(case, pdf_paths={PDF_NAME: case["pdf"]})
    assert path2 == path and not stale.exists()
    leftovers = [p.name for p in case["out"].parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []
    assert sorted(p.name for p in case["out"].parent.iterdir()) == ["filled.xlsx", "filled_review"]


def test_bad_inputs_are_input_errors(case):
    not_xlsx = case["tmp"] / "answers.xlsx"
    not_xlsx.write_text("No,Question\n1,What?\n")
    with pytest.raises(InputError, match="not a readable .xlsx"):
        write_review_report(case["settings"], not_xlsx)
    with pytest.raises(InputError, match="not found"):
        write_review_report(case["settings"], case["tmp"] / "missing.xlsx")
    plain = case["tmp"] / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active.append(["Question", "Answer"])
    wb.active.append(["What?", "Yes"])
    wb.save(plain)
    with pytest.raises(InputError, match="not an autofill output"):
        write_review_report(case["settings"], plain)


def test_cli_report_command(case):
    result = CliRunner().invoke(cli, ["--workspace", str(case["settings"].workspace), "report",
                                      str(case["out"]), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output.strip().splitlines()[-1])
    assert Path(data["report"]).is_file()
    bad = CliRunner().invoke(cli, ["--workspace", str(case["settings"].workspace), "report",
                                   str(case["tmp"] / "missing.xlsx")])
    assert bad.exit_code == 2


def test_passage_fragments_and_sources_parsing():
    text = "## Targets\n**Net zero** by 2050 across operated assets. Short.\n| Site | Scope 1 (kt) |\n|---|---|\n" \
           "| Alpha copper mine | 120 |"
    frags = passage_fragments(text)
    assert "Net zero by 2050 across operated assets" in frags
    assert "Alpha copper mine" in frags  # table cells are searched one by one
    assert all("|" not in f and "**" not in f and not f.startswith("#") for f in frags)
    assert "Short" not in frags and "120" not in frags  # too short to locate reliably
    assert word_windows("one two three four five six seven eight nine eleven.", 7) == [
        "one two three four five six seven", "eight nine eleven"]
    assert word_windows("one two three four five six seven eight nine", 7) == ["one two three four five six seven"]
    assert parse_sources("A.pdf p. 3; B report.pdf p.12; junk; A.pdf p. 3; C.pdf pp. 4-5") == [
        ("A.pdf", 3), ("B report.pdf", 12), ("C.pdf", 4)]


def test_a_sentence_repeated_elsewhere_on_the_page_is_not_highlighted_there():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    cited = ("Our medium-term target is a thirty percent reduction in operational emissions by 2030. "
             "Carbon offsets will be used as required.")
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 200), cited, fontsize=11)
    page.insert_textbox(pymupdf.Rect(72, 650, 523, 760), "17 Footnote on baselines. Carbon offsets will be used "
                        "as required.", fontsize=8)
    quads = find_passage_quads(page, cited)
    assert quads and all(q.rect.y1 < 300 for q in quads)  # only the passage at the top
    assert any("Carbon offsets" in page.get_textbox(q.rect + (-1, -1, 1, 1)) for q in quads)
    # Alone, a short passage is highlighted wherever it occurs: there is nothing to anchor it.
    assert any(q.rect.y0 > 600 for q in find_passage_quads(page, "Carbon offsets will be used as required."))


def test_report_on_a_workbook_written_by_the_real_writer(tmp_path, workspace):
    """The writer's own output (two question sheets, Sheet and Page end columns, its Run info keys)
    reads back row for row: the report and the writer agree on the format."""
    from autofill.records import Answer, Citation, Passage, RowResult
    from autofill.workbook.layout import read_questions
    from autofill.workbook.writeback import write_results

    pdf = make_report_pdf(tmp_path / PDF_NAME)
    src = tmp_path / "customer.xlsx"
    wb = openpyxl.Workbook()
    first = wb.active
    first.title = "Climate"
    first.append(["Customer questionnaire"])
    first.append(["No.", "Question", "Answer"])
    first.append(["1", QUESTION_1, None])
    second = wb.create_sheet("Governance")
    second.append(["No.", "Question", "Answer"])
    second.append(["", "Board oversight"])
    second.append(["1", QUESTION_2, None])
    wb.save(src)

    settings = Settings(workspace=workspace)
    layout, rows = read_questions(settings, src)
    assert [(q.sheet, q.row) for q in rows] == [("Climate", 3), ("Governance", 3)]

    def passage(rank, page, end, text):
        return Passage(chunk_id=f"c{rank}{page}", file_name=PDF_NAME, page_start=page, page_end=end, section="",
                       text=text, score=0.5, rank=rank)

    results = [
        RowResult(rows[0], Answer(answer=ANSWER_1, reasoning="Page 2 says so.", citations=[Citation(PDF_NAME, 2)],
                                  cited_passages=[1], confidence="high"),
                  passages=[passage(1, 2, 3, CITED_TEXT), passage(2, 1, 1, PAGE_TEXTS[0])]),
        RowResult(rows[1], None, passages=[passage(1, 3, 3, HOSTILE_TEXT)], error="rate limited"),
    ]
    out = write_results(settings, src, layout, results, tmp_path / "out" / "customer_filled.xlsx",
                        {"company": "Acme", "llm model": "gpt-4o-mini", "total cost usd": 0.5,
                         "documents": json.dumps({PDF_NAME: str(pdf)})})
    book = read_filled_workbook(out)
    assert [(q.sheet, q.row, q.number) for q in book.questions] == [("Climate", 3, "1"), ("Governance", 3, "1")]
    climate, gov = book.questions
    assert climate.answer == ANSWER_1 and climate.confidence == "high" and climate.cited_sources == [(PDF_NAME, 2)]
    assert [(e.rank, e.page_start, e.page_end, e.cited) for e in climate.evidence] == [(1, 2, 3, True),
                                                                                      (2, 1, 1, False)]
    assert [e.text for e in gov.evidence] == [HOSTILE_TEXT] and gov.status  # failed rows keep their evidence

    path = write_review_report(settings, out)  # PDF paths from the Run info `documents` entry
    text = path.read_text(encoding="utf-8")
    assert html.escape(ANSWER_1) in text and "&lt;script&gt;" in text and "<script>" not in text
    climate_card = text.split('id="q-climate-3"')[1].split("</article>")[0]
    assert "#page=2" in climate_card and "#page=3" in climate_card  # a chunk over a page break: both pages
    assert len(_images(climate_card)) == 2
    assert "gpt-4o-mini" in text and "total cost usd" in text


def test_customer_wording_of_question_answer_and_number_columns_reads_back(tmp_path, workspace):
    """Layout detection accepts a question column called `Requirement` (and `Ref.`, `Company
    response`); the writer keeps those headers, so the reader must name them by the same rules or
    every answer vanishes from the report and the evaluation."""
    from autofill.workbook.layout import read_questions
    from autofill.workbook.writeback import write_results
    from tests.workbook_builders import result_for

    src = tmp_path / "customer.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Ref.", "Requirement", "Company response"])
    ws.append(["C1", QUESTION_1, None])
    wb.save(src)
    settings = Settings(workspace=workspace)
    layout, rows = read_questions(settings, src)
    out = write_results(settings, src, layout, [result_for(rows[0], answer=ANSWER_1)],
                        tmp_path / "customer_filled.xlsx", {})
    book = read_filled_workbook(out)
    assert [(q.row, q.number, q.question, q.answer, q.in_sheet) for q in book.questions] == [
        (2, "C1", QUESTION_1, ANSWER_1, True)]


@pytest.mark.parametrize("kind", ["corrupt", "encrypted"])
def test_unreadable_pdf_gives_a_note_not_a_failure(case, kind):
    bad = case["tmp"] / "bad" / PDF_NAME
    bad.parent.mkdir()
    if kind == "corrupt":
        bad.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    else:
        with pymupdf.open(case["pdf"]) as doc:
            doc.save(str(bad), encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="secret")
    _, text = _report(case, pdf_paths={PDF_NAME: bad})
    assert _images(text) == []
    assert "page image unavailable" in text
    assert f"pages of {PDF_NAME} could not be rendered" in text.split("Check before reviewing")[1]
    if kind == "encrypted":
        assert "password-protected" in text
    assert html.escape(ANSWER_1) in text


def test_checks_per_answer_and_questions_grouped_by_tier(tmp_path):
    """Outputs with Tier and Checks columns: each answer shows its failed checks, and the report lists
    the questions tier by tier, Needs work first."""
    import openpyxl

    from tests.review_fixtures import make_output_workbook

    path = make_output_workbook(tmp_path / "filled.xlsx")
    make_report_pdf(tmp_path / PDF_NAME)
    wb = openpyxl.load_workbook(path)
    ws = wb["Questionnaire"]
    ws["L3"], ws["M3"] = "Tier", "Checks"
    ws["L5"], ws["M5"] = "Ready", None
    ws["L6"], ws["M6"] = "Needs work", "evidence-only draft: no model answered; 987,654 tCO2e not in cited passages"
    ws["L7"], ws["M7"] = "Check", "model confidence low"
    wb.save(path)
    html = write_review_report(Settings(workspace=tmp_path), path, pdf_paths={PDF_NAME: tmp_path / PDF_NAME}) \
        .read_text(encoding="utf-8")
    assert "987,654 tCO2e not in cited passages" in html and "model confidence low" in html
    groups = [html.index(f'id="tier-{k}"') for k in ("needs_work", "check", "ready")]
    assert groups == sorted(groups)  # Needs work first, then Check, then Ready
    assert html.count('data-tier="needs_work"') == 1 and html.count('data-tier="ready"') == 1
    assert "Every check passed" in html
