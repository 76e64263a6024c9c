"""checks/reviewed.py: a reviewer's answer gets the checks a model's answer gets (figures and years
against the cited pages, form, empty answer) plus the drop-down rule; an approved row keeps its
failures under Tier Approved; a confirmation is written and read back as the decision's note, and the
Review log's latest standing approval is found (an undone one is not). Also: the same answer gets the
same checks here as through `run`'s re-check of an edited row (answer/recheck.py)."""

from __future__ import annotations

from autofill.answer.recheck import recheck
from autofill.answer.trust import Trust
from autofill.checks.reviewed import (approved, check_reviewed, covers, dropdown_value,
                                      failed_reasons, off_list, overridden, override_note)
from autofill.checks.row import CheckContext
from autofill.records import Citation, Passage, QuestionRow, RowResult
from autofill.settings import Settings
from autofill.states import Outcome, Tier

TEXT = "Scope 1 emissions were 1,120 kt CO2e in FY2020, measured against the FY2020 baseline."
PASSAGE = Passage("c1", "r.pdf", 3, 3, "", TEXT)
LIST = ["Yes", "No", "Partially", "Not disclosed"]


def row(dropdown: bool = False) -> QuestionRow:
    return QuestionRow(sheet="S", row=5, question="What were Scope 1 emissions in FY2020?",
                       allowed_values=LIST if dropdown else [], allowed_values_source="dropdown" if dropdown else "")


def failed(answer: str, dropdown: bool = False, pages=(3,), passages=(PASSAGE,)) -> list[str]:
    return failed_reasons(check_reviewed(row(dropdown), answer, [Citation("r.pdf", p) for p in pages], list(passages)))


def test_figures_and_years_are_checked_against_the_cited_pages():
    assert failed("1,120 kt CO2e in FY2020") == []
    assert failed("987,654 tCO2e in FY2020") == ["987,654 tCO2e not in cited passages"]
    assert failed("Against the FY2019 baseline") == ["FY2019 not in cited passages"]
    # A page the store does not hold is named; an answer with no citation fails its form.
    assert "cited page not in today's evidence store: r.pdf p. 4" in failed("1,120 kt CO2e", pages=(4,), passages=())
    assert "no citation" in failed("1,120 kt CO2e", pages=())


def test_an_empty_answer_fails():
    assert failed("") == ["no answer"]
    assert failed("   ", dropdown=True) == ["no answer"]


def test_the_drop_down_cell_takes_only_its_values():
    assert failed("Yes", dropdown=True) == [] and failed("not disclosed", dropdown=False) != []
    assert failed("Maybe", dropdown=True) == ["answer is not one of Yes, No, Partially, Not disclosed"]
    # A leading value passes the form check of a model answer, but the cell would still hold the sentence.
    assert failed("Yes. Against the FY2020 baseline", dropdown=True) == [
        "'Yes. Against the FY2020 baseline' is not one of the drop-down values (Yes, No, Partially, Not disclosed)"]
    assert dropdown_value(" yes ", LIST) == "Yes" and dropdown_value("Yes.", LIST) is None
    assert off_list(row(True), "Maybe").startswith("'Maybe' is not one of") and off_list(row(False), "Maybe") == ""
    assert off_list(row(True), "") == ""  # empty is its own check


def test_the_same_checks_as_runs_recheck_of_an_edited_row():
    class Store:
        def page_passages(self, pages):
            return [PASSAGE] if ("r.pdf", 3) in pages else []

    trust = Trust(settings=Settings(), context=CheckContext())
    for answer in ("1,120 kt CO2e in FY2020", "987,654 tCO2e in FY2019", "", "Not disclosed"):
        q = row()
        q.existing_answer = answer
        by_run = recheck(trust, Store(), RowResult(question=q, answer=None, outcome=Outcome.EDITED), "r.pdf p. 3")
        assert failed_reasons(by_run.checks) == failed(answer), answer


def test_an_approved_row_keeps_its_failures_under_tier_approved():
    q = row(dropdown=True)
    q.existing_answer = "Maybe"
    res = RowResult(question=q, answer=None, outcome=Outcome.APPROVED)
    done = approved(res)
    assert done.tier is Tier.APPROVED
    assert failed_reasons(done.checks) == [
        "'Maybe' is not one of the drop-down values (Yes, No, Partially, Not disclosed)"]
    res = RowResult(question=q, answer=None, outcome=Outcome.APPROVED,
                    checks=check_reviewed(q, "Maybe", [Citation("r.pdf", 3)], [PASSAGE]))
    assert failed_reasons(approved(res).checks) == ["answer is not one of Yes, No, Partially, Not disclosed"]


def test_a_confirmation_is_recorded_and_read_back():
    reasons = ["987,654 tCO2e not in cited passages", "FY2019 not in cited passages"]
    note = override_note(reasons)
    assert note.startswith("Approved over failed checks") and overridden(note) == reasons
    assert overridden(override_note(reasons[:1], approve=False)) == reasons[:1]
    assert overridden("Checked against p. 2") == [] and overridden("") == []
    assert covers(reasons, reasons[:1]) and not covers(reasons[:1], reasons) and covers([], [])


