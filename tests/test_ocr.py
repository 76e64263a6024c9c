"""OCR of image-only pages and of chart images on text pages (autofill/ingest/ocr.py), through the
real parser, the real Tesseract and the real Chroma store. The pure layout helpers are tested alone."""

from __future__ import annotations

import re

import pytest

from autofill.ingest import ocr
from autofill.ingest.pdf import parse_pdf
from autofill.ingest.pipeline import chunking_fingerprint, ingest_paths
from autofill.settings import IngestSettings, Settings
from autofill.store.chroma_store import open_store
from tests import ocr_factory as of
from tests.fakes import FakeEmbedder

needs_tesseract = pytest.mark.skipif(not ocr.available(), reason="Tesseract not installed (scripts/install_ocr.sh)")

SCAN = [
    ["Climate report 2024", "Our Scope 1 emissions were 1,120 kilotonnes in 2024.",
     "We target net zero operational emissions by 2050."],
    ["Water and biodiversity", "Water withdrawal at the desalination plant was 3.1 gigalitres."],
]


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9.,]+", text.lower()))


@needs_tesseract
def test_a_scanned_report_is_read_by_ocr_and_marked_as_such(tmp_path):
    doc = parse_pdf(of.make_scanned_pdf(tmp_path / "scan.pdf", SCAN), IngestSettings())
    assert doc.ocr_pages == [1, 2] and doc.empty_pages == []
    first = _words(" ".join(b.text for b in doc.pages[0].blocks))
    assert "scope 1 emissions were 1,120 kilotonnes in 2024" in first
    assert "net zero operational emissions by 2050" in first
    assert "3.1 gigalitres" in _words(" ".join(b.text for b in doc.pages[1].blocks))
    assert all(b.ocr for p in doc.pages for b in p.blocks)


@needs_tesseract
def test_a_chart_image_on_a_text_page_gives_its_figures_without_repeating_the_prose(tmp_path):
    prose = "Our energy use fell again this year, as the chart below shows for each site."
    pdf = of.make_chart_page_pdf(tmp_path / "chart.pdf", prose, "Energy use by site (GWh)",
                                 ["Alpha", "Beta", "Gamma"], ["4,250", "1,730", "960"])
    doc = parse_pdf(pdf, IngestSettings())
    assert doc.ocr_pages == [1]
    text_blocks = [b for b in doc.pages[0].blocks if not b.ocr]
    ocr_text = _words(" ".join(b.text for b in doc.pages[0].blocks if b.ocr))
    assert "our energy use fell again" in _words(" ".join(b.text for b in text_blocks))
    for figure in ("4,250", "1,730", "960", "alpha", "gamma", "energy use by site"):
        assert figure in ocr_text
    assert "fell again" not in ocr_text  # the prose comes from the text layer only

    off = parse_pdf(pdf, IngestSettings(ocr=False))
    assert off.ocr_pages == [] and "4,250" not in " ".join(b.text for b in off.pages[0].blocks)


@needs_tesseract
def test_ingest_counts_ocr_pages_and_stores_the_mark_in_chunk_metadata(tmp_path, workspace):
    settings = Settings(workspace=workspace)
    scan = of.make_scanned_pdf(tmp_path / "scan.pdf", SCAN)
    report = ingest_paths(settings, "Acme", [scan], embedder=FakeEmbedder())
    assert report.to_json()["ocr_pages"] == 2 and report.files[0].ocr_pages == 2
    store = open_store(settings, "Acme")
    assert store.documents()["scan.pdf"].ocr_pages == 2
    got = store._chunks.get(include=["metadatas"])
    assert got["metadatas"] and all(m["ocr"] is True for m in got["metadatas"])
    passages = store.bm25_search("desalination gigalitres", 3)
    assert passages and passages[0].ocr and passages[0].page_end == 2


