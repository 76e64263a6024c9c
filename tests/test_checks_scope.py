"""checks/scope.py: scopes and bases named by the answer must be in its cited passages."""

from __future__ import annotations

from autofill.checks.scope import check_scope, scopes_in, terms_in
from autofill.records import Passage


def p(text):
    return Passage(chunk_id="c", file_name="R.pdf", page_start=1, page_end=1, section="", text=text)


def failed(checks):
    return [c.reason for c in checks if not c.passed]


def test_scope_spellings():
    assert scopes_in("Scope 1 and Scope 2") == {1, 2}
    assert scopes_in("Scopes 1, 2 and 3") == {1, 2, 3}
    assert scopes_in("Scope 1+2") == {1, 2}
    assert scopes_in("Scope 1-3") == {1, 2, 3}
    assert terms_in("market based and location-based, gross, net emissions, absolute, intensity") == \
        {"market-based", "location-based", "gross", "net", "absolute", "intensity"}
    assert terms_in("net zero by 2050, net-zero") == set()


def test_a_scope_or_basis_the_cited_passages_do_not_mention_is_flagged():
    cited = [p("Operational emissions (Scope 1 and Scope 2, market-based) were 9.5 Mt.")]
    assert failed(check_scope("Scope 1 and 2 emissions, market-based: 9.5 Mt", cited)) == []
    assert failed(check_scope("Scope 3 emissions were 9.5 Mt", cited)) == ["Scope 3 not in cited passages"]
    assert failed(check_scope("location-based Scope 2: 9.5 Mt", cited)) == ["location-based not in cited passages"]
    assert failed(check_scope("an intensity of 9.5", cited)) == ["intensity not in cited passages"]
    assert check_scope("Yes, net zero by 2050", cited) == []
