"""The answer library inside `autofill run`: learn the approved rows the run reads, match every
question, reuse near-exact approved answers without a model call (`library.reuse = "approved"`), and
flag new answers that differ materially from the approved one.

The pipeline calls, in order: `RunLibrary.open`, `learn` (each workbook it reads), `match` (the rows
it will answer), `reuse` (rows it need not answer), then `annotate` on every result."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from autofill.library.changes import cited_pages, material_change
from autofill.library.harvest import approved_entries, override_hint
from autofill.library.match import best_match, coefficients, prepare
from autofill.library.store import AddResult, Entry, Library, open_library
from autofill.checks.tier import decide_tier
from autofill.records import Answer, CheckResult, Citation, DocumentRecord, LibraryMatch, QuestionRow, RowResult, \
    Severity
from autofill.settings import Settings
from autofill.states import Outcome, Tier
from autofill.store.chroma_store import now_iso
from autofill.library.checking import EvidenceChecker

log = logging.getLogger(__name__)

REUSED_STATUS = "Reused approved answer"
CHANGED_STATUS = "Changed since approved answer of"


def reused_status(approved_at: str) -> str:
    return f"{REUSED_STATUS} ({approved_at})"


def documents_unchanged(entry: Entry, documents: dict[str, DocumentRecord]) -> bool:
    """The answer cited documents, and each is in the store today with the hash it had at approval."""
    return bool(entry.documents) and all(
        name in documents and documents[name].sha256 == sha for name, sha in entry.documents.items())


class RunLibrary:
    """The library as one run uses it. `documents` is the evidence store's manifest."""

    def __init__(self, settings: Settings, company: str, embedder: Any, documents: dict[str, DocumentRecord]):
        self.settings, self.company, self.embedder, self.documents = settings, company, embedder, documents
        self.learned = AddResult()
        self.matches: dict[str, LibraryMatch] = {}
        self._entries: dict[int, Entry] = {}
        self._conflicts: dict[str, tuple[str, ...]] = {}
        self.size = 0
        self.reused = 0
        self._checker = None

    @classmethod
    def open(cls, settings: Settings, company: str, embedder: Any,
             documents: dict[str, DocumentRecord]) -> "RunLibrary | None":
        if not settings.library.enabled:
            return None
        return cls(settings, company, embedder, documents)

    def _library(self, create: bool) -> Library | None:
        return open_library(self.settings, self.company, create=create)

    # ------------------------------------------------------------------------------ learning

    def learn(self, path: Path, layout=None, rows: list[QuestionRow] | None = None, now: str = "") -> AddResult:
        """Add the rows marked Approved in the workbook at `path` (a questionnaire or an earlier output)."""
        if not self.settings.library.learn_from_runs:
            return AddResult()
        if self._checker is None:

            self._checker = EvidenceChecker(self.settings, self.company)
        entries = approved_entries(self.settings, Path(path), self.documents, layout=layout, rows=rows,
                                   checker=self._checker)
        if not entries:
            return AddResult()

        with self._library(create=True) as lib:
            result = lib.add(entries, now or now_iso())
        self.learned += result
        if result.added or result.updated:
            log.info("answer library: %d approved answers added, %d updated from %s",
                     result.added, result.updated, Path(path).name)
        hints = {e.source_row: override_hint(e) for e in entries if e.source_row}
        for row, why in result.refused:
            hint = hints.get(row)
            log.warning("answer library: approved row %s of %s not added: %s%s", row, Path(path).name, why,
                        f"; {hint}" if hint else "")
        return result

    # ------------------------------------------------------------------------------ matching

    def match(self, rows: list[QuestionRow]) -> dict[str, LibraryMatch]:
        """The best approved answer at or above `library.threshold` for each row (by row key). Each
        matched row's `approved_answer` is set for the answer prompt."""
        lib = self._library(create=False)
        if lib is None or not rows:
            return {}
        with lib:
            entries = [e for e in lib.ensure_embeddings(self.embedder) if e.embedding is not None] if len(lib) else []
        self.size = len(entries)
        if not entries:
            return {}
        self._entries = {e.id: e for e in entries}
        prepared = [prepare(e.question) for e in entries]
        vectors = [e.embedding for e in entries]
        queries = self.embedder.embed_documents([r.question for r in rows])
        threshold = self.settings.library.threshold
        coef = coefficients(getattr(self.embedder, "name", ""))
        for row, qv in zip(rows, queries):
            scored = best_match(prepare(row.question), qv, prepared, vectors, coef=coef)
            if scored is None or scored.strength < threshold:
                continue
            e = entries[scored.index]
            m = LibraryMatch(entry_id=e.id, question=e.question, answer=e.answer, approved_at=e.approved_at,
                             strength=round(scored.strength, 3), source_questionnaire=e.source_questionnaire,
                             documents_unchanged=documents_unchanged(e, self.documents))
            self.matches[row.key] = m
            self._conflicts[row.key] = scored.features.conflicts + scored.features.one_sided
            row.approved_answer = f"{e.answer} (approved {e.approved_at})"
        return self.matches

    # ------------------------------------------------------------------------------ reuse

    def reusable(self, row: QuestionRow) -> bool:
        m = self.matches.get(row.key)
        s = self.settings.library
        return (s.reuse == "approved" and m is not None and m.strength >= s.reuse_threshold
                and not self._conflicts.get(row.key) and m.documents_unchanged)

    def reuse(self, rows: list[QuestionRow]) -> list[RowResult]:
        """Results for the rows a near-exact approved answer with unchanged documents answers (no model
        call); empty unless `library.reuse` is "approved"."""
        out = []
        for row in rows:
            if not self.reusable(row):
                continue
            m = self.matches[row.key]
            e = self._entries[m.entry_id]
            answer = Answer(answer=e.answer, reasoning=e.reasoning,
                            citations=[Citation(f, p) for f, p in cited_pages(e.sources)],
                            status=reused_status(e.approved_at))
            # Not Ready yet: the pipeline checks it against its cited pages in today's store (answer/recheck.py).
            out.append(RowResult(question=row, answer=answer, outcome=Outcome.REUSED, library=m))
        self.reused = len(out)
        if self.matches:
            log.info("answer library: %d questions have an approved answer at match strength %.2f or more; "
                     "%d reused without a model call", len(self.matches), self.settings.library.threshold, self.reused)
        return out

    # ------------------------------------------------------------------------------ after answering

    def annotate(self, result: RowResult, answered_by_model: bool) -> None:
        """Attach the row's library match; a model's answer that differs materially from the approved
        one is flagged in Status and marked `changed_since_approved`."""
        m = self.matches.get(result.question.key)
        if m is None:
            return
        result.library = m
        if not answered_by_model or result.answer is None or result.outcome is Outcome.REUSED:
            return
        reason = material_change(result.answer.answer, m.answer, result.question.allowed_values)
        if not reason:
            return
        result.changed_since_approved = True
        flag = f"{CHANGED_STATUS} {m.approved_at} ({reason})"
        if not any(f.startswith(CHANGED_STATUS) for f in result.answer.flags):
            result.answer.flags.append(flag)
        # Never Ready: a soft check, so the trust tier (when the checks ran) drops to Check at best.
        if not any(c.name == "library" for c in result.checks):
            result.checks.append(CheckResult("library", False, Severity.SOFT, flag[0].lower() + flag[1:]))
        if result.tier is not None:
            result.tier = decide_tier(result.checks)

    def run_info(self) -> dict[str, Any]:
        return {
            "answer library entries": self.size,
            "library answers shown": len(self.matches),
            "rows reused from the library": self.reused,
            "library threshold / reuse": f"{self.settings.library.threshold} / {self.settings.library.reuse}",
            "approved answers learned": self.learned.added + self.learned.updated,
        }
