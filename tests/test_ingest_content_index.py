"""A report's own content index (autofill/frameworks/content_index.py): read at ingest from a real PDF's
index table (page references turned into PDF pages by the printed page numbers), kept beside the store,
asked by requirement; an index without page numbers gives nothing; a description's "Scope 1" is never
page 1."""

from __future__ import annotations

from autofill.frameworks.content_index import page_refs, pointed_pages
from autofill.ingest.pipeline import ingest_paths
from autofill.settings import Settings
from autofill.store.chroma_client import collection_name
from tests.fakes import FakeEmbedder
from tests.pdf_factory import make_pdf


def _report(path, with_pages=True):
    rows = [["GRI 305-1", "Direct (Scope 1) GHG emissions", "2"], ["GRI 305-2", "Energy indirect (Scope 2)", "2-3"],
            ["GRI 302-1", "Energy consumption within the organization", "3"], ["GRI 2-19", "Remuneration", "4"]]
    if not with_pages:
        rows = [r[:2] for r in rows]
    pages = [[("h1", "Our year"), ("p", "We are a cement maker with plants in four countries. " * 8)],
             [("h1", "Emissions"), ("p", "Our direct (Scope 1) emissions were 1.2 Mt CO2e in 2024. " * 6)],
             [("h1", "Energy"), ("p", "We used 3.4 TWh of energy; Scope 2 emissions were 0.3 Mt. " * 6)],
             [("h1", "GRI content index"),
              ("table", ["Disclosure", "Title"] + (["Page"] if with_pages else []), rows)]]
    return make_pdf(path, pages)


def test_page_references():
    assert page_refs("45, 47-48") == ["45", "47", "48"]
    assert page_refs("pp. 12–13") == ["12", "13"]
    assert page_refs("Direct (Scope 1) GHG emissions") == [] and page_refs("") == []
    assert page_refs("12-140") == ["12"]  # not a range an index names


def test_the_index_is_read_at_ingest_and_asked_by_requirement(tmp_path):
    settings = Settings(workspace=tmp_path)
    pdf = _report(tmp_path / "Report.pdf")
    report = ingest_paths(settings, "Calder", [pdf], embedder=FakeEmbedder())
    assert report.count("failed") == 0
    coll = collection_name("Calder")
    assert pointed_pages(settings, coll, ["GRI 305-1"]) == [("Report.pdf", 2, "GRI 305-1")]
    assert pointed_pages(settings, coll, ["GRI 305-2", "GRI 302-1"]) == [
        ("Report.pdf", 2, "GRI 305-2"), ("Report.pdf", 3, "GRI 305-2")]  # page 3 once, first for 305-2
    assert pointed_pages(settings, coll, ["GRI 305-3"]) == []


def test_an_index_without_pages_gives_nothing_and_replaces_the_old_one(tmp_path):
    settings = Settings(workspace=tmp_path)
    ingest_paths(settings, "Calder", [_report(tmp_path / "Report.pdf")], embedder=FakeEmbedder())
    ingest_paths(settings, "Calder", [_report(tmp_path / "Report.pdf", with_pages=False)], embedder=FakeEmbedder())
    assert pointed_pages(settings, collection_name("Calder"), ["GRI 305-1"]) == []


def test_a_run_tells_the_reviewer_where_the_reports_index_points(tmp_path):
    import openpyxl

    from autofill.answer.pipeline import run_questionnaire
    from autofill.providers.base import Providers
    from autofill.review.reader import read_filled_workbook
    from tests.workbook_builders import build_questionnaire

    settings = Settings(workspace=tmp_path)
    emb = FakeEmbedder()
    ingest_paths(settings, "Calder", [_report(tmp_path / "Report.pdf")], embedder=emb)
    q = build_questionnaire(tmp_path / "q.xlsx", questions=[
        ("Emissions", "What were your gross Scope 1 emissions (tCO2e)?", "Number", False),
        ("Other", "How many employees do you have?", "Number", False)])
    out = run_questionnaire(settings, "Calder", q, providers=Providers(embedder=emb)).output
    rows = {r.question: r.datapoints for r in read_filled_workbook(out).questions}
    scope1 = rows["What were your gross Scope 1 emissions (tCO2e)?"].splitlines()
    assert scope1[0].startswith("Gross Scope 1 GHG emissions (") and "GRI 305-1" in scope1[0]
    assert scope1[-1] == "The report's GRI index points here: Report.pdf p. 2"
    assert not rows["How many employees do you have?"]
    assert openpyxl.load_workbook(out).active is not None