def test_with_ocr_off_a_scan_fails_with_one_line(tmp_path, workspace):
    settings = Settings(workspace=workspace)
    settings.ingest.ocr = False
    report = ingest_paths(settings, "Acme", [of.make_scanned_pdf(tmp_path / "scan.pdf", SCAN)],
                          embedder=FakeEmbedder())
    assert report.files[0].status == "failed" and "ingest.ocr = false" in report.files[0].error


def test_ocr_settings_are_part_of_the_chunking_fingerprint():
    base = chunking_fingerprint(IngestSettings())
    assert chunking_fingerprint(IngestSettings(ocr=False)) != base
    assert chunking_fingerprint(IngestSettings(ocr_dpi=300)) != base
    assert chunking_fingerprint(IngestSettings()) == base


def test_only_large_images_and_textless_pages_are_ocr_regions(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 700), "Text layer. " * 200, fontsize=10)
    page.insert_image(pymupdf.Rect(72, 700, 122, 750), stream=of.chart_png("Logo", ["A"], ["1"]))  # small
    assert ocr.regions(page, 2400, IngestSettings()) == ([], False)
    page = doc.new_page()  # PyMuPDF caches a page's image list: the chart page is a new page
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 700), "Text layer. " * 200, fontsize=10)
    page.insert_image(pymupdf.Rect(72, 300, 523, 600), stream=of.chart_png("Chart", ["A", "B"], ["1", "2"]))
    areas, whole = ocr.regions(page, 2400, IngestSettings())
    assert len(areas) == 1 and not whole
    assert ocr.regions(page, 50, IngestSettings())[1] is False  # a chart on a short page is still a chart
    blank = doc.new_page()
    assert ocr.regions(blank, 0, IngestSettings()) == ([], False)  # nothing drawn: nothing to read
    scan = doc.new_page()
    scan.insert_image(scan.rect, stream=of.chart_png("Scan", ["A"], ["1"]), keep_proportion=False)
    assert ocr.regions(scan, 30, IngestSettings()) == ([(scan.rect, None)], True)
    assert ocr.read_page(page, [], 2400, IngestSettings(ocr=False)) == []


def test_columns_read_as_one_line_are_split_and_read_column_by_column():
    # (x0, y0, x1, y1, word, block, line): two columns Tesseract joined into each line
    words = []
    for row, (left, right) in enumerate([("Left one", "Right one"), ("left two.", "right two.")]):
        y = 100 + row * 14
        for i, w in enumerate(left.split()):
            words.append((50 + i * 40, y, 85 + i * 40, y + 10, w, 0, row))
        for i, w in enumerate(right.split()):
            words.append((320 + i * 40, y, 355 + i * 40, y + 10, w, 0, row))
    segs = ocr.split_columns(words)
    assert sorted(t for t, _ in segs) == ["Left one", "Right one", "left two.", "right two."]
    blocks = ocr.group_lines(segs, 600)
    assert [[t for t, _ in b] for b in blocks] == [["Left one", "left two."], ["Right one", "right two."]]


def test_ocr_lines_lying_on_text_layer_lines_are_dropped():
    blocks = [ocr.OcrBlock(("Printed footer 26", "Chart value 4,250"), (0, 0, 100, 40))]
    rects = [[(10, 0, 90, 10), (10, 30, 90, 40)]]
    known = [(0, 0, 100, 12)]  # the footer is in the text layer
    assert ocr.drop_known(blocks, rects, known)[0].lines == ("Chart value 4,250",)
    assert ocr.drop_known(blocks, rects, [(0, 0, 100, 45)]) == []


def test_tesseract_tsv_keeps_confident_words_with_their_boxes():
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
           "4\t1\t1\t1\t1\t0\t10\t20\t200\t30\t-1\t\n"
           "5\t1\t1\t1\t1\t1\t10\t20\t80\t30\t96.5\t4,250\n"
           "5\t1\t1\t1\t1\t2\t100\t20\t60\t30\t12.0\t|\n"
           "5\t1\t2\t1\t1\t1\t10\t80\t50\t30\t91.0\tAlpha\n"
           "5\t1\t2\t1\t1\t2\t70\t80\t50\t30\t91.0\t \n")
    assert ocr.parse_tsv(tsv) == [(10, 20, 90, 50, "4,250", 1, (1, 1, 1)), (10, 80, 60, 110, "Alpha", 2, (2, 1, 1))]


