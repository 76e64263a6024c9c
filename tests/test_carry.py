"""The output is a living document (workbook/carry.py, workbook/history.py, the run loop): a reviewer
edits the filled workbook, re-runs `autofill run` the natural way (with the original questionnaire) or
with the edited output as the questionnaire, and nothing they did is lost; the previous file is kept
in history/; failed rows keep what they held. The real openai SDK talks to the loopback server."""

from __future__ import annotations

import shutil

import openpyxl
import pytest

from autofill.answer.pipeline import run_questionnaire
from autofill.providers.base import Providers
from autofill.providers.factory import make_chat
from autofill.settings import Settings
from autofill.workbook.record import RECORD_SHEET, read_record, read_state, value_hash
from autofill.workbook.history import keep_previous, versions
from autofill.workbook.layout import read_questions
from tests.answer_helpers import COMPANY, FACTS, MARKERS, SAMPLE, fact_for, kind_of, make_questionnaire, \
    copied_workspace
from tests.fakes import RecordingReporter
from tests.llm_server import by_marker, last_user_text

GUIDANCE = "Guidance from a reviewer of an earlier draft:"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx")


def settings_for(root, server) -> Settings:
    s = Settings(workspace=root)
    s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = "openai", server.base_url, "sk-test", "gpt-4o-mini"
    s.llm.retry_base_delay_s, s.llm.max_retries, s.llm.concurrency, s.llm.cache = 0.01, 0, 2, False
    return s


def run(s, emb, questionnaire, out_dir, **kw):
    return run_questionnaire(s, COMPANY, questionnaire, out_dir=out_dir,
                             providers=Providers(embedder=emb, chat=make_chat(s)), **kw)


class Sheet:
    """The question sheet of a filled workbook, cells addressed by header and question."""

    def __init__(self, path):
        self.wb = openpyxl.load_workbook(path)
        self.ws = self.wb["Questionnaire"]
        header = next(r for r in range(1, 10) if self.ws.cell(row=r, column=3).value == "Question")
        self.col = {self.ws.cell(row=header, column=c).value: c for c in range(1, self.ws.max_column + 1)}
        self.row = {self.ws.cell(row=r, column=3).value: r for r in range(header + 1, self.ws.max_row + 1)}

    def get(self, fact, header):
        return self.ws.cell(row=self.row[fact.question], column=self.col[header]).value

    def set(self, fact, header, value):
        self.ws.cell(row=self.row[fact.question], column=self.col[header]).value = value

    def values(self, fact):
        return {h: self.get(fact, h) for h in ("Answer", "Reasoning", "Sources", "Status", "Review",
                                               "Reviewer comment")}


def assert_approved_kept(after: dict, before: dict) -> None:
    """An approved row keeps every cell the reviewer left; only its Status now names the review."""
    assert {k: v for k, v in after.items() if k != "Status"} == {k: v for k, v in before.items() if k != "Status"}
    assert after["Status"].startswith("Approved in review (") and after["Status"] != before["Status"]


def review(path):
    """What a reviewer does in Excel: approve an edited answer, reject one, ask for changes on one,
    fix a reasoning by hand without a Review value, leave one alone."""
    sheet = Sheet(path)
    a, b, c, d, e = FACTS
    sheet.set(a, "Answer", "Yes")
    sheet.set(a, "Reasoning", "Reviewer: net zero by 2050 for operated assets, p. 2.")
    sheet.set(a, "Review", "Approved")
    sheet.set(a, "Reviewer comment", "Checked against the report.")
    sheet.set(b, "Review", "Reject")  # a spelling the drop-down does not offer, still understood
    sheet.set(b, "Reviewer comment", "Name the committee and how often it meets")
    sheet.set(c, "Reasoning", "Reviewer: 46% per the energy table on p. 5.")
    if e.question in sheet.row:
        sheet.set(e, "Review", "needs-changes")
        sheet.set(e, "Reviewer comment", "Quote the TCFD index page")
    sheet.wb.save(path)


