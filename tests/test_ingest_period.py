"""ingest/period.py: a document's reporting period from its own words, stored at ingest and shown by
`autofill companies`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from autofill.cli import cli
from autofill.ingest.period import detect_period
from autofill.ingest.pipeline import ingest_paths
from autofill.records import Block, PageContent, ParsedDocument
from autofill.settings import Settings
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder


def doc(*pages, name="report.pdf", title=""):
    parsed = [PageContent(i, [Block(kind, text) for kind, text in blocks]) for i, blocks in enumerate(pages, 1)]
    return ParsedDocument(Path(name), name, "0" * 64, parsed, len(parsed), title=title)


def test_year_ended_wins():
    d = doc([("heading", "Sustainability Report 2021"), ("text", "For the year ended 30 June 2020, we ...")])
    assert detect_period(d) == "FY2020"
    assert detect_period(doc([("text", "financial year ending 31 December 2022")])) == "2022"
    assert detect_period(doc([("text", "the year ended June 30, 2019")])) == "FY2019"


def test_report_title_with_a_year():
    assert detect_period(doc([("heading", "2023 Sustainability Report")])) == "2023"
    assert detect_period(doc([("text", "Welcome")], name="BHP Climate Change Report 2020.pdf")) == "2020"
    # the title's year, written as the fiscal year the text reports on
    assert detect_period(doc([("heading", "Climate Report 2022"), ("text", "In FY2022 we cut emissions.")])) == "FY2022"


def test_fiscal_year_mentions_leave_targets_out():
    d = doc([("text", "In FY2021 emissions fell. FY2021 was a record year. We aim for net zero by FY2030, "
                      "30% below FY2020 levels by FY2030, by FY2030.")])
    assert detect_period(d) == "FY2021"


def test_tables_dominating_years():
    table = "| Metric | 2022 | 2021 | 2020 |\n| --- | --- | --- | --- |\n| Scope 1 | 10 | 11 | 12 |"
    d = doc([("text", "Our performance."), ("table", table)], [("table", table)])
    assert detect_period(d) == "2022"
    assert detect_period(doc([("text", "No dates at all.")])) == ""


def test_period_is_stored_at_ingest_and_listed_by_companies(tmp_path):
    settings = Settings(workspace=tmp_path / "ws")
    a = pf.make_pdf(tmp_path / "Northwind Sustainability Report 2023.pdf",
                    [[("h1", "Sustainability Report 2023"), ("p", "Scope 1 emissions were 10 kt in 2023.")]])
    b = pf.make_pdf(tmp_path / "notes.pdf", [[("p", "Meeting notes without any date in them at all.")]])
    ingest_paths(settings, "Northwind", [a, b], embedder=FakeEmbedder())

    result = CliRunner().invoke(cli, ["--workspace", str(settings.workspace), "companies", "--json"])
    details = json.loads(result.stdout)["companies"][0]["document_details"]
    by_file = {d["file"]: d for d in details}
    assert by_file["Northwind Sustainability Report 2023.pdf"]["period"] == "2023"
    assert by_file["notes.pdf"]["period"] == ""
    assert {"file", "pages", "chunks", "period"} <= set(details[0])
    text = CliRunner().invoke(cli, ["--workspace", str(settings.workspace), "companies"]).stdout
    assert "period 2023" in text and "period unknown" in text
