"""checks/row.py: all checks of a finished row, from its RowResult (its typed outcome, its cited passages)."""

from __future__ import annotations

from autofill.checks.row import assess, outcome_of
from autofill.records import Answer, Citation, Passage, QuestionRow, RowResult
from autofill.states import Outcome, Tier

PAGE = ("Scope 1 emissions were 12.3 Mt CO2-e in FY2021. Scope 1 emissions were 13.1 Mt CO2-e in FY2020. "
        "The Climate Change Report 2021 describes our FY2022 plans.")


def row(text, outcome=None, status=""):
    passage = Passage(chunk_id="c1", file_name="Climate Change Report 2021.pdf", page_start=4, page_end=4,
                      section="", text=PAGE)
    answer = Answer(answer=text, citations=[Citation(passage.file_name, 4)], cited_passages=[1],
                    confidence="high", status=status)
    return RowResult(question=QuestionRow(sheet="Q", row=2, question="Scope 1 emissions?"), answer=answer,
                     passages=[passage], outcome=outcome)


def failed(checks):
    return [c.reason for c in checks if not c.passed]


def test_the_rows_typed_outcome_decides_not_its_status_text():
    # A draft whose Status text says nothing about it is still a draft.
    drafted = row("Scope 1 emissions were 12.3 Mt CO2-e in FY2021.", outcome=Outcome.DRAFTED)
    assert outcome_of(drafted) is Outcome.DRAFTED
    checks, tier = assess(drafted)
    assert tier is Tier.NEEDS_WORK and failed(checks) == ["evidence-only draft: no model answered"]
    unparsed = row("Scope 1 emissions were 12.3 Mt CO2-e in FY2021.", outcome=Outcome.UNPARSED)
    assert assess(unparsed)[1] is Tier.NEEDS_WORK
    # A library answer reused as it stands is checked like an answered one.
    reused = row("Scope 1 emissions were 12.3 Mt CO2-e in FY2022.", outcome=Outcome.REUSED)
    assert outcome_of(reused) is Outcome.ANSWERED
    assert "FY2022 not stated with 12.3 Mt CO2-e in cited passages" in failed(assess(reused)[0])
    # Without a recorded outcome, the row derives it from its answer.
    assert outcome_of(row("Scope 1 emissions were 12.3 Mt CO2-e.")) is Outcome.ANSWERED
    assert outcome_of(RowResult(question=QuestionRow(sheet="Q", row=3, question="?"), answer=None)) is Outcome.FAILED


def test_a_year_moved_off_its_figure_makes_the_row_need_work():
    checks, tier = assess(row("Scope 1 emissions were 12.3 Mt CO2-e in FY2021."))
    assert tier is Tier.READY, failed(checks)
    checks, tier = assess(row("Scope 1 emissions were 12.3 Mt CO2-e in FY2020."))
    assert tier is Tier.NEEDS_WORK
    assert failed(checks) == ["FY2020 not stated with 12.3 Mt CO2-e in cited passages"]


def test_a_document_named_with_another_year_makes_the_row_need_work():
    assert assess(row("The Climate Change Report 2021 gives 12.3 Mt CO2-e for FY2021."))[1] is Tier.READY
    checks, tier = assess(row("The Climate Change Report 2022 gives 12.3 Mt CO2-e for FY2021."))
    assert tier is Tier.NEEDS_WORK
    assert "Climate Change Report 2022: cited passages name it Climate Change Report 2021" in failed(checks)
