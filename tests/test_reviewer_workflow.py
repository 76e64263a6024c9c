"""The reviewer workflow: approved rows survive a re-run exactly; rejected, needs-changes, failed and
unanswered rows are answered again; the evidence of kept rows stays."""

from __future__ import annotations

import openpyxl

from autofill.records import QuestionRow, RowResult
from autofill.settings import Settings
from autofill.states import Outcome, Tier
from autofill.workbook.layout import read_questions
from autofill.workbook.reviewer import kept_result, rows_to_answer
from autofill.workbook.writeback import write_results
from tests.workbook_builders import assert_only_changed, build_questionnaire, result_for, sha256


def q(row, answer="", status="", review="", comment=""):
    return QuestionRow(sheet="S", row=row, question=f"Q{row}?", existing_answer=answer, status=status,
                       review=review, reviewer_comment=comment)


def test_rows_to_answer_rules():
    rows = [
        q(1),                                              # unanswered
        q(2, "Yes", "Answered"),                           # answered, not reviewed: kept
        q(3, "Yes", "Answered", "Approved"),               # approved: kept
        q(4, "", "Answered", "approved "),                 # approved even if the reviewer emptied it
        q(5, "No", "Answered", "Rejected"),
        q(6, "No", "Answered", "Needs changes", "Use the 2024 figure"),
        q(7, "", "Failed: timeout"),
        q(8, "Partial text", "Failed: timeout"),
        q(9, "Evidence found (not an answer): \u201cquoted\u201d (r.pdf p. 2)", "Evidence only (no LLM configured)"),
        q(10, "Customer's own answer"),                    # pre-filled by the customer: kept
        q(11, "", "Evidence only (no LLM configured); drop-down answer left empty"),
        q(12, "No", "Answered", "Reject"),                 # every accepted spelling, through parse_review
        q(13, "No", "Answered", "needs-changes", "Cite the 2024 report"),
        q(14, "Yes", "Answered", "APPROVED"),
        q(15, "", "Unparsed model output"),
        q(16, "Yes, typed by the reviewer", "Evidence only (no LLM configured)"),  # typed over a draft: kept
        q(17, "Yes", "Answered"),                           # edited by hand (record): kept
        q(18, "Yes", "Answered", "Rejected"),               # edited, but rejected: answered again
    ]
    edited = {"S!17": ["answer"], "S!18": ["reasoning"]}
    to_answer, kept = rows_to_answer(rows, edited)
    assert [r.row for r in to_answer] == [1, 5, 6, 7, 8, 9, 11, 12, 13, 15, 18]
    assert [r.row for r in kept] == [2, 3, 4, 10, 14, 16, 17]
    assert to_answer[2].reviewer_comment == "Use the 2024 figure"
    # Kept rows: the hand-edited one says so, approved rows name the review and date (Tier Approved);
    # pre-filled and earlier answered rows stay untouched.
    kept_results = {r.row: kept_result(r, edited.get(r.key, ()), today="2026-11-25") for r in kept}
    notes = {row: k.note for row, k in kept_results.items()}
    assert notes[17] == "Edited by hand (Answer): kept as the reviewer left it"
    assert kept_results[17].outcome is Outcome.EDITED
    for row in (3, 4, 14):
        assert notes[row] == "Approved in review (2026-11-25)" and kept_results[row].tier is Tier.APPROVED
        assert kept_results[row].outcome is Outcome.APPROVED
    assert all(not n and kept_results[row].outcome is Outcome.SKIPPED for row, n in notes.items()
               if row in (2, 10, 16))
    # Without a model, rejected and needs-changes rows wait, their Review and comment kept.
    to_answer, kept = rows_to_answer(rows, edited, can_answer=False)
    assert [r.row for r in to_answer] == [1, 7, 8, 9, 11, 15]
    waiting = [kept_result(r) for r in kept if r.row in (5, 6, 12, 13, 18)]
    assert len(waiting) == 5 and all(w.outcome is Outcome.WAITING and w.tier is Tier.NEEDS_WORK for w in waiting)
    assert waiting[1].note.startswith("Waiting for a model: Needs changes in review; the reviewer's comment is kept")


