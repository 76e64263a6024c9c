"""checks/verdict.py: the model's verification reply, messy as models write it."""

from __future__ import annotations

from autofill.checks.verdict import parse_verdict
from autofill.records import Severity


def reasons(checks):
    return [(c.passed, c.severity, c.reason) for c in checks]


def test_all_supported_in_a_fence_with_prose():
    text = 'Sure!\n```json\n{"claims": [{"claim": "46% renewable", "verdict": "supported"},\n' \
           '{"claim": "in FY2024", "verdict": "Supported."},]}\n```\nDone.'
    assert reasons(parse_verdict(text)) == [(True, Severity.HARD, "model check: 2 claims supported")]


def test_unsupported_and_partial_claims_with_booleans_and_words():
    text = "{'claims': [{'claim': 'Scope 1 was 987,654 t', 'supported': False}, " \
           "{'Claim': 'since 2020', 'Verdict': 'partially'}, {'claim': 'board oversees', 'supported': True}]}"
    assert reasons(parse_verdict(text)) == [
        (False, Severity.HARD, "model check: not supported: Scope 1 was 987,654 t"),
        (False, Severity.SOFT, "model check: partly supported: since 2020")]


def test_a_bare_list_and_unreadable_replies():
    assert parse_verdict('[{"claim": "x", "verdict": "not supported"}]')[0].reason == "model check: not supported: x"
    for text in ("I think it is fine.", '{"claims": [{"claim": "x", "verdict": "maybe later"}]}', ""):
        (c,) = parse_verdict(text)
        assert (c.passed, c.severity) == (False, Severity.SOFT) and "could not be read" in c.reason
    assert parse_verdict('{"claims": []}')[0].passed
