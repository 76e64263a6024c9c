"""Reading approved rows out of filled workbooks: autofill's own output or a customer's layout with a
Review column. A row counts when its Review cell reads Approved (`states.parse_review`) and its Answer
cell holds an answer; its Reasoning, Sources and Reviewer comment cells come along when the workbook
has those columns.

Each entry carries its checks: the answer is checked against its cited pages in today's evidence
(library/checking.py, `checker`), and a reviewer's confirmation of failed checks comes from the
workbook's Review log (the approval's note, checks/reviewed.approval_overrides). The library takes
an entry whose checks failed only when that confirmation names them (library/store.Entry.refused)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from autofill.checks.reviewed import approval_overrides, failed_reasons
from autofill.library.changes import cited_files
from autofill.library.store import Entry
from autofill.records import DocumentRecord, QuestionRow
from autofill.settings import Settings
from autofill.states import DRAFT_PREFIX, ReviewState, parse_review


def approval_date(path: Path) -> str:
    """When the workbook was last saved (its file time, UTC date): the approvals in it are at least
    that old, and the same unchanged file gives the same date every time it is added."""
    return datetime.fromtimestamp(Path(path).stat().st_mtime, tz=timezone.utc).date().isoformat()


def cited_documents(sources: str, documents: dict[str, DocumentRecord]) -> dict[str, str]:
    """File name -> content hash, from the store manifest, of each document a Sources cell cites."""
    return {name: documents[name].sha256 for name in cited_files(sources) if name in documents}


def review_log(wb) -> list[dict[str, object]]:
    """The lines of a workbook's Review log sheet (review_app/apply.py) as dicts by column name."""
    from autofill.workbook.model import REVIEW_LOG_SHEET

    if REVIEW_LOG_SHEET not in wb.sheetnames:
        return []
    rows = wb[REVIEW_LOG_SHEET].iter_rows(values_only=True)
    header = next(rows, ())
    return [dict(zip(header, r)) for r in rows if any(v is not None for v in r)]


def approved_entries(settings: Settings, path: Path, documents: dict[str, DocumentRecord] | None = None,
                     layout=None, rows: list[QuestionRow] | None = None, checker=None) -> list[Entry]:
    """Library entries for the approved rows of the workbook at `path` (layout and rows as read by
    `workbook.layout.read_questions`, read here when not given), each with its checks when a
    `checker` (library/checking.EvidenceChecker) is given, and the reviewer's recorded override."""
    path = Path(path)
    if layout is None or rows is None:
        from autofill.workbook.layout import read_questions

        layout, rows = read_questions(settings, path)
    # An evidence-only draft approved as it stands is a quote, not an answer: it is not learned.
    approved = [q for q in rows if parse_review(q.review) is ReviewState.APPROVED and q.existing_answer.strip()
                and not q.existing_answer.startswith(DRAFT_PREFIX.strip())]
    if not approved:
        return []
    from openpyxl.utils.cell import column_index_from_string

    from autofill.workbook.safety import load_workbook_safely

    wb = load_workbook_safely(path, data_only=True)
    sheets = {s.name: s for s in layout.sheets}
    date = approval_date(path)
    overrides = approval_overrides(review_log(wb))
    out = []
    for q in approved:
        sheet = sheets.get(q.sheet)

        def cell(role: str) -> str:
            col = sheet.columns.get(role) if sheet is not None else None
            if col is None or col.added or q.sheet not in wb.sheetnames:
                return ""
            value = wb[q.sheet].cell(row=q.row, column=column_index_from_string(col.letter)).value
            return "" if value is None else str(value).strip()

        sources = cell("sources")
        answer = q.existing_answer.strip()
        checks = None if checker is None else failed_reasons(checker.check(q, answer, sources))
        out.append(Entry(question=q.question, answer=answer, approved_at=date,
                         reasoning=cell("reasoning"), sources=sources, reviewer_comment=q.reviewer_comment.strip(),
                         source_questionnaire=path.name, source_row=q.key, form_of_answer=q.form_of_answer,
                         documents=cited_documents(sources, documents or {}), checks=checks,
                         override=overrides.get(q.key, "")))
    return out
