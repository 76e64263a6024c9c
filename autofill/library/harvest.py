"""Reading approved rows out of filled workbooks: autofill's own output or a customer's layout with a
Review column. A row counts when its Review cell reads Approved (`states.parse_review`) and its Answer
cell holds an answer; its Reasoning, Sources and Reviewer comment cells come along when the workbook
has those columns.

Each entry carries its checks: the answer is checked against its cited pages in today's evidence
(library/checking.py, `checker`), and a reviewer's confirmation of failed checks comes from the
workbook's Review log (the approval's Confirmed column, review/review_log.approval_overrides) or, for a workbook
reviewed in Excel, from the row's Reviewer comment cell: a line "Approved over failed checks: ..." that
names them (`EXCEL_OVERRIDE`; `override_hint` says what to write where). The library takes an entry
whose checks failed only when that confirmation names them (library/store.Entry.refused)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from autofill.checks.reviewed import covers, failed_reasons, overridden, override_note
from autofill.library.changes import cited_files
from autofill.library.store import Entry
from autofill.records import DocumentRecord, QuestionRow
from autofill.settings import Settings
from autofill.states import DRAFT_PREFIX, ReviewState, parse_review
from autofill.workbook.safety import load_workbook_safely
from autofill.review.review_log import approval_overrides, lines_of


def approval_date(path: Path) -> str:
    """When the workbook was last saved (its file time, UTC date): the approvals in it are at least
    that old, and the same unchanged file gives the same date every time it is added."""
    return datetime.fromtimestamp(Path(path).stat().st_mtime, tz=timezone.utc).date().isoformat()


def cited_documents(sources: str, documents: dict[str, DocumentRecord]) -> dict[str, str]:
    """File name -> content hash, from the store manifest, of each document a Sources cell cites."""
    return {name: documents[name].sha256 for name in cited_files(sources) if name in documents}


EXCEL_OVERRIDE = "Approved over failed checks:"  # starts the override line of a Reviewer comment cell


def _norm(text: str) -> str:
    return " ".join(str(text or "").split()).casefold()


def comment_confirms(comment: str, checks: list[str] | None) -> list[str]:
    """The failed `checks` a Reviewer comment cell confirms: each named (case and spacing aside) after
    its "Approved over failed checks:" (pure)."""
    text = _norm(comment)
    head = _norm(EXCEL_OVERRIDE).rstrip(":")
    at = text.find(head)
    if at < 0 or not checks:
        return []
    after = text[at + len(head):]
    return [c for c in checks if _norm(c) and _norm(c) in after]


def with_comment_override(log_note: str, comment: str, checks: list[str] | None) -> str:
    """The entry's override: the Review log's note, with the checks its Reviewer comment confirms added."""
    from_comment = comment_confirms(comment, checks)
    if not from_comment or covers(overridden(log_note), from_comment):
        return log_note
    return override_note(list(dict.fromkeys(overridden(log_note) + from_comment)))


def override_hint(entry: Entry) -> str:
    """How to record, in Excel, the override of the failed checks the library refused `entry` for:
    the cell and the exact line to put in it ("" when it was not refused for failed checks)."""
    left = [c for c in entry.checks or [] if not covers(overridden(entry.override), [c])]
    if not left or not entry.override_cell:
        return ""
    sheet, _sep, cell = entry.override_cell.rpartition("!")
    line = f"{EXCEL_OVERRIDE} {'; '.join(left)}"
    where = (f"cell {cell} (Reviewer comment) of sheet {sheet!r}" if cell[:1].isalpha()
             else f"a 'Reviewer comment' column (add one) in row {cell} of sheet {sheet!r}")
    return (f"to approve it over these checks from Excel, put this line in {where} (below any comment "
            f"there), save the workbook and add it again: {line}")


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


    wb = load_workbook_safely(path, data_only=True)
    sheets = {s.name: s for s in layout.sheets}
    date = approval_date(path)

    overrides = {key: override_note(list(confirmed)) if confirmed else ""
                 for key, confirmed in approval_overrides(lines_of(wb)).items()}
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
        comment = sheet.columns.get("reviewer_comment") if sheet is not None else None
        where = comment.letter if comment is not None and not comment.added else ""
        out.append(Entry(question=q.question, answer=answer, approved_at=date,
                         reasoning=cell("reasoning"), sources=sources, reviewer_comment=q.reviewer_comment.strip(),
                         source_questionnaire=path.name, source_row=q.key, form_of_answer=q.form_of_answer,
                         documents=cited_documents(sources, documents or {}), checks=checks,
                         override=with_comment_override(overrides.get(q.key, ""), q.reviewer_comment, checks),
                         override_cell=f"{q.sheet}!{where}{q.row}"))
    return out
