"""Checks for answers a run did not retrieve evidence for: an approved library answer reused as it
stands (`run --reuse approved`), and a row a person edited by hand. Their cited pages (the Sources
text) are looked up in today's evidence store and the same checks as any answered row run against them
(answer/trust.py, without a model call), so a reused or edited answer whose figure is on none of its
cited pages is never Ready, and a cited page that is no longer in the store is named."""

from __future__ import annotations

from typing import Any

from autofill.checks.reviewed import missing_pages
from autofill.checks.tier import decide_tier
from autofill.library.changes import cited_pages
from autofill.records import Answer, CheckResult, Citation, RowResult, Severity


def cited_evidence(store: Any, sources: str) -> tuple[list[Citation], list[Any]]:
    """The citations of a Sources cell and the store's current passages covering their pages."""
    citations = [Citation(f, p) for f, p in cited_pages(sources)]
    pages = [(c.file_name, c.page) for c in citations]
    return citations, (store.page_passages(pages) if pages else [])


def recheck(trust: Any, store: Any, result: RowResult, sources: str | None = None) -> RowResult:
    """Run the checks of `result` against the passages of its cited pages in today's store. `sources`:
    the Sources text (an edited row: its cell; default: the result's own citations). A row without an
    Answer (an edited row) gets one from its Answer cell, so the checks read the person's text."""
    if result.answer is None:
        result.answer = Answer(answer=result.question.existing_answer, status="")
    if sources is None:
        sources = "; ".join(c.label() for c in result.answer.citations)
    citations, passages = cited_evidence(store, sources)
    result.answer.citations = citations
    result.answer.cited_passages = list(range(1, len(passages) + 1))
    result.passages = passages
    trust.assess(result, verify=False)
    missing = missing_pages(citations, passages)
    if missing:
        result.checks.append(CheckResult("citations", False, Severity.HARD,
                                         f"cited page not in today's evidence store: {', '.join(missing)}"))
        result.tier = decide_tier(result.checks)
    return result
