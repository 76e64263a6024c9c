"""The report's own map among a row's candidates (autofill/search/index_pages.py) and its removal by
`autofill forget` (frameworks/content_index.drop_document): a real PDF whose GRI index names the page of the Scope 1
figure, ingested into a real Chroma store; the page joins the candidates of a Scope 1 row that the
searches alone leave out, the pool keeps its size, and nothing changes with the setting off, for a row
without datapoints, or once the real CLI has forgotten the document or the company."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

from autofill.search.index_pages import with_index_pages
from autofill.search.retrieval import retrieve
from autofill.frameworks.coverage import tag_rows
from autofill.frameworks.content_index import drop_document, load
from autofill.ingest.pipeline import ingest_paths
from autofill.plan import resolve_plan
from autofill.records import QuestionRow
from autofill.settings import Settings
from autofill.store.chroma_store import open_store
from tests import cli_process
from tests.fakes import FakeEmbedder
from tests.pdf_factory import make_pdf

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What were your gross Scope 1 emissions in the reporting year?"


def _report(path: Path) -> Path:
    """Page 2 holds the figure in the report's own words; pages 3-7 talk about Scope 1 without it."""
    talk = [[("h1", f"Our climate story, part {i}"),
             ("p", "Gross Scope 1 emissions in the reporting year matter to us; what were your emissions, "
                   "readers ask, and we answer that gross emissions in the year were in line with plans. " * 3)]
            for i in range(5)]
    pages = [[("h1", "About us"), ("p", "We make cement in four countries. " * 10)],
             [("h1", "Operational footprint"),
              ("table", ["Indicator", "2024"], [["Released by our own kilns and trucks (t CO2e)", "1,234,567"]]),
              ("p", "Kilns, quarries and trucks at every plant were counted, fuel by fuel, by site teams. " * 12)],
             *talk,
             [("h1", "GRI content index"),
              ("table", ["Disclosure", "Title", "Page"], [["GRI 305-1", "Direct GHG emissions", "2"]])]]
    return make_pdf(path, pages)


def _row(question: str = QUESTION) -> QuestionRow:
    row = QuestionRow(sheet="Q", row=2, question=question)
    tag_rows(Settings(), [row])
    return row


def _ingested(tmp_path: Path, **retrieval):
    settings = Settings(workspace=tmp_path)
    settings.retrieval = replace(settings.retrieval, **retrieval)
    emb = FakeEmbedder()
    report = ingest_paths(settings, "Calder", [_report(tmp_path / "Report.pdf")], embedder=emb)
    assert report.count("failed") == 0
    return settings, open_store(settings, "Calder"), emb


def _pages(passages) -> list[int]:
    return [p.page_start for p in passages]


def test_the_page_the_index_names_joins_the_candidates(tmp_path):
    settings, store, emb = _ingested(tmp_path)
    row = _row()
    assert "GRI 305-1" in row.datapoints
    mode = resolve_plan(settings, chat=None, embedder=store.embedder_name).mode
    plain = retrieve(settings, store, emb, row, mode, n=3)
    assert 2 not in _pages(plain) and len(plain) == 3  # the searches alone leave the figure's page out
    merged = with_index_pages(settings, store, row, plain)
    assert 2 in _pages(merged) and len(merged) == 3
    assert [p.rank for p in merged] == [1, 2, 3]

    # A page the searches already found rises instead of being added twice.
    deep = retrieve(settings, store, emb, row, mode, n=8)
    assert 2 in _pages(deep)
    lifted = with_index_pages(settings, store, row, deep)
    assert _pages(lifted).index(2) < _pages(deep).index(2) and len(lifted) == len(deep)
    assert len(set(p.chunk_id for p in lifted)) == len(lifted)


