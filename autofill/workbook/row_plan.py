"""What a result puts in a row's cells, decided in one place (pure; the workbook writer and live Excel
share it): the values by role (`plan_row`: an evidence-only draft never touches the Answer cell, a failed
row only says so in Status), the allowed value an answer states, why a row could not be written, and
whether a row keeps what it held (`settle`)."""

from __future__ import annotations

from autofill.checks.tier import decide_tier, failed_text
from autofill.records import Answer, CheckResult, QuestionRow, RowResult, Severity
from autofill.states import (DRAFT_PREFIX, KEPT, PREVIOUS_KEPT, REANSWERED_PREFIX, WRITES_ANSWER, Outcome,
                             format_status, parse_review)

# Outcomes that never replace what a row already holds: their Status says what happened instead.
_NO_REPLACE = (Outcome.FAILED, Outcome.UNPARSED, Outcome.DRAFTED, Outcome.NOT_WRITTEN)


def match_allowed(text: str, allowed: list[str]) -> str | None:
    """The allowed value an answer states: an exact match or a leading "Yes. ..." / "No - ...";
    longest values first so "Not disclosed" is never read as "No"."""
    t = text.strip()
    low = t.lower()
    for value in allowed:
        if low == value.lower():
            return value
    for value in sorted(allowed, key=len, reverse=True):
        v = value.lower()
        if low.startswith(v) and (len(low) == len(v) or not low[len(v)].isalnum()):
            return value
    return None


def plan_row(q: QuestionRow, res: RowResult) -> dict[str, str | None]:
    """The values for a row's cells by role (pure; shared with live Excel): the one place that decides
    what a result puts in a row. A role absent from the plan stays untouched; None clears the cell.

    An evidence-only draft never touches the Answer cell (the column that goes back to the customer):
    its quotes go to Reasoning. A failed row only says so in Status (and its tier). Every written row
    gets its `Framework datapoints` cell (autofill/frameworks), whatever its outcome."""
    return {**_plan_cells(q, res), "datapoints": q.datapoints or None}


def _plan_cells(q: QuestionRow, res: RowResult) -> dict[str, str | None]:
    trust = {} if res.tier is None else {"tier": res.tier.label, "checks": failed_text(res.checks) or None}
    if res.outcome is Outcome.SKIPPED:  # left exactly as it is
        return {"status": res.note} if res.note else {}
    if res.outcome in KEPT:  # kept as a person left it: only Status, Tier and Checks (re-assessed)
        return {**({"status": res.note} if res.note else {}), **trust}
    if res.answer is None:
        return {"status": format_status(Outcome.FAILED, error=res.error or "unknown error"), **trust}
    ans: Answer = res.answer
    text = (ans.answer or "").strip()
    why_not = not_written_reason(q, res) if res.outcome is Outcome.NOT_WRITTEN else ""
    head = format_status(Outcome.NOT_WRITTEN, error=why_not) if why_not else ans.status or format_status(res.outcome)
    status = [head] + [f for f in ans.flags if f and f not in ans.status]
    reasoning = [ans.reasoning.strip()] if ans.reasoning and ans.reasoning.strip() else []
    value: str | None = text
    if res.outcome is Outcome.DRAFTED:
        value = None
        if text:
            reasoning.insert(0, text)  # a draft that put its quotes in the answer text
    elif why_not:
        value = None
        if text:
            reasoning.insert(0, f"Model answer (not written): {text}")
    elif q.allowed_values_source == "dropdown" and q.allowed_values:
        verdict = match_allowed(text, q.allowed_values)
        if verdict is None:
            value = None
            if text:
                reasoning.insert(0, f"Model answer (not an allowed value): {text}")
            status.append(f"answer left empty: {text[:40]!r} is not one of the drop-down values "
                          f"({', '.join(q.allowed_values)})")
        else:
            value = verdict
            rest = text[len(verdict):].lstrip(" .,:;-–—").strip()
            if rest:
                reasoning.insert(0, rest)
    elif q.allowed_values and text:
        if match_allowed(text, q.allowed_values) is None:
            status.append(f"answer does not start with one of {', '.join(q.allowed_values)}")
    review = parse_review(q.review)
    if review.reanswer:
        status.insert(0, f"{REANSWERED_PREFIX} ({review.label})")
    sources = []
    for c in ans.citations:
        if c.label() not in sources:
            sources.append(c.label())
    out = {
        "reasoning": "\n\n".join(reasoning) or None,
        "sources": "; ".join(sources) or None,
        "confidence": ans.confidence or None,
        "status": "; ".join(s for s in status if s),
        **trust,
    }
    if res.outcome is not Outcome.DRAFTED and not q.unwritable:
        out = {"answer": value, **out}
    if res.library is not None:
        out["library_answer"] = res.library.cell_text
    if q.review.strip():
        out["review"] = None  # a new answer needs a new review; the reviewer's comment stays
    return out


def not_written_reason(q: QuestionRow, res: RowResult) -> str:
    """Why the answer of a result that writes one (answered, reused) cannot go into row `q`'s Answer
    cell: a merged cell that is not the row's own, an empty answer, or text that is not one of the
    cell's drop-down values. "" when it can."""
    if res.answer is None or (res.outcome not in WRITES_ANSWER and res.outcome is not Outcome.NOT_WRITTEN):
        return ""
    text = (res.answer.answer or "").strip()
    if q.unwritable:
        return q.unwritable
    if not text:
        return "the answer is empty"
    if q.allowed_values_source == "dropdown" and q.allowed_values and match_allowed(text, q.allowed_values) is None:
        return f"{text[:40]!r} is not one of the drop-down values ({', '.join(q.allowed_values)})"
    return ""


def mark_not_written(res: RowResult) -> RowResult:
    """A result whose answer cannot be written (not_written_reason) becomes Outcome.NOT_WRITTEN with a
    hard check: never counted or shown as answered, never Ready. Called on every finished row before
    it is counted (answer/pipeline.py)."""
    why = not_written_reason(res.question, res)
    if why and res.outcome is not Outcome.NOT_WRITTEN:
        res.outcome = Outcome.NOT_WRITTEN
        res.checks = [c for c in res.checks if c.name != "written"] + [
            CheckResult("written", False, Severity.HARD, f"answer not written: {why}")]
        res.tier = decide_tier(res.checks)
    return res


def keeps_previous(res: RowResult, current_answer: object) -> bool:
    """A failed, unparsed or evidence-only result never replaces an answer the row already holds (a good
    answer from an earlier run, or one a person typed; an old-style draft in the Answer cell does not
    count): the row keeps its content and only its Status says what happened."""
    current = str(current_answer or "").strip()
    return res.outcome in _NO_REPLACE and bool(current) and not current.startswith(DRAFT_PREFIX.strip())


def settle(plan: dict[str, str | None], res: RowResult, current_answer: object) -> dict[str, str | None]:
    """`plan` adjusted to what the row holds now (see keeps_previous). An old-style evidence-only draft
    in the Answer cell (written before drafts moved to Reasoning) is cleared."""
    if keeps_previous(res, current_answer):
        return {"status": f"{plan.get('status') or format_status(res.outcome)}; {PREVIOUS_KEPT}"}
    if res.outcome is Outcome.DRAFTED and str(current_answer or "").strip().startswith(DRAFT_PREFIX.strip()):
        plan = {"answer": None, **plan}
    return plan
