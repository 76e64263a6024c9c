"""`autofill forget` (autofill/forget.py, store/chroma_store.forget_from, store/reclaim.py) forgets: a
company is ingested, run against the loopback model (one row failing, so its checkpoint stays), asked,
given an answer library, then one of its documents and then the whole company are forgotten through the
real CLI, and every file of the workspace is searched byte for byte (SQLite files included, zips
opened) for a word found only in that document, then in its other report: none is left. A second
company's store is untouched and still answers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import openpyxl

from tests.answer_helpers import COMPANY as OTHER
from tests.answer_helpers import SAMPLE, passages_in, rerank_reply
from tests.grep_helpers import every_file
from tests.llm_server import Reply, last_user_text
from tests.pdf_factory import make_text_pdf
from tests.race_helpers import cli, ingested_workspace
from tests.workbook_builders import build_questionnaire

OLD = "Old Harbour Mining"
WORD = "Quorvexite"  # only in Old's annual report
DOC_WORD = "Zephyrionic"  # only in Old's water note, forgotten first with --doc
FAILING = "Which auditor signed the water balance?"


def _report(path: Path, word: str, topic: str) -> Path:
    return make_text_pdf(path, [f"Page {i}. The {word} {topic} at site {i} reported {i * 7} kt CO2e of Scope 1 "
                                f"emissions in FY2024 and {i * 3}% renewable electricity. " * 4 for i in range(1, 7)])


def responder(req: dict):
    """HyDE, rerank and answers like a model quoting the passages it read (so the response cache holds
    the report's words); the answer to FAILING is refused, so that run keeps its checkpoint."""
    text = last_user_text(req)
    if "single JSON object" in text:
        if FAILING in text:
            return Reply(status=400, error_message="refused")
        cited = passages_in(text)[:1]
        quote = cited[0][3][:160] if cited else "Not disclosed"
        return json.dumps({"reasoning": f"Passage 1 says: {quote}", "answer": quote,
                           "citations": [n for n, *_ in cited], "confidence": "high"})
    if "Rank all" in text:
        return rerank_reply(req)
    return f"The {WORD} smelter reported its Scope 1 emissions and its renewable electricity share."


def holding(folder: Path, word: str) -> list[str]:
    """Files (zip members) holding `word` in any case or its stem (the keyword index stems, FTS lowers)."""
    stem = word.lower()[:7].encode()
    return [name for name, data in every_file(folder) if stem in data.lower()]


def _approve_first_row(path: Path) -> None:
    wb = openpyxl.load_workbook(path)
    ws = wb["Questionnaire"]
    header = next(r for r in range(1, 10) if ws.cell(row=r, column=3).value == "Question")
    col = next(c for c in range(1, ws.max_column + 1) if ws.cell(row=header, column=c).value == "Review")
    ws.cell(row=header + 2, column=col, value="Approved")
    wb.save(path)


def test_forget_leaves_nothing_of_the_company_in_the_workspace(tmp_path, llm_server):
    llm_server.responder = responder
    env = {"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "sk-test", "AUTOFILL_LLM__MODEL": "gpt-4o-mini",
           "AUTOFILL_LLM__MAX_RETRIES": "0"}
    ws, out, docs = tmp_path / "ws", tmp_path / "out", tmp_path / "docs"
    docs.mkdir()
    wsa = ingested_workspace(tmp_path)  # the other company's sample report, ingested through the CLI
    assert wsa == ["--workspace", str(ws)]

    def run(*args: str, code: int = 0):
        done = cli([*wsa, *args], env)
        assert done.returncode == code, (args, done.stderr[-3000:])
        return done

    annual = _report(docs / "old_annual_2024.pdf", WORD, "smelter")
    water = _report(docs / "old_water_note.pdf", DOC_WORD, "desalination plant")
    run("ingest", "--company", OLD, str(annual), str(water))

    def companies() -> dict:
        return {c["company"]: (c["documents"], c["chunks"], c["files"])
                for c in json.loads(run("companies", "--json").stdout)["companies"]}

    other_before = companies()[OTHER]
    questionnaire = build_questionnaire(tmp_path / "q.xlsx", extras=False, questions=[
        ("Climate", f"What were the Scope 1 emissions of the {WORD} smelter?", "Number with unit", False),
        ("Climate", f"What does the {DOC_WORD} desalination plant report?", "Short text", False),
        ("Water", FAILING, "Short text", False)])
    run("run", "--company", OLD, "--questionnaire", str(questionnaire), "--llm", "openai", "--out", str(out),
        "--yes", code=1)  # one row failed: the checkpoint stays for a resume
    filled = next(out.glob("*.xlsx"))
    run("ask", "--company", OLD, f"How much renewable electricity did the {WORD} smelter use?")
    _approve_first_row(filled)
    run("library", "add", "--company", OLD, str(filled))

    # A question in another language leaves its translation in the workspace's translation cache
    # (translation/translator.py); here put there directly, as a run across languages writes it.
    from autofill.translation.translator import cache_path as translations
    from autofill.sqlite_cache import BlobCache

    BlobCache(translations(ws / "vectordb")).put_blobs({"key": f"the {WORD} smelter".encode()})

    # Before: the words are all over the workspace (the test would see them if forget left any).
    held = holding(ws, WORD)
    for part in ("chroma.sqlite3", ".llm-cache", "searches-", ".checkpoints", "library", "bm25"):
        assert any(part in name for name in held), (part, held)
    assert holding(ws, DOC_WORD)

    def removed(*args: str) -> str:
        report = json.loads(run("forget", "--company", OLD, *args, "--yes", "--json").stdout.strip().splitlines()[-1])
        assert report["bytes"] > 0
        return " | ".join(r["what"] for r in report["removed"])

    what = removed("--doc", water.name)
    for part in ("chroma.sqlite3", "search cache", "run checkpoints", "response cache", "query-vector cache",
                 "translation cache"):
        assert part in what, (part, what)
    assert holding(ws, DOC_WORD) == []
    assert holding(ws, WORD)  # the rest of the company is still there
    run("ask", "--company", OLD, f"How much renewable electricity did the {WORD} smelter use?")  # caches again

    what = removed()
    for part in ("chroma.sqlite3", "keyword index", "search cache", "response cache", "answer library"):
        assert part in what, (part, what)
    assert holding(ws, WORD) == []

    # No vector folder is left that the database does not name.
    vectordb = ws / "vectordb"
    with sqlite3.connect(vectordb / "chroma.sqlite3") as conn:
        segments = {r[0] for r in conn.execute("SELECT id FROM segments")}
    folders = {p.name for p in vectordb.iterdir() if p.is_dir() and len(p.name) == 36}
    assert folders and folders <= segments

    # The other company is intact and still answers from its report.
    assert companies() == {OTHER: other_before}
    answered = run("ask", "--company", OTHER, "What share of electricity was renewable in FY2024?", "--json")
    assert SAMPLE in answered.stdout
    run("forget", "--company", OLD, "--yes", code=2)  # gone: nothing to forget


def test_the_report_names_every_derived_file_it_removes_with_its_size(tmp_path):
    """Every file the store derives (store/derived.py) is walked by `forget` and reported with its size:
    before, the multilingual vectors and the content index were deleted but never named."""
    from autofill.forget import forget
    from autofill.ingest.pipeline import ingest_paths
    from autofill.providers.local import LocalEmbedder
    from autofill.settings import Settings
    from autofill.store import multilingual
    from autofill.store.chroma_store import open_store
    from autofill.store.multilingual import MultilingualIndex
    from tests.test_ingest_content_index import _report

    settings = Settings(workspace=tmp_path / "ws")
    report = ingest_paths(settings, "Calder", [_report(tmp_path / "Report.pdf")], embedder=LocalEmbedder())
    assert report.count("failed") == 0
    store = open_store(settings, "Calder")
    e5 = LocalEmbedder(multilingual.MODEL)
    assert MultilingualIndex(settings, store, e5).query(e5.embed_query("Direkte Emissionen"), 1)
    vectors = multilingual.index_path(settings, store.collection)
    (content,) = (settings.vectordb_dir / ".content-index").glob("*.json")
    sizes = {"the multilingual vectors": vectors.stat().st_size, "the content index": content.stat().st_size}

    done = forget(settings, "Calder")
    removed = {r.what: (r.files, r.size) for r in done.removed}
    for what, size in sizes.items():
        assert removed.get(what) == (1, size), (what, removed)
    assert removed["the keyword index and its token lists"][1] > 0
    text = done.text()
    assert "removed the multilingual vectors: 1 file" in text and "removed the content index: 1 file" in text
    assert not vectors.exists() and not content.exists()
    assert done.to_json()["bytes"] == sum(size for _, size in removed.values())
