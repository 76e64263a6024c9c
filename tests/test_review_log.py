"""review/review_log.py: the Review log typed, confirmations and undo links in their own columns, one
reader for new logs and for old ones whose confirmations and undo links were sentences of the Note; and
through the real review writer (review_app/apply.py) and the library's harvest."""

from __future__ import annotations

import openpyxl

from autofill.checks.reviewed import override_note
from autofill.review.review_log import COLUMNS, LogLine, approval_overrides, lines_of
from autofill.workbook.model import REVIEW_LOG_SHEET

CHECK = "987,654 tCO2e not in cited passages"
OLD_COLUMNS = COLUMNS[:COLUMNS.index("Decision") + 1]  # a log written before the typed columns


def _old(sheet: str, row: int, action: str, note: str, decision) -> dict:
    return {"Sheet": sheet, "Row": row, "Action": action, "Field": "Review", "Note": note, "Decision": decision}


def test_the_latest_standing_approval_of_each_row_is_found_in_an_old_log_of_sentences():
    note = override_note([CHECK])
    log = [LogLine.from_columns(x) for x in [
        _old("S", 5, "Approve", note, 1), _old("S", 6, "Approve", "", 2), _old("S", 7, "Approve", note, 3),
        _old("S", 7, "Undo", "undoes decision 3 (Approve)", 4), _old("S", 8, "Approve", note, 5),
        _old("S", 8, "Reopen", "", 6), _old("S", 9, "Approve", note, None)]]
    assert log[0].confirmed == (CHECK,) and log[3].undoes == 3 and log[1].undoes is None
    assert approval_overrides(log) == {"S!5": (CHECK,), "S!6": ()}


def test_the_typed_columns_are_read_before_the_note(tmp_path):
    """A new log: the columns say what was confirmed and undone, whatever the Note's words."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = REVIEW_LOG_SHEET
    ws.append(COLUMNS)
    ws.append(["t", "Ana", "S", 5, "Q", "Approve", "Review", "", "Approved", "ok by Ana", 1, f"{CHECK}\nyear", None])
    ws.append(["t", "Ana", "S", 6, "Q", "Approve", "Review", "", "Approved", "", 2, None, None])
    ws.append(["t", "Ana", "S", 6, "Q", "Undo", "Review", "Approved", "", "taken back", 3, None, 2])
    path = tmp_path / "log.xlsx"
    wb.save(path)
    lines = lines_of(openpyxl.load_workbook(path, read_only=True))
    assert [(x.decision, x.confirmed, x.undoes) for x in lines] == [(1, (CHECK, "year"), None), (2, (), None),
                                                                    (3, (), 2)]
    assert approval_overrides(lines) == {"S!5": (CHECK, "year")}
    assert lines[0].as_dict()["Confirmed"] == [CHECK, "year"] and lines[2].as_dict()["Undoes"] == 2


def test_an_old_log_gets_the_typed_columns_when_the_review_writer_adds_to_it(tmp_path):
    from autofill.review_app.apply import _append_log
    from autofill.review.sidecar import Decision

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = REVIEW_LOG_SHEET
    ws.append(OLD_COLUMNS)
    ws.append(["t", "Ana", "S", 5, "Q", "Approve", "Review", "", "Approved", override_note([CHECK]), 1])
    undo = Decision(id=2, row_key="S!5", question="Q", reviewer="Bo", at="t2", action="Undo",
                    before={"review": "Approved"}, after={"review": ""}, note="undoes decision 1 (Approve)")
    again = Decision(id=3, row_key="S!6", question="Q6", reviewer="Bo", at="t3", action="Approve",
                     before={"review": ""}, after={"review": "Approved"}, note=override_note(["year"]))
    _append_log(wb, [undo, again])
    path = tmp_path / "log.xlsx"
    wb.save(path)
    book = openpyxl.load_workbook(path)
    assert [c.value for c in book[REVIEW_LOG_SHEET][1]] == COLUMNS
    assert [c.value for c in book[REVIEW_LOG_SHEET][3]][-2:] == [None, 1]  # the undo link, in its column
    assert [c.value for c in book[REVIEW_LOG_SHEET][4]][-2:] == ["year", None]
    assert approval_overrides(lines_of(book)) == {"S!6": ("year",)}
