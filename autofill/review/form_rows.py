"""A filled form's datapoints read back from its Evidence sheet as review questions (issue 45), for
review/reader.py: one question per named range, keyed by its input cell ("Sheet!D5": breakdown cells
share a row), read by header name so columns added to the sheet change nothing."""

from __future__ import annotations

import re

from autofill.review.rows import EvidenceRow, ReviewQuestion, _int, _pages, _text


def form_questions(sheets: dict[str, list[tuple]], rows: list[tuple], header_index: int,
                    columns: dict[str, int]) -> list[ReviewQuestion]:
    """A filled form's datapoints from its Evidence sheet (workbook/evidence.form_evidence_rows, read by
    header name so added columns change nothing): one question per named range / cell, in the sheet's
    order, with its passages (rank order; candidate values after them), the value its input cell holds
    now (Answer) and the value its run left waiting (`waiting`)."""
    by_key: dict[str, ReviewQuestion] = {}
    for row in rows[header_index + 1:]:
        def get(name: str):
            j = columns.get(name)
            return row[j] if j is not None and j < len(row) else None

        address = _text(get("cell"))
        sheet, _, ref = address.rpartition("!")
        named = _text(get("named range")) or address
        if not ref or not sheet:
            continue
        q = by_key.get(named)
        if q is None:
            m = re.match(r"([A-Za-z]+)(\d+)$", ref.replace("$", ""))
            row_no = int(m.group(2)) if m else 0
            q = ReviewQuestion(sheet=sheet, row=row_no, question=_text(get("label")) or named,
                               section=_text(get("section")), status=_text(get("status")), cell=ref.replace("$", ""),
                               named=named, unit=_text(get("unit")), checks=_text(get("checks")))
            if m:
                q.answer = _cell_text(sheets.get(sheet, []), row_no, _column(m.group(1)))
            by_key[named] = q
        value, rank = _text(get("value")), _text(get("rank"))
        if rank.lower() == "candidate":
            if not q.waiting:
                q.checks = "; ".join(c for c in (q.checks, f"candidate value {value} {q.unit}".strip()) if c)
        elif value and not q.waiting:
            q.waiting = value
        if not q.checks and _text(get("checks")):
            q.checks = _text(get("checks"))
        if _text(get("file")) or _text(get("text")):
            start, end = _pages(get("page"))
            q.evidence.append(EvidenceRow(sheet=sheet, row=q.row, question=q.question,
                                          rank=_int(rank, 10**5) if rank.lower() != "candidate" else 10**5,
                                          file_name=_text(get("file")), page_start=start, page_end=end,
                                          cited=_text(get("cited")).lower() in ("yes", "y", "true", "1", "x"),
                                          score=_text(get("score")), text=_text(get("text"))))
    for q in by_key.values():
        q.evidence.sort(key=lambda e: e.rank)
        for i, e in enumerate(q.evidence, start=1):
            e.rank = i  # unique ranks: the page's image URL names a passage by its rank
        q.sources = "; ".join(dict.fromkeys(f"{e.file_name} p. {e.page_start}" for e in q.evidence
                                            if e.cited and e.page_start))
    return list(by_key.values())


def _column(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _cell_text(rows: list[tuple], row: int, col: int) -> str:
    if row < 1 or row > len(rows) or col > len(rows[row - 1]):
        return ""
    return _text(rows[row - 1][col - 1])