def test_reviewer_work_survives_a_rerun_with_the_original_questionnaire(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server)
    first = run(s, emb, questionnaire, tmp_path)
    assert first.answered == len(FACTS) and first.history is None
    assert read_record(openpyxl.load_workbook(first.output))  # what autofill wrote is recorded
    review(first.output)
    edited = first.output.read_bytes()
    shutil.copy(first.output, tmp_path / "edited_copy.xlsx")
    before = Sheet(first.output)
    a, b, c, d, e = FACTS

    llm_server.reset()
    rep = RecordingReporter()
    second = run(s, emb, questionnaire, tmp_path, reporter=rep)
    # Rejected and needs-changes rows are answered again, with the reviewer's comment as guidance;
    # nothing else costs a call.
    assert (second.answered, second.skipped, second.edited, second.failed) == (2, 3, 1, 0)
    asked = {fact_for(last_user_text(r.json)).question for r in llm_server.chat_requests()}
    assert asked == {b.question, e.question}
    answers = [r for r in llm_server.chat_requests() if kind_of(r.json) == "answer"]
    guidance = {fact_for(last_user_text(r.json)).question: last_user_text(r.json) for r in answers}
    assert f"{GUIDANCE} Name the committee and how often it meets" in guidance[b.question]
    assert f"{GUIDANCE} Quote the TCFD index page" in guidance[e.question]

    # Nothing is destroyed: the edited file is in history/, byte for byte, and the summary names it.
    assert second.history is not None and second.history.parent == tmp_path / "history"
    assert second.history.read_bytes() == edited
    from autofill.summaries import run_summary

    assert f"Previous version kept: {second.history}" in run_summary(second, COMPANY)
    assert any(m.startswith("Continuing questionnaire_") for m in rep.messages)
    assert second.to_json()["history"] == str(second.history)

    after = Sheet(second.output)
    assert_approved_kept(after.values(a), before.values(a))  # approved: exactly as the reviewer left it
    assert after.get(a, "Reasoning") == "Reviewer: net zero by 2050 for operated assets, p. 2."
    for fact, label in ((b, "Rejected"), (e, "Needs changes")):
        assert after.get(fact, "Status").startswith(f"Re-answered after review ({label}); Answered")
        assert after.get(fact, "Review") is None  # the new answer awaits a new review
        assert after.get(fact, "Reviewer comment") == before.get(fact, "Reviewer comment")  # the comment stays
        assert after.get(fact, "Sources") == f"{SAMPLE} p. {fact.page}"
    # Edited by hand, no Review: kept as the person left it, and the Status says so.
    assert after.get(c, "Reasoning") == "Reviewer: 46% per the energy table on p. 5."
    assert after.get(c, "Answer") == before.get(c, "Answer")
    assert after.get(c, "Status") == "Edited by hand (Reasoning): kept as the reviewer left it"
    assert after.values(d) == before.values(d)  # untouched row: kept

    # The other natural way: the edited output itself as --questionnaire gives the same rows.
    llm_server.reset()
    third = run(s, emb, tmp_path / "edited_copy.xlsx", tmp_path / "other")
    assert (third.answered, third.skipped, third.edited) == (2, 3, 1) and third.history is None
    via_output = Sheet(third.output)
    for fact in FACTS:
        assert via_output.values(fact) == after.values(fact), fact.question


def test_failed_rows_keep_their_previous_answer(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server)
    first = run(s, emb, questionnaire, tmp_path)
    sheet = Sheet(first.output)
    sheet.set(FACTS[3], "Review", "Rejected")
    sheet.set(FACTS[3], "Reviewer comment", "Give Scope 2 too")
    sheet.wb.save(first.output)
    before = Sheet(first.output).values(FACTS[3])

    llm_server.fail_next(20, status=500)  # the model is up but every call fails (no retries here)
    second = run(s, emb, questionnaire, tmp_path)
    assert (second.failed, second.answered, second.skipped) == (1, 0, len(FACTS) - 1) and not second.ok
    after = Sheet(second.output).values(FACTS[3])
    assert after["Status"].startswith("Failed: ProviderError") and after["Status"].endswith("previous answer kept")
    assert {k: after[k] for k in ("Answer", "Reasoning", "Sources", "Review", "Reviewer comment")} == \
        {k: before[k] for k in ("Answer", "Reasoning", "Sources", "Review", "Reviewer comment")}

    # The next run retries it, still with the reviewer's comment.
    llm_server.reset()
    third = run(s, emb, questionnaire, tmp_path)
    assert third.answered == 1 and third.ok
    assert f"{GUIDANCE} Give Scope 2 too" in last_user_text(llm_server.chat_requests("single JSON object")[0].json)


def test_fresh_answers_autofill_rows_again_but_keeps_reviewers_work(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server)
    first = run(s, emb, questionnaire, tmp_path)
    review(first.output)
    again = run(s, emb, questionnaire, tmp_path, resume=False)
    assert (again.answered, again.skipped) == (len(FACTS) - 2, 2)  # approved and hand-edited rows stay
    assert Sheet(again.output).get(FACTS[0], "Review") == "Approved"


def test_eval_never_writes_the_runs_output(ingested, llm_server, tmp_path):
    from autofill.evaluate.runner import eval_output

    root, emb, questionnaire = ingested
    s = settings_for(root, llm_server)
    assert eval_output(s, COMPANY, questionnaire, tmp_path).name == "questionnaire_Northwind_Metals_eval.xlsx"
    llm_server.responder = by_marker(MARKERS)
    first = run(s, emb, questionnaire, tmp_path)
    review(first.output)
    reviewed = first.output.read_bytes()
    report = run_questionnaire(s, COMPANY, questionnaire, providers=Providers(embedder=emb, chat=make_chat(s)),
                               output=eval_output(s, COMPANY, questionnaire, tmp_path), keep_reviews=False)
    assert report.output != first.output and report.answered == len(FACTS)  # every row afresh
    assert first.output.read_bytes() == reviewed


