"""Damaged and partial PDFs (autofill/ingest/damage.py): real damaged files made here from generated
PDFs (cut to their first third, a broken cross-reference table, a page tree that claims more pages
than there are, mostly blank pages) are stored with warnings that reach the ingest's JSON line, the
store's records and `autofill companies`; sound files get none; the PDF library's own messages stay
off stderr."""

from __future__ import annotations

import json
import logging

import pytest
from click.testing import CliRunner

from autofill.cli import cli
from autofill.ingest.damage import check_pdf, damage_warnings, page_ranges, read_structure, Structure
from autofill.ingest.pdf import parse_pdf
from autofill.ingest.pipeline import ingest_paths
from autofill.records import ParsedDocument
from autofill.settings import IngestSettings, Settings
from autofill.store.chroma_store import open_store
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder

LONG = ("Scope 1 emissions at the smelter fell by four per cent as the new furnace came online, and the "
        "water recycled on site rose to sixty per cent of all water withdrawn in the reporting year. ") * 6


def long_report(path, pages=30):
    return pf.make_pdf(path, [[("h1", f"Section {i}"), ("p", LONG)] for i in range(1, pages + 1)])


@pytest.fixture
def report(tmp_path):
    return long_report(tmp_path / "report.pdf")


@pytest.fixture
def truncated(tmp_path, report):
    """About the first third of the report's bytes, what an interrupted download or copy leaves: cut
    inside the data of a content stream. (MuPDF cannot repair a file cut inside an object's dictionary
    at all; that one fails as "corrupt PDF", see test_pdf.py.)"""
    return cut_in_a_stream(report, tmp_path / "truncated.pdf")


def cut_in_a_stream(source, path, share=1 / 3):
    data = source.read_bytes()
    at = data.rindex(b">>\nstream\n", 0, int(len(data) * share)) + len(b">>\nstream\n") + 40
    path.write_bytes(data[:at])
    return path


@pytest.fixture
def broken_xref(tmp_path, report):
    """The startxref offset points nowhere: MuPDF has to rebuild the cross-reference table."""
    data = report.read_bytes()
    at = data.rindex(b"startxref")
    path = tmp_path / "broken_xref.pdf"
    path.write_bytes(data[:at] + b"startxref\n999999\n%%EOF\n")
    return path


@pytest.fixture
def overcounted(tmp_path):
    """A sound file whose page tree says /Count 8 but holds 5 pages."""
    import pymupdf

    five = pf.make_text_pdf(tmp_path / "five_src.pdf", [f"Page {i}: water use and emissions." for i in range(5)])
    doc = pymupdf.open(five)
    pages = int(doc.xref_get_key(doc.pdf_catalog(), "Pages")[1].split()[0])
    doc.xref_set_key(pages, "Count", "8")
    path = tmp_path / "overcounted.pdf"
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def mostly_blank(tmp_path):
    pages = [[("h1", "Cover"), ("p", LONG)]] + [[("space", 10)]] * 4 + [[("p", LONG)]]
    return pf.make_pdf(tmp_path / "mostly_blank.pdf", pages, page_numbers=False)


def warnings_for(path):
    settings = IngestSettings()
    return check_pdf(path, parse_pdf(path, settings), settings)


def test_a_sound_report_has_no_warnings(report, tmp_path):
    assert warnings_for(report) == []
    assert warnings_for(pf.make_sample_company_pdf(tmp_path / "northwind.pdf")) == []
    assert read_structure(report) == Structure(repaired=False, repair_reason="", declared_pages=30)


def test_the_first_third_of_a_report_is_flagged_three_ways(truncated):
    found = warnings_for(truncated)
    assert len(found) == 3, found
    assert found[0].startswith("damaged file: it ends early") and "had to be repaired" in found[0]
    assert found[1].startswith("its page list declares 30 pages but only ") and found[1].endswith("are in the file")
    assert "of 30 pages have no extractable text" in found[2] and "-30)" in found[2]


def test_a_broken_cross_reference_table_is_flagged(broken_xref):
    assert warnings_for(broken_xref) == [
        "damaged file: its internal index is broken and had to be repaired; pages or text may be missing"]


def test_a_page_tree_claiming_more_pages_than_exist_is_flagged(overcounted):
    assert warnings_for(overcounted) == ["its page list declares 8 pages but only 5 could be read"]


def test_mostly_pages_without_text_is_flagged_and_the_threshold_is_a_setting(mostly_blank):
    found = warnings_for(mostly_blank)
    assert found == ["4 of 6 pages have no extractable text (pages 2-5); reports usually have a few at most"]
    lenient = IngestSettings(damaged_empty_share=0.8)
    assert check_pdf(mostly_blank, parse_pdf(mostly_blank, lenient), lenient) == []


def test_damage_warnings_rules():
    doc = ParsedDocument(path=None, file_name="x.pdf", sha256="", pages=[], page_count=10, empty_pages=[1, 2])
    settings = IngestSettings()
    assert damage_warnings(Structure(declared_pages=10), doc, settings) == []
    doc.empty_pages = [1, 2, 3, 4]  # 40 % and four pages
    assert len(damage_warnings(Structure(declared_pages=10), doc, settings)) == 1
    small = ParsedDocument(path=None, file_name="x.pdf", sha256="", pages=[], page_count=3, empty_pages=[2, 3])
    assert damage_warnings(Structure(), small, settings) == []  # two pages are too few to judge by
    assert damage_warnings(Structure(declared_pages=12, page_objects=11), doc, settings)[0] == \
        "its page list declares 12 pages but only 10 could be read"


