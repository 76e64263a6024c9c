"""The answer's form: a drop-down answer must be one of its allowed values; "Not disclosed" should
not come with citations (if a passage is cited, something was disclosed); any other answer needs a
citation."""

from __future__ import annotations

import re

from autofill.records import CheckResult, Severity

_NOT_DISCLOSED = re.compile(
    r"^\W*(?:not\s+disclosed|no\s+disclosure|not\s+reported|not\s+stated|not\s+available|no\s+information|"
    r"information\s+not\s+(?:available|disclosed)|unknown|n/?a\b)", re.IGNORECASE)


def is_not_disclosed(answer: str) -> bool:
    return bool(_NOT_DISCLOSED.match(str(answer or "")))


def allowed_value(answer: str, allowed: list[str]) -> str | None:
    """The allowed value an answer states: exact, or leading ("Yes. ..."); longest values first so
    "Not disclosed" is never read as "No"."""
    low = str(answer or "").strip().lower()
    for value in sorted(allowed, key=len, reverse=True):
        v = value.strip().lower()
        if v and low.startswith(v) and (len(low) == len(v) or not low[len(v)].isalnum()):
            return value
    return None


def check_form(answer: str, citations: int, allowed: list[str] | None = None,
               allowed_source: str = "") -> list[CheckResult]:
    text = str(answer or "").strip()
    if not text:
        return [CheckResult("form", False, Severity.HARD, "no answer")]
    out: list[CheckResult] = []
    if allowed:
        value = allowed_value(text, allowed)
        if value is None:
            hard = allowed_source == "dropdown"
            out.append(CheckResult("form", False, Severity.HARD if hard else Severity.SOFT,
                                   f"answer is not one of {', '.join(allowed)}"))
    if is_not_disclosed(text):
        if citations:
            out.append(CheckResult("form", False, Severity.SOFT,
                                   f"'Not disclosed' but cites {citations} page{'s' if citations > 1 else ''}"))
    elif not citations:
        out.append(CheckResult("form", False, Severity.HARD, "no citation"))
    return out or [CheckResult("form", True, Severity.HARD, "answer form and citations in order")]