def test_approved_edit_survives_a_rerun(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    first = write_results(Settings(), src, layout, [result_for(r, pages=(2,)) for r in rows],
                          tmp_path / "run1" / "q_filled.xlsx", {"run": 1})

    # The reviewer works in Excel: approves row A with an edited answer, rejects B, asks for changes
    # on C with a comment, leaves D unreviewed; E failed in the first run.
    wb = openpyxl.load_workbook(first)
    ws = wb["Questionnaire"]
    a, b, c, d, e = (r.row for r in rows)
    ws[f"F{a}"] = "Partially"
    ws[f"H{a}"] = "Reviewer: only Scope 1 is covered."
    ws[f"L{a}"] = "Approved"
    ws[f"L{b}"] = "Rejected"
    ws[f"L{c}"] = "Needs changes"
    ws[f"M{c}"] = "Give the FY2024 figure in kt CO2e"
    ws[f"F{e}"] = None
    ws[f"K{e}"] = "Failed: rate limited"
    wb.save(first)
    reviewed_hash = sha256(first)

    layout2, rows2 = read_questions(Settings(), first)
    assert not layout2.sheets[0].added_columns  # our columns are found again, not added twice
    to_answer, kept = rows_to_answer(rows2)
    assert [r.row for r in to_answer] == [b, c, e]
    assert [r.row for r in kept] == [a, d]
    assert to_answer[1].reviewer_comment == "Give the FY2024 figure in kt CO2e"

    # The pipeline answers the rows to answer; a buggy caller also passes the approved row.
    new = [result_for(r, answer="No. Not found.", pages=(4,)) for r in to_answer]
    new.append(result_for(rows2[0], answer="No. Overwritten!", pages=(5,)))
    second = write_results(Settings(), first, layout2, new, tmp_path / "run2" / "q_filled.xlsx", {"run": 2})
    assert sha256(first) == reviewed_hash

    changed = {("Questionnaire", f"{col}{r}") for col in "FHIJKL" for r in (b, c, e)}
    assert_only_changed(first, second, changed)
    ws2 = openpyxl.load_workbook(second)["Questionnaire"]
    assert ws2[f"F{a}"].value == "Partially" and ws2[f"L{a}"].value == "Approved"
    assert ws2[f"H{a}"].value == "Reviewer: only Scope 1 is covered."
    assert ws2[f"F{b}"].value == "No" and ws2[f"L{b}"].value is None  # new answer, awaiting review
    assert ws2[f"K{b}"].value.startswith("Re-answered after review (Rejected)")
    assert ws2[f"M{c}"].value == "Give the FY2024 figure in kt CO2e"  # the comment stays
    assert ws2[f"K{e}"].value == "Answered"

    # Evidence: kept rows keep their first-run passages, re-answered rows get the new ones.
    ev = [r for r in openpyxl.load_workbook(second)["Evidence"].iter_rows(min_row=2, values_only=True)]
    by_row = {}
    for rec in ev:
        by_row.setdefault(rec[0], []).append(rec)
    assert sorted(by_row) == sorted(r.row for r in rows)
    assert [x[5] for x in by_row[a]] == ["no", "yes", "no", "no", "no", "no"]  # run 1 cited page 2
    assert [x[5] for x in by_row[b]] == ["no", "no", "no", "yes", "no", "no"]  # run 2 cited page 4
    assert [x[2] for x in ev] == [1, 2, 3, 4, 5, 6] * len(rows)
    info = {r[0]: r[1] for r in openpyxl.load_workbook(second)["Run info"].iter_rows(min_row=2, values_only=True)}
    assert info["run"] == 2


def test_failed_rerun_keeps_the_previous_answer(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    first = write_results(Settings(), src, layout, [result_for(r) for r in rows], tmp_path / "a.xlsx", {})
    wb = openpyxl.load_workbook(first)
    wb.active[f"L{rows[2].row}"] = "Rejected"
    wb.save(first)
    layout2, rows2 = read_questions(Settings(), first)
    to_answer, _ = rows_to_answer(rows2)
    second = write_results(Settings(), first, layout2,
                           [RowResult(r, None, error="server error 500") for r in to_answer], tmp_path / "b.xlsx", {})
    ws = openpyxl.load_workbook(second).active
    r = rows[2].row
    assert ws[f"K{r}"].value == "Failed: server error 500; previous answer kept"
    assert ws[f"F{r}"].value == "Yes. The company has a target." and ws[f"L{r}"].value == "Rejected"


# ------------------------------------------------------------------------------------ --live


class FakeRange:
    def __init__(self, cells, key):
        self.cells, self.key = cells, key

    @property
    def value(self):
        return self.cells.get(self.key)

    @value.setter
    def value(self, v):
        self.cells[self.key] = v


class FakeBook:
    """Stands in for an xlwings Book in tests: sheets[name].range(address).value."""

    def __init__(self):
        self.cells = {}

    @property
    def sheets(self):
        book = self

        class Sheets:
            def __getitem__(self, name):
                class Sheet:
                    def range(self, address):
                        return FakeRange(book.cells, (name, address))
                return Sheet()
        return Sheets()


def test_live_refuses_on_linux():
    import pytest

    from autofill.errors import InputError
    from autofill.workbook.live import open_live

    with pytest.raises(InputError, match="--live needs Microsoft Excel on Windows or macOS; xlwings cannot drive "
                                         "Excel on Linux. Run without --live to write a filled copy."):
        open_live("whatever.xlsx", platform="linux")


def test_live_writer_fills_the_same_cells_and_spares_approved_rows(tmp_path):
    from autofill.workbook.live import LiveWorkbook

    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    book = FakeBook()
    live = LiveWorkbook(book, layout)
    res = result_for(rows[0])
    res.answer.reasoning = "=HYPERLINK(1)"
    assert live.write(res)
    r = rows[0].row
    assert book.cells[("Questionnaire", f"F{r}")] == "Yes"
    assert book.cells[("Questionnaire", f"H{r}")].startswith("The company has a target.")
    assert book.cells[("Questionnaire", "L3")] == "Review"
    res2 = result_for(rows[2])
    res2.answer.answer = "=1+1"
    live(res2)  # the pipeline uses the writer as a callable sink
    assert book.cells[("Questionnaire", f"F{rows[2].row}")] == "'=1+1"
    live.close()

    # On a reviewed workbook (our columns exist), an approved row is left alone.
    first = write_results(Settings(), src, layout, [result_for(x) for x in rows], tmp_path / "o.xlsx", {})
    wb = openpyxl.load_workbook(first)
    wb.active[f"L{r}"] = "Approved"
    wb.save(first)
    layout2, rows2 = read_questions(Settings(), first)
    book2 = FakeBook()
    book2.cells[("Questionnaire", f"L{r}")] = "Approved"
    assert LiveWorkbook(book2, layout2).write(result_for(rows2[0], answer="No")) is False
    assert ("Questionnaire", f"F{r}") not in book2.cells


def test_customer_status_column_is_not_confused_with_ours_on_a_rerun(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.append(["Question", "Status", "Answer"])
    wb.active.append(["Does the company report emissions?", "Open", None])
    wb.save(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), tmp_path / "q.xlsx")
    first = write_results(Settings(), tmp_path / "q.xlsx", layout, [result_for(r) for r in rows],
                          tmp_path / "a.xlsx", {})
    layout2, rows2 = read_questions(Settings(), first)
    sheet = layout2.sheets[0]
    assert sheet.letter("status") == "G" and not sheet.added_columns
    assert rows2[0].status == "Answered"
    ws = openpyxl.load_workbook(first).active
    assert ws["B2"].value == "Open" and ws["G1"].value == "Status (autofill)"  # no header twice


# ------------------------------------------------------------------------------------ row states


def test_review_and_status_spellings_are_parsed_in_one_place():
    from autofill.states import Outcome, ReviewState, format_status, parse_review, parse_status

    for text in ("Reject", "rejected", " REJECTED "):
        assert parse_review(text) is ReviewState.REJECTED
    for text in ("Needs changes", "needs-changes", "needs_change", "Changes needed"):
        assert parse_review(text) is ReviewState.NEEDS_CHANGES and parse_review(text).reanswer
    assert parse_review("approved ") is ReviewState.APPROVED and parse_review("maybe") is ReviewState.NONE
    assert format_status(Outcome.FAILED, error="HTTP 500") == "Failed: HTTP 500"
    assert format_status(Outcome.ANSWERED, "dropped 1 citation") == "Answered; dropped 1 citation"
    for text, outcome in [("Answered", Outcome.ANSWERED), ("Failed: timeout; previous answer kept", Outcome.FAILED),
                          ("Re-answered after review (Rejected); Answered", Outcome.ANSWERED),
                          ("Evidence only (no LLM configured)", Outcome.DRAFTED),
                          ("Unparsed model output; previous answer kept", Outcome.UNPARSED),
                          ("Edited by hand (Answer): kept as the reviewer left it", Outcome.EDITED),
                          ("Approved in review (2026-11-25)", Outcome.APPROVED),
                          ("Answer not written: the answer is empty", Outcome.NOT_WRITTEN),
                          ("Waiting for a model: Rejected in review; configure a model", Outcome.WAITING),
                          ("", None), ("Customer note", None)]:
        assert parse_status(text) is outcome, text


def test_reject_and_needs_changes_work_end_to_end_in_the_writer(tmp_path):
    """The writer, like the reviewer logic, reads any accepted spelling: a `Reject` row is re-answered,
    says so in Status and keeps its comment; an `APPROVED` row is never touched."""
    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    first = write_results(Settings(), src, layout, [result_for(r) for r in rows], tmp_path / "a.xlsx", {})
    wb = openpyxl.load_workbook(first)
    ws = wb["Questionnaire"]
    ws[f"L{rows[0].row}"], ws[f"M{rows[0].row}"] = "Reject", "Wrong scope"
    ws[f"L{rows[1].row}"], ws[f"F{rows[1].row}"] = "APPROVED", "No"
    wb.save(first)
    layout2, rows2 = read_questions(Settings(), first)
    to_answer, kept = rows_to_answer(rows2)
    assert [r.row for r in to_answer] == [rows[0].row] and rows[1].row in [r.row for r in kept]
    second = write_results(Settings(), first, layout2,
                           [result_for(r, answer="No. Only Scope 1.") for r in rows2], tmp_path / "b.xlsx", {})
    ws2 = openpyxl.load_workbook(second)["Questionnaire"]
    assert ws2[f"K{rows[0].row}"].value.startswith("Re-answered after review (Rejected); Answered")
    assert ws2[f"M{rows[0].row}"].value == "Wrong scope" and ws2[f"L{rows[0].row}"].value is None
    assert ws2[f"F{rows[1].row}"].value == "No" and ws2[f"L{rows[1].row}"].value == "APPROVED"