def test_page_ranges():
    assert page_ranges([2, 3, 4, 9, 12, 13]) == "2-4, 9, 12-13"
    assert page_ranges([1, 3, 5, 7, 9, 11, 13], most=3) == "1, 3, 5, ..."


def test_damaged_files_are_stored_with_warnings_everywhere(workspace, tmp_path, report, truncated, broken_xref,
                                                          capfd, caplog):
    settings = Settings(workspace=workspace)
    with caplog.at_level(logging.INFO, logger="autofill"):
        result = ingest_paths(settings, "BHP", [report, truncated, broken_xref], embedder=FakeEmbedder())
    by_name = {f.path.rsplit("/", 1)[-1]: f for f in result.files}
    assert [f.status for f in result.files] == ["new", "new", "new"]  # still stored: it is what there is
    assert by_name["report.pdf"].warnings == []
    assert len(by_name["truncated.pdf"].warnings) == 3 and len(by_name["broken_xref.pdf"].warnings) == 1

    data = result.to_json()
    assert {w["file"] for w in data["warnings"]} == {str(truncated), str(broken_xref)}
    assert all(w["why"] for w in data["warnings"]) and len(data["warnings"]) == 4

    # The line of a damaged file is a warning, in our words; the PDF library said nothing on stderr.
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2 and any("truncated.pdf" in w and "may be incomplete: damaged file" in w for w in warned)
    err = capfd.readouterr().err
    for library_words in ("RuntimeWarning", "format error", "trying to repair", "repairing PDF document"):
        assert library_words not in err

    records = open_store(settings, "BHP").documents()
    assert records["truncated.pdf"].warnings == by_name["truncated.pdf"].warnings
    assert records["report.pdf"].warnings == []

    # Unchanged on the next ingest: skipped, and still flagged.
    again = ingest_paths(settings, "BHP", [truncated], embedder=FakeEmbedder())
    assert again.files[0].status == "skipped" and len(again.to_json()["warnings"]) == 3

    runner = CliRunner()
    out = runner.invoke(cli, ["--workspace", str(workspace), "companies", "--json"])
    assert out.exit_code == 0, out.output
    store = json.loads(out.stdout)["companies"][0]
    details = {d["file"]: d for d in store["document_details"]}
    assert set(details) == {"report.pdf", "truncated.pdf", "broken_xref.pdf"}
    assert details["report.pdf"] == {"file": "report.pdf", "pages": 30, "chunks": records["report.pdf"].chunks,
                                     "period": records["report.pdf"].period, "warnings": [],
                                     "language": records["report.pdf"].language}  # issue 33: each document's
    assert details["truncated.pdf"]["warnings"] == records["truncated.pdf"].warnings
    text = runner.invoke(cli, ["--workspace", str(workspace), "companies"]).stdout
    assert "warning: damaged file: it ends early" in text and "warning: its page list declares 30 pages" in text


def test_records_from_before_warnings_read_as_none(workspace, tmp_path):
    settings = Settings(workspace=workspace)
    pdf = pf.make_text_pdf(tmp_path / "old.pdf", ["Scope 2 emissions were 45 kt."])
    ingest_paths(settings, "BHP", [pdf], embedder=FakeEmbedder())
    store = open_store(settings, "BHP")
    meta = store._docs.get(include=["metadatas"])["metadatas"][0]
    assert meta["warnings"] == "[]"  # scalar in Chroma
    del meta["warnings"]
    store._docs.delete(ids=["old.pdf"])  # an upsert would merge the old metadata into the new
    store._docs.add(ids=["old.pdf"], embeddings=[[1.0]], metadatas=[meta])
    assert "warnings" not in store._docs.get(include=["metadatas"])["metadatas"][0]
    assert store.documents()["old.pdf"].warnings == []
    meta["warnings"] = "not json"  # damaged by hand: still readable, as one warning
    store._docs.upsert(ids=["old.pdf"], embeddings=[[1.0]], metadatas=[meta])
    assert store.documents()["old.pdf"].warnings == ["not json"]


def test_library_runtime_warnings_are_silenced_and_ours_are_not(monkeypatch):
    """numpy's 'divide by zero encountered in log' from PyMuPDF's layout code on a damaged page (seen on
    a truncated real report) never reaches the user; a RuntimeWarning from elsewhere still does."""
    import warnings

    from autofill.ingest import damage

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # record everything not filtered below
        monkeypatch.setattr(damage, "_quiet", False)
        damage.quiet_pdf_library()  # installs its filter inside this catch_warnings block
        warnings.warn_explicit("divide by zero encountered in log", RuntimeWarning, "common_util.py", 1,
                               module="pymupdf.layout.common_util")
        warnings.warn_explicit("something of ours", RuntimeWarning, "pipeline.py", 1,
                               module="autofill.ingest.pipeline")
    assert [str(w.message) for w in seen] == ["something of ours"]
