"""Under --json an ingest still says on stderr why each file failed (the JSON line only counts them)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from autofill.cli import cli


def test_ingest_json_still_says_why_a_file_failed(workspace, tmp_path):
    fake = tmp_path / "notes.pdf"
    fake.write_text("plain text renamed to .pdf")
    result = CliRunner().invoke(cli, ["--workspace", str(workspace), "ingest", "--company", "X", str(fake), "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["failed_documents"] == 1  # stdout: the JSON line only
    assert "notes.pdf" in result.stderr and "not a PDF" in result.stderr


def test_companies_text_counts_are_singular_for_one(workspace, tmp_path):
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import Settings
    from tests import pdf_factory as pf
    from tests.fakes import FakeEmbedder

    one = pf.make_text_pdf(tmp_path / "one.pdf", ["Scope 1 emissions were 10 kt."])
    ingest_paths(Settings(workspace=workspace), "Solo", [one], embedder=FakeEmbedder())
    text = CliRunner().invoke(cli, ["--workspace", str(workspace), "companies"]).stdout
    assert "Solo: 1 document, 1 page, 1 chunk," in text and "one.pdf: 1 page, 1 chunk" in text