def test_cli_no_ocr_turns_it_off(tmp_path, workspace):
    from click.testing import CliRunner

    from autofill.cli import cli

    scan = of.make_scanned_pdf(tmp_path / "scan.pdf", SCAN)
    result = CliRunner().invoke(cli, ["--workspace", str(workspace), "ingest", "--company", "Acme", "--no-ocr",
                                      "--json", str(scan)])
    assert result.exit_code == 2 and "ingest.ocr = false" in result.output


# ---- Tesseract under load: a CPU-time limit, not a wall-clock one (benchmarks/ocr_stress.py)


def _fake_tesseract(tmp_path, body: str):
    script = tmp_path / "tesseract"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return str(script)


def test_a_slow_but_idle_tesseract_is_waited_for(tmp_path, monkeypatch):
    """On a loaded machine a page waits for the CPU: its wall time grows, its CPU time does not. That
    must not drop the page's OCR (a 300 s wall-clock limit used to)."""
    from autofill.ingest import ocr

    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    row = "5\t1\t1\t1\t1\t1\t10\t10\t50\t20\t96\tScope"
    monkeypatch.setattr(ocr, "_binary", lambda: _fake_tesseract(tmp_path, f"sleep 2\nprintf '{header}\\n{row}\\n'"))
    monkeypatch.setattr(ocr, "OCR_CPU_LIMIT_S", 1)
    ocr.take_failures()
    words = ocr.tesseract_words(b"png", 150, "eng", sparse=False)
    assert [w[4] for w in words] == ["Scope"] and ocr.take_failures() == []


def test_a_tesseract_that_burns_cpu_is_stopped_and_reported(tmp_path, monkeypatch):
    from autofill.ingest import ocr

    monkeypatch.setattr(ocr, "_binary", lambda: _fake_tesseract(tmp_path, "while :; do :; done"))
    monkeypatch.setattr(ocr, "OCR_CPU_LIMIT_S", 1)
    ocr.take_failures()
    assert ocr.tesseract_words(b"png", 150, "eng", sparse=False) == []
    (warning,) = ocr.take_failures()
    assert warning.startswith("OCR skipped 1 image region (Tesseract used its 1 s of CPU time")
    assert "--force" in warning and ocr.take_failures() == []


def test_tesseract_runs_one_thread_unless_the_user_says_otherwise(tmp_path, monkeypatch):
    from autofill.ingest import ocr

    seen = tmp_path / "env.txt"
    monkeypatch.setattr(ocr, "_binary", lambda: _fake_tesseract(tmp_path, f"echo $OMP_THREAD_LIMIT > {seen}"))
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    ocr.tesseract_words(b"png", 150, "eng", sparse=False)
    assert seen.read_text().strip() == "1"
    monkeypatch.setenv("OMP_THREAD_LIMIT", "2")
    ocr.tesseract_words(b"png", 150, "eng", sparse=False)
    assert seen.read_text().strip() == "2"


def test_an_image_only_pdf_whose_ocr_failed_says_so_and_is_worth_a_retry(monkeypatch):
    from autofill.ingest import ocr, pdf
    from autofill.ingest.pipeline import transient
    from autofill.settings import IngestSettings

    monkeypatch.setattr(ocr, "available", lambda: True)
    ocr.take_failures()
    assert pdf._why_no_ocr_text(IngestSettings()) == "OCR found none either"
    ocr._failures.append("Tesseract used its 300 s of CPU time on one image")
    why = pdf._why_no_ocr_text(IngestSettings())
    assert why.startswith("OCR skipped 1 image region (Tesseract used its 300 s")
    assert transient(f"image-only PDF: no extractable text on any of 46 pages ({why})")
    assert not transient("image-only PDF: no extractable text on any of 46 pages (OCR found none either)")
    ocr.take_failures()
