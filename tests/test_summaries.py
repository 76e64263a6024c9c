"""autofill/summaries.py: the human summaries every command ends with, formatted in one place."""

from __future__ import annotations

from pathlib import Path

from autofill.records import DocumentRecord, RunReport, StageUsage, StoreInfo
from autofill.summaries import count, ingest_summary, run_summary, stores_summary


def test_counts_are_singular_when_one():
    assert (count(1, "page"), count(0, "page"), count(2, "chunk")) == ("1 page", "0 pages", "2 chunks")
    line = ingest_summary({"company": "BHP", "documents": 1, "new_documents": 1, "skipped_documents": 0,
                           "failed_documents": 0, "pages": 1, "chunks": 3, "seconds": 2.04})
    assert line == "BHP: 1 document (1 new, 0 unchanged, 0 failed), 1 page, 3 chunks in 2.0 s"


def test_stores_summary_names_where_it_looked_when_empty():
    assert "No evidence stores yet in /srv/ws/vectordb." in stores_summary([], "/srv/ws/vectordb")
    doc = DocumentRecord("r.pdf", "ab", 3, 7, 1, "2026-01-01T00:00:00Z")
    text = stores_summary([StoreInfo("BHP", "c", "local:all-MiniLM-L6-v2", [doc], "2026-01-01")], "x")
    assert text.splitlines() == ["BHP: 1 document, 3 pages, 7 chunks, embedder local:all-MiniLM-L6-v2, "
                                 "last ingest 2026-01-01", "    r.pdf: 3 pages, 7 chunks, 1 page without text, period unknown"]


def test_run_summary_lists_what_needs_another_run():
    report = RunReport(output=Path("out/q_filled.xlsx"), rows=4, answered=3, failed=1, skipped=0,
                       usage={"answer": StageUsage(3, 900, 90, 0, 0.0012)}, seconds=12.34,
                       report_html=Path("out/q_filled_review/index.html"),
                       problems=[("failed", "Sheet!7", "ProviderError: 500 after 4 attempts")],
                       tiers={"ready": 2, "check": 1})
    text = run_summary(report, "BHP")
    assert text.splitlines()[0] == "BHP: 4 question rows, 3 answered, 1 failed, 0 skipped in 12.3 s"
    assert "  answer: 3 calls, 900 + 90 tokens, $0.0012" in text
    assert "Tiers: 2 Ready, 1 Check, 0 Needs work" in text
    assert "  failed Sheet!7: ProviderError: 500 after 4 attempts" in text and "Re-run the same command" in text
    assert text.splitlines()[-2:] == ["Output: out/q_filled.xlsx", "Review report: out/q_filled_review/index.html"]
