"""Scope and basis consistency: an answer naming a GHG scope (1, 2, 3), an accounting basis
(market- or location-based), gross or net, absolute or intensity, that none of its cited passages
mentions. A correct figure with the wrong scope is the error a reviewer most easily misses."""

from __future__ import annotations

import re
from typing import Sequence

from autofill.records import CheckResult, Passage, Severity

# "Scope 1", "Scopes 1 and 2", "Scope 1+2", "Scope 1, 2 and 3", "Scope 1-3", "Scope 1 & Scope 2"
_SCOPES = re.compile(r"\bscopes?\s*([123](?:\s*(?:\+|and|&|,|/|-|–|or)\s*(?:scope\s*)?[123])*)(?!\d)", re.IGNORECASE)
_TERMS = {
    "market-based": re.compile(r"\bmarket[\s-]?based\b", re.IGNORECASE),
    "location-based": re.compile(r"\blocation[\s-]?based\b", re.IGNORECASE),
    "gross": re.compile(r"\bgross\b", re.IGNORECASE),
    # "net" as a basis, not "net zero" / "net-zero" / "net of"
    "net": re.compile(r"\bnet\b(?![\s-]*(?:zero|0\b|of\b|positive|negative))", re.IGNORECASE),
    "absolute": re.compile(r"\babsolute\b", re.IGNORECASE),
    "intensity": re.compile(r"\bintensit(?:y|ies)\b", re.IGNORECASE),
}


def scopes_in(text: str) -> set[int]:
    """Scope numbers a text names; "Scope 1-3" names all three."""
    found: set[int] = set()
    for m in _SCOPES.finditer(str(text or "")):
        digits = [int(d) for d in re.findall(r"[123]", m.group(1))]
        if re.search(r"[-–]", m.group(1)) and len(digits) == 2:
            digits = list(range(digits[0], digits[1] + 1))
        found.update(digits)
    return found


def terms_in(text: str) -> set[str]:
    return {name for name, pattern in _TERMS.items() if pattern.search(str(text or ""))}


def check_scope(answer: str, cited: Sequence[Passage]) -> list[CheckResult]:
    """One failed check per scope or basis the answer names and no cited passage mentions."""
    named_scopes, named_terms = scopes_in(answer), terms_in(answer)
    if not named_scopes and not named_terms:
        return []
    evidence = "\n".join(p.text for p in cited)
    have_scopes, have_terms = scopes_in(evidence), terms_in(evidence)
    failed = [CheckResult("scope", False, Severity.HARD, f"Scope {n} not in cited passages")
              for n in sorted(named_scopes - have_scopes)]
    failed += [CheckResult("scope", False, Severity.HARD, f"{t} not in cited passages")
               for t in sorted(named_terms - have_terms)]
    if failed:
        return failed
    named = [f"Scope {n}" for n in sorted(named_scopes)] + sorted(named_terms)
    return [CheckResult("scope", True, Severity.HARD, f"{', '.join(named)} in the cited passages")]
