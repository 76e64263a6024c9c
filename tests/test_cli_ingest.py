"""The ingest / companies / forget commands through click's CliRunner.

Only the slow test loads the real local model; the others use stores built with the FakeEmbedder or
fail before any model is needed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from autofill.cli import cli
from autofill.ingest.pipeline import ingest_paths
from autofill.settings import Settings
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder
from tests.test_ingest_damage import cut_in_a_stream

INGEST_KEYS = ["company", "documents", "new_documents", "skipped_documents", "failed_documents", "pages",
               "chunks", "ocr_pages", "seconds", "skipped_files", "warnings", "failed"]


def invoke(workspace, *args):
    return CliRunner().invoke(cli, ["--workspace", str(workspace), *map(str, args)])


def json_line(result) -> dict:
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def test_companies_when_there_are_none(workspace):
    result = invoke(workspace, "companies")
    assert result.exit_code == 0 and "No evidence stores yet" in result.stdout
    assert json_line(invoke(workspace, "companies", "--json")) == {"companies": []}


def test_ingest_of_only_missing_files_exits_2_with_json(workspace, tmp_path):
    result = invoke(workspace, "ingest", "--company", "BHP", tmp_path / "nope.pdf", "--json")
    assert result.exit_code == 2
    data = json_line(result)
    assert list(data) == INGEST_KEYS
    assert (data["documents"], data["failed_documents"]) == (0, 1)
    assert data["failed"] == [{"file": str(tmp_path / "nope.pdf"), "why": data["failed"][0]["why"]}]
    assert data["failed"][0]["why"]  # the cause, in the JSON line too


def test_companies_forget_and_embedder_mismatch(workspace, tmp_path):
    settings = Settings(workspace=workspace)
    a = pf.make_text_pdf(tmp_path / "a.pdf", ["Scope 1 emissions were 10 kt.", "Water use was 2 GL."])
    b = pf.make_text_pdf(tmp_path / "b.pdf", ["We target net zero operational emissions by 2050."])
    ingest_paths(settings, "BHP", [a, b], embedder=FakeEmbedder())

    data = json_line(invoke(workspace, "companies", "--json"))["companies"]
    assert len(data) == 1
    assert data[0]["company"] == "BHP" and data[0]["documents"] == 2 and data[0]["pages"] == 3
    assert data[0]["embedder"] == "fake:hash-64" and data[0]["files"] == ["a.pdf", "b.pdf"]
    assert data[0]["last_ingest"] and data[0]["chunks"] >= 2
    text = invoke(workspace, "companies").stdout
    assert "BHP: 2 documents, 3 pages" in text and "a.pdf: 2 pages" in text

    # The store was built with the fake embedder; asking for local is refused, before any work.
    result = invoke(workspace, "ingest", "--company", "BHP", a, "--embedder", "local", "--json")
    assert result.exit_code == 2
    assert "fake:hash-64" in result.stderr and "local:bge-small-en-v1.5" in result.stderr
    assert result.stderr.count("\n") == 1

    result = invoke(workspace, "forget", "--company", "BHP", "--doc", "zzz.pdf")
    assert result.exit_code == 2 and "no document 'zzz.pdf'" in result.stderr
    result = invoke(workspace, "forget", "--company", "BHP", "--doc", "a.pdf", "--yes")
    assert result.exit_code == 0 and "Forgot a.pdf" in result.stdout
    assert json_line(invoke(workspace, "companies", "--json"))["companies"][0]["files"] == ["b.pdf"]
    result = invoke(workspace, "forget", "--company", "BHP", "--json", "--yes")
    assert result.exit_code == 0 and json_line(result)["company"] == "BHP"
    assert json_line(invoke(workspace, "companies", "--json")) == {"companies": []}
    result = invoke(workspace, "forget", "--company", "BHP")
    assert result.exit_code == 2 and "no evidence store for company 'BHP'" in result.stderr


@pytest.mark.slow
def test_ingest_with_the_real_local_embedder(workspace, tmp_path):
    pdf = pf.make_sample_company_pdf(tmp_path / "northwind.pdf")
    bad = pf.make_corrupt_pdf(tmp_path / "broken.pdf")
    result = invoke(workspace, "ingest", "--company", "Northwind", pdf, "--json")
    assert result.exit_code == 0, result.stderr
    data = json_line(result)
    assert list(data) == INGEST_KEYS
    assert (data["company"], data["documents"], data["new_documents"], data["pages"]) == ("Northwind", 1, 1, 5)
    assert data["chunks"] > 0 and data["failed_documents"] == 0

    result = invoke(workspace, "ingest", "--company", "Northwind", pdf, bad, "--json")
    assert result.exit_code == 2  # one file failed
    data = json_line(result)
    assert (data["documents"], data["new_documents"], data["skipped_documents"], data["failed_documents"]) == (1, 0, 1, 1)

    result = invoke(workspace, "ingest", "--company", "Northwind", pdf)  # human output
    assert result.exit_code == 0 and "0 new, 1 unchanged" in result.stdout
    companies = json_line(invoke(workspace, "companies", "--json"))["companies"]
    assert companies[0]["embedder"] == "local:bge-small-en-v1.5" and companies[0]["pages"] == 5


def test_later_ingests_keep_the_embedder_the_store_was_built_with(workspace, tmp_path, llm_server, monkeypatch):
    # A store built with --embedder openai (the real SDK against a loopback server) takes more reports
    # without repeating the flag, as the help promises; naming another embedder is refused.
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    a = pf.make_text_pdf(tmp_path / "a.pdf", ["Scope 1 emissions were 10 kt.", "Water use was 2 GL."])
    b = pf.make_text_pdf(tmp_path / "b.pdf", ["We target net zero operational emissions by 2050."])
    c = pf.make_text_pdf(tmp_path / "c.pdf", ["Zero fatalities in 2024."])
    result = invoke(workspace, "ingest", "--company", "BHP", a, "--embedder", "openai", "--json")
    assert result.exit_code == 0, result.stderr
    calls = len(llm_server.embedding_requests())
    assert calls > 0

    result = invoke(workspace, "ingest", "--company", "BHP", b, "--json")
    assert result.exit_code == 0, result.stderr
    assert json_line(result)["new_documents"] == 1
    assert len(llm_server.embedding_requests()) > calls  # embedded by the store's embedder, not local
    companies = json_line(invoke(workspace, "companies", "--json"))["companies"]
    assert companies[0]["embedder"] == "openai:text-embedding-3-small" and companies[0]["files"] == ["a.pdf", "b.pdf"]

    result = invoke(workspace, "ingest", "--company", "BHP", c, "--embedder", "local", "--json")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "built with embedder openai:text-embedding-3-small, not local:bge-small-en-v1.5" in result.stderr
    assert "leave out --embedder" in result.stderr
    monkeypatch.setenv("AUTOFILL_EMBEDDING__PROVIDER", "cohere")  # an explicit choice from the environment too
    result = invoke(workspace, "ingest", "--company", "BHP", c, "--json")
    assert result.exit_code == 2 and "not cohere:embed-english-v3.0" in result.stderr
    assert json_line(invoke(workspace, "companies", "--json"))["companies"][0]["files"] == ["a.pdf", "b.pdf"]


def test_force_and_changed_chunk_size_reingest_unchanged_files(workspace, tmp_path, llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    a = pf.make_text_pdf(tmp_path / "a.pdf", ["Scope 1 emissions were 10 kt. " * 12, "Water use was 2 GL. " * 12])

    def ingest(*extra):
        result = invoke(workspace, "ingest", "--company", "BHP", a, "--embedder", "openai", "--json", *extra)
        assert result.exit_code == 0, result.stderr
        data = json_line(result)
        return data["new_documents"], data["skipped_documents"], data["chunks"]

    assert ingest()[:2] == (1, 0)
    assert ingest()[:2] == (0, 1)
    calls = len(llm_server.embedding_requests())
    assert ingest("--force")[:2] == (1, 0)
    assert len(llm_server.embedding_requests()) > calls
    before = ingest()
    smaller = ingest("--chunk-chars", "200")
    assert smaller[:2] == (1, 0) and smaller[2] > before[2]
    assert ingest("--chunk-chars", "200")[:2] == (0, 1)


def test_ingest_walks_folders_lists_skipped_files_and_flags_damaged_ones(workspace, tmp_path, llm_server,
                                                                        monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    reports = tmp_path / "reports"
    (reports / "2024").mkdir(parents=True)
    pf.make_text_pdf(reports / "a.pdf", ["Scope 1 emissions were 10 kt."])
    whole = pf.make_pdf(tmp_path / "whole.pdf", [[("h1", f"Part {i}"), ("p", "Water use was 2 GL. " * 30)]
                                                 for i in range(1, 31)])
    cut_in_a_stream(whole, reports / "2024" / "cut.pdf")  # one level down, and damaged
    (reports / "notes.txt").write_text("not a report")
    (reports / ".hidden.pdf").write_bytes(b"%PDF-1.7")

    result = invoke(workspace, "ingest", "--company", "BHP", reports, "--embedder", "openai", "--json")
    assert result.exit_code == 0, result.stderr
    line = json_line(result)
    assert (line["documents"], line["new_documents"], line["skipped_files"]) == (2, 2, 2)
    cut = str(reports / "2024" / "cut.pdf")
    assert line["warnings"] and {w["file"] for w in line["warnings"]} == {cut}
    assert line["warnings"][0]["why"].startswith("damaged file: it ends early")
    # Under --json the file's line still reaches stderr as a warning, in our words; the PDF library's
    # own messages never do.
    warned = [ln for ln in result.stderr.splitlines() if "cut.pdf" in ln]
    assert len(warned) == 1 and warned[0].startswith("autofill: warning: new ")
    assert "may be incomplete: damaged file: it ends early" in warned[0]
    assert "RuntimeWarning" not in result.stderr and "format error" not in result.stderr

    result = invoke(workspace, "ingest", "--company", "BHP", reports, "--no-recursive")
    assert result.exit_code == 0, result.stderr
    assert f"skipped  {reports / 'notes.txt'}: not a PDF" in result.stdout
    assert f"skipped  {reports / '.hidden.pdf'}: hidden file" in result.stdout
    assert f"skipped  {reports / '2024'}: subfolder not searched (--no-recursive); it holds 1 PDF" in result.stdout
    assert "3 files skipped" in result.stdout and "incomplete" not in result.stdout  # cut.pdf not in this one

    result = invoke(workspace, "ingest", "--company", "BHP", reports)  # unchanged, and still flagged
    assert "1 may be incomplete (see the warnings)" in result.stdout
    assert "autofill: warning: unchanged cut.pdf" in result.stderr
    lines = invoke(workspace, "companies").stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("cut.pdf:"))
    assert lines[at + 1] == "      warning: " + line["warnings"][0]["why"]
