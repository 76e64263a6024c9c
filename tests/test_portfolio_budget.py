"""The shared model slots and the cost cap every row of a portfolio goes through."""

from __future__ import annotations

import threading

import pytest
import time

from autofill.portfolio.budget import Budget, RowGate
from autofill.portfolio.workbook import question_key, row_outcome
from autofill.records import Answer, QuestionRow, RowResult, StageUsage
from autofill.states import Outcome


def result(cost: float) -> RowResult:
    return RowResult(question=QuestionRow("S", 1, "q"), answer=Answer("a"), usage={"answer": StageUsage(calls=1, cost_usd=cost)})


def test_budget_counts_in_flight_rows_and_stops_for_good():
    b = Budget(1.0)
    assert b.reserve(0.4) and b.reserve(0.4)
    assert not b.reserve(0.4)  # 0.8 in flight + 0.4 > 1.0
    b.settle(0.4, 0.1)
    b.settle(0.4, 0.1)
    assert b.exhausted and not b.reserve(0.01)  # once refused, no later row starts
    assert (round(b.spent, 6), b.in_flight, b.refused) == (0.2, 0.0, 2)
    assert Budget(None).reserve(1e9)


def test_one_limit_shared_by_all_companies():
    limiter = threading.BoundedSemaphore(3)
    gates = [RowGate(limiter, None) for _ in range(4)]  # four companies
    lock = threading.Lock()
    running, peak = [0], [0]

    def work(ctx, row):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return result(0.0)

    threads = [threading.Thread(target=g.wrap(work), args=(None, None)) for g in gates for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 3


def test_gate_holds_rows_back_when_the_cap_is_reached():
    budget = Budget(0.25)
    gate = RowGate(None, budget, row_estimate_usd=0.1)
    calls = []
    work = gate.wrap(lambda ctx, row: calls.append(row) or result(0.1))
    assert [work(None, i) is not None for i in range(4)] == [True, True, False, False]
    assert calls == [0, 1] and round(budget.spent, 6) == 0.2
    stop = threading.Event()
    stop.set()
    assert RowGate(None, None, stop=stop).wrap(lambda c, r: result(0))(None, None) is None


def test_row_outcomes_and_question_matching():
    assert row_outcome("Yes", "Answered") is Outcome.ANSWERED
    assert row_outcome("", "Evidence only (no LLM configured)") is Outcome.DRAFTED
    assert row_outcome("", "Failed: APIError: boom") is Outcome.FAILED
    assert row_outcome("", "") is Outcome.PENDING
    assert row_outcome("kept", "") is Outcome.SKIPPED
    # An answer the cell could not hold is not shown as answered in the portfolio sheet.
    assert row_outcome("", "Answer not written: merged cell E7:F7 also holds the question") is Outcome.NOT_WRITTEN
    assert row_outcome("Yes", "Approved in review (2026-11-25)") is Outcome.APPROVED
    assert question_key("Does the company  have a target?") == question_key("does the company have a target")


def test_a_row_with_unpriced_calls_is_charged_its_estimate_not_nothing():
    from autofill.portfolio.budget import row_cost

    unpriced = RowResult(question=QuestionRow("S", 1, "q"), answer=Answer("a"),
                         usage={"answer": StageUsage(calls=1, cost_usd=0.0, unpriced_calls=1)})
    assert row_cost(unpriced, 0.25) == 0.25 and row_cost(result(0.5), 0.25) == 0.5
    b = Budget(0.6)
    gate = RowGate(None, b, row_estimate_usd=0.25)
    work = gate.wrap(lambda ctx, row: unpriced)
    assert work(None, None) is unpriced and work(None, None) is unpriced
    assert work(None, None) is None and b.spent == pytest.approx(0.5)  # the third would pass the cap
