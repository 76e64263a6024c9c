"""An approved answer checked against today's evidence before it enters the answer library (and a
reviewer's answer in the browser: review_app/checking.py): its Sources cell's pages are looked up in
the company's evidence store and the answer goes through checks/reviewed.check_reviewed, the checks
`run` gives a hand-edited row. The store is opened once, when the first answer is checked."""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Sequence

from autofill.checks.reviewed import check_reviewed
from autofill.checks.row import CheckContext
from autofill.library.changes import cited_pages
from autofill.records import CheckResult, Citation, Passage, QuestionRow, Severity
from autofill.settings import Settings
from autofill.store.reading import find_for_reading

log = logging.getLogger(__name__)

PagesFn = Callable[[Sequence[tuple[str, int]]], list[Passage]]


def check_context(settings: Settings, documents: Mapping[str, Any]) -> CheckContext:
    """The context every check of this company's answers reads (as answer/trust.make_trust builds it)."""
    periods = {name: getattr(rec, "period", "") or "" for name, rec in documents.items()}
    return CheckContext(periods=periods, reporting_year=settings.run.reporting_year)


class EvidenceChecker:
    """Checks answers of `company` against the passages covering their cited pages: from the evidence
    store, or from `fallback` (pages -> passages, e.g. a workbook's Evidence sheet) where there is no
    store; with neither, an answer fails with "not checked"."""

    def __init__(self, settings: Settings, company: str, store: Any = None, fallback: PagesFn | None = None,
                 fallback_where: str = "the workbook's Evidence sheet"):
        self.settings, self.company = settings, company
        self._store, self._opened = store, store is not None
        self.fallback, self.fallback_where = fallback, fallback_where

    @property
    def store(self) -> Any:
        if not self._opened:
            self._opened = True

            try:
                self._store = find_for_reading(self.settings, self.company) if self.company else None
            except Exception as exc:  # noqa: BLE001 - an unreadable store: said in the checks, not a crash
                log.warning("evidence store of %r cannot be read to check answers: %s", self.company, exc)
                self._store = None
        return self._store

    @property
    def documents(self) -> Mapping[str, Any]:
        return self.store.documents() if self.store is not None else {}

    def check(self, row: QuestionRow, answer: str, sources: str) -> list[CheckResult]:
        pages = cited_pages(sources)
        citations = [Citation(f, p) for f, p in pages]
        if self.store is not None:
            passages, where = (self.store.page_passages(pages) if pages else []), "today's evidence store"
        elif self.fallback is not None:
            passages, where = (self.fallback(pages) if pages else []), self.fallback_where
        else:
            return [CheckResult("evidence", False, Severity.HARD,
                                f"not checked: no evidence store for {self.company!r} (run `autofill ingest`)")]
        return check_reviewed(row, answer, citations, passages, check_context(self.settings, self.documents), where)
