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