# --------------------------------------------------------------------------- units


def test_hand_edits_are_told_apart_from_autofills_own_output(tmp_path):
    from tests.workbook_builders import build_questionnaire, result_for
    from autofill.workbook.writeback import write_results

    src = build_questionnaire(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    out = write_results(Settings(), src, layout, [result_for(r) for r in rows], tmp_path / "o.xlsx", {})
    wb = openpyxl.load_workbook(out)
    assert wb[RECORD_SHEET].sheet_state == "veryHidden"
    layout2, _ = read_questions(Settings(), out)
    assert read_state(out, layout2).edited == {}  # untouched output: nothing edited
    ws = wb["Questionnaire"]
    ws[f"F{rows[2].row}"] = "  Yes.   The company has a target. "  # whitespace only: not an edit
    ws[f"I{rows[3].row}"] = "report.pdf p. 7"
    ws[f"H{rows[4].row}"] = None
    wb.save(out)
    state = read_state(out, layout2)
    assert state.edited == {rows[3].key: ["sources"], rows[4].key: ["reasoning"]}
    assert value_hash(None) == value_hash("  ") == "" and value_hash("a  b") == value_hash("a b")


def test_history_keeps_a_bounded_number_of_versions(tmp_path):
    out = tmp_path / "q_filled.xlsx"
    assert keep_previous(out) is None  # nothing to keep yet
    kept = []
    for i in range(5):
        out.write_bytes(f"version {i}".encode())
        kept.append(keep_previous(out, keep=3))
    assert all(p is not None for p in kept)
    assert [p.read_bytes() for p in versions(out)] == [b"version 2", b"version 3", b"version 4"]
    assert keep_previous(out, keep=0) is None and len(versions(out)) == 3  # 0: history switched off


def test_a_new_version_of_the_questionnaire_carries_rows_by_question_text(ingested, llm_server, tmp_path, caplog):
    """The customer sends v2 with a question added at the top: every row moves down one. Rows found by
    their text keep the reviewer's work (cells, Review, comment, evidence); the new one is answered."""
    import logging

    root, emb, _ = ingested
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server)
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    v1 = make_questionnaire(tmp_path / "v1" / "questionnaire.xlsx", FACTS[:4])
    v2 = make_questionnaire(tmp_path / "v2" / "questionnaire.xlsx", [FACTS[4]] + FACTS[:4])
    first = run(s, emb, v1, tmp_path / "out")
    review(first.output)  # approves FACTS[0] (edited), rejects FACTS[1], edits FACTS[2] by hand
    before = Sheet(first.output)
    a, b, c, d, new = FACTS

    llm_server.reset()
    with caplog.at_level(logging.WARNING, logger="autofill"):
        second = run(s, emb, v2, tmp_path / "out")
    assert "4 of 5 rows carried over by their question text" in caplog.text
    assert second.history is not None  # the old file is kept as it was
    assert (second.answered, second.skipped, second.edited) == (2, 3, 1)  # the new question and the rejected one
    asked = {fact_for(last_user_text(r.json)).question for r in llm_server.chat_requests()}
    assert asked == {new.question, b.question}
    after = Sheet(second.output)
    assert after.row[a.question] == before.row[a.question] + 1  # really moved
    assert_approved_kept(after.values(a), before.values(a))  # approved, as edited, at its new row
    assert after.get(c, "Reasoning") == "Reviewer: 46% per the energy table on p. 5."
    assert after.get(c, "Status") == "Edited by hand (Reasoning): kept as the reviewer left it"
    assert after.values(d) == before.values(d)
    assert after.get(b, "Status").startswith("Re-answered after review (Rejected)")
    assert after.get(b, "Reviewer comment") == "Name the committee and how often it meets"
    assert after.get(new, "Status") == "Answered"
    # The kept rows' evidence moved with them.
    ev = after.wb["Evidence"]
    head = [cell.value for cell in ev[1]]
    rows = [dict(zip(head, [cell.value for cell in r])) for r in ev.iter_rows(min_row=2)]
    assert {r["Row"] for r in rows if r["Question"] == a.question} == {after.row[a.question]}
    assert len([r for r in rows if r["Question"] == a.question]) == 6

    # And the next run reads the new output like any other: nothing to do, the hand edit still known.
    third = run(s, emb, v2, tmp_path / "out")
    assert (third.answered, third.skipped, third.edited) == (0, 5, 1)
