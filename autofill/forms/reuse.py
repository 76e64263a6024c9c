"""The answer library's form values at work in a form run (issue 45): a datapoint the library answers
(same datapoint and period, `library.reuse = "approved"`, cited documents unchanged) becomes a REUSED
FormAnswer without a model call, and a model's answer gets the library's value beside it (a soft check when
they differ; another period's shown as last period's). The values themselves are library/forms.py's."""

from __future__ import annotations

from typing import Any

from autofill.library.forms import FormValue, Offer
from autofill.forms.values import ValueType, parse_value
from autofill.records import Answer, CheckResult, RowResult, Severity
from autofill.states import Outcome

def reused_answer(dp: Any, row: Any, offer: Offer) -> Any:
    """The FormAnswer of a datapoint the library answers (forms/answer.Decision.REUSED): its approved
    value read as the datapoint's type in the form's unit; None when it is no value of it any more."""
    from autofill.forms.answer import KIND_TYPES, Decision, FormAnswer, form_unit

    v = offer.same
    vtype = KIND_TYPES.get(dp.kind, ValueType.TEXT)
    value = parse_value(v.value, vtype, form_unit(dp), list(dp.allowed), written_unit=v.unit)
    if not value.ok:
        return None
    answer = Answer(answer=v.value, reasoning=f"From the answer library: {v.provenance()}",
                    status=f"reused from the answer library ({v.approved_at})")
    result = RowResult(question=row, answer=answer, outcome=Outcome.REUSED)
    checks = [CheckResult("library", True, Severity.SOFT, f"reused: {v.shown()} {v.provenance()}")]
    return FormAnswer(dp, result, Decision.REUSED, value, checks)


def annotate(answered: Any, offer: Offer | None) -> None:
    """Show the library's value beside a datapoint the run answered: the approved value of the period
    (a different value is a soft check, never Ready), or last period's value (shown only)."""

    if offer is None:
        return
    if offer.same is not None:
        v = offer.same
        differs = answered.value is not None and answered.value.ok and not _same_value(answered, v)
        answered.checks.append(CheckResult(
            "library", not differs, Severity.SOFT,
            f"{'differs from' if differs else 'same as'} the approved value {v.shown()} ({v.provenance()})"))
    elif offer.earlier is not None:
        v = offer.earlier
        answered.checks.append(CheckResult("last period", True, Severity.SOFT,
                                           f"last period's value: {v.shown()} ({v.provenance()}); not reused"))


def _same_value(answered: Any, v: FormValue) -> bool:
    from autofill.forms.answer import KIND_TYPES, form_unit

    dp = answered.datapoint
    approved = parse_value(v.value, KIND_TYPES.get(dp.kind, ValueType.TEXT), form_unit(dp), list(dp.allowed),
                           written_unit=v.unit)
    a, b = answered.value.value, approved.value
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))
    return str(a).strip().lower() == str(b).strip().lower()
