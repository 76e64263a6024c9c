"""checks/form.py: allowed values, 'Not disclosed' with citations, answers without citations."""

from __future__ import annotations

from autofill.checks.form import allowed_value, check_form
from autofill.records import Severity


def failed(checks):
    return [(c.reason, c.severity) for c in checks if not c.passed]


def test_allowed_values():
    assert allowed_value("Not disclosed.", ["No", "Not disclosed"]) == "Not disclosed"
    assert allowed_value("yes - since 2020", ["Yes", "No"]) == "Yes"
    assert allowed_value("Maybe", ["Yes", "No"]) is None


def test_form_checks():
    assert failed(check_form("Yes. Since 2020.", 1, ["Yes", "No"], "dropdown")) == []
    assert failed(check_form("Partially", 1, ["Yes", "No"], "dropdown")) == [("answer is not one of Yes, No", Severity.HARD)]
    assert failed(check_form("Partially", 1, ["Yes", "No"], "form of answer")) == [("answer is not one of Yes, No", Severity.SOFT)]
    assert failed(check_form("Not disclosed", 2)) == [("'Not disclosed' but cites 2 pages", Severity.SOFT)]
    assert failed(check_form("Not disclosed", 0)) == []
    assert failed(check_form("46% renewable", 0)) == [("no citation", Severity.HARD)]
    assert failed(check_form("", 0)) == [("no answer", Severity.HARD)]