def test_off_without_datapoints_or_without_an_index_the_candidates_stay_as_retrieved(tmp_path):
    settings, store, emb = _ingested(tmp_path, content_index=False)
    mode = resolve_plan(settings, chat=None, embedder=store.embedder_name).mode
    assert resolve_plan(settings, chat=None).content_index is False
    assert resolve_plan(Settings(workspace=tmp_path), chat=None).content_index is True
    row = _row()
    plain = retrieve(settings, store, emb, row, mode, n=3)
    assert with_index_pages(settings, store, row, plain) == plain

    on = Settings(workspace=tmp_path)
    unmapped = _row("How many employees do you have?")
    assert not unmapped.datapoints
    other = retrieve(on, store, emb, unmapped, mode, n=3)
    assert with_index_pages(on, store, unmapped, other) == other
    drop_document(on, store.collection)
    assert with_index_pages(on, store, row, plain) == plain


def _cli(workspace: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOFILL_LLM__PROVIDER": "none"}
    return cli_process.run(["--workspace", str(workspace), *args], env=env, timeout=240, cwd=workspace)


def test_forget_removes_the_content_index_of_a_document_and_of_the_company(tmp_path):
    settings, store, emb = _ingested(tmp_path)
    other = make_pdf(tmp_path / "Annex.pdf", [[("h1", "Annex"), ("p", "Energy data. " * 20)],
                                              [("h1", "GRI content index"),
                                               ("table", ["Disclosure", "Title", "Page"],
                                                [["GRI 302-1", "Energy consumption", "1"]])]])
    ingest_paths(settings, "Calder", [other], embedder=emb)
    assert set(load(settings, store.collection)) == {"Report.pdf", "Annex.pdf"}

    done = _cli(tmp_path, "forget", "--company", "Calder", "--doc", "Report.pdf", "--yes")
    assert done.returncode == 0, done.stderr
    assert set(load(settings, store.collection)) == {"Annex.pdf"}
    path = settings.vectordb_dir / ".content-index" / f"{store.collection}.json"
    assert path.is_file()

    done = _cli(tmp_path, "forget", "--company", "Calder", "--yes")
    assert done.returncode == 0, done.stderr
    assert not path.exists() and load(settings, store.collection) == {}
    assert drop_document(settings, store.collection) is False  # nothing left to remove


def test_a_run_shows_the_reviewer_the_page_the_index_names(tmp_path):
    """Through the run pipeline: with the pool cut to three, the Evidence sheet of the Scope 1 row holds
    the page the report's GRI index names only with `retrieval.content_index` on."""
    import openpyxl

    from autofill.answer.pipeline import run_questionnaire
    from autofill.providers.base import Providers
    from tests.workbook_builders import build_questionnaire

    settings, _store, emb = _ingested(tmp_path, candidates=3, final_k=3)
    q = build_questionnaire(tmp_path / "q.xlsx", questions=[("Emissions", QUESTION, "Number", False)])
    pages = {}
    for on in (True, False):
        settings.retrieval = replace(settings.retrieval, content_index=on)
        out = run_questionnaire(settings, "Calder", q, providers=Providers(embedder=emb),
                                output=tmp_path / f"out-{on}.xlsx").output
        ws = openpyxl.load_workbook(out)["Evidence"]
        head = [c.value for c in ws[1]]
        pages[on] = {r[head.index("Page")] for r in ws.iter_rows(min_row=2, values_only=True)}
    assert 2 in pages[True] and 2 not in pages[False]


def test_ask_gets_the_page_the_index_names_as_a_run_does(tmp_path):
    """`autofill ask` tags its one question with its datapoints as a questionnaire's rows are tagged, so the
    report's own index joins its candidates too (the same pool of three as the run above)."""
    from autofill.answer.ask import ask
    from autofill.providers.base import Providers

    settings, _store, emb = _ingested(tmp_path, candidates=3, final_k=3)
    pages = {}
    for on in (True, False):
        settings.retrieval = replace(settings.retrieval, content_index=on)
        result = ask(settings, "Calder", QUESTION, providers=Providers(embedder=emb)).result
        assert "Gross Scope 1" in result.question.datapoints
        pages[on] = set(_pages(result.passages))
    assert 2 in pages[True] and 2 not in pages[False]
