"""The row's tier from its checks and the other signals a reviewer weighs: how the row ended
(answered, an evidence-only draft, unparsed, failed), citation validity, the model's own confidence,
retrieval evidence and the reviewer's earlier verdict.

  Ready       every check passed and no soft signal
  Check       soft signals only (low or medium confidence, a dropped citation, a year before the
              reporting year, an older report cited, re-answered after review, 'Not disclosed' with
              citations)
  Needs work  a failed hard check (a figure, year or scope not in the cited passages, no citation,
              not an allowed value), unparsed, failed, no evidence, or an evidence-only draft"""

from __future__ import annotations

from typing import Iterable, Sequence

from autofill.records import CheckResult, Severity
from autofill.states import Outcome, ReviewState, Tier

_OUTCOME_REASONS = {
    Outcome.DRAFTED: "evidence-only draft: no model answered",
    Outcome.UNPARSED: "the model's reply could not be read",
    Outcome.FAILED: "the row failed",
}


def signal_checks(outcome: Outcome, confidence: str = "", dropped_citations: Sequence[str] = (),
                  passages: int = 1, review: ReviewState = ReviewState.NONE, error: str = "") -> list[CheckResult]:
    """CheckResults for the signals that are not checks of the answer's text."""
    out: list[CheckResult] = []
    if outcome in _OUTCOME_REASONS:
        reason = _OUTCOME_REASONS[outcome] + (f" ({error})" if error else "")
        out.append(CheckResult("outcome", False, Severity.HARD, reason))
    if outcome in (Outcome.ANSWERED, Outcome.DRAFTED) and passages == 0:
        out.append(CheckResult("evidence", False, Severity.HARD, "no evidence retrieved"))
    out += [CheckResult("citations", False, Severity.SOFT, d) for d in dropped_citations]
    c = (confidence or "").strip().lower()
    if outcome is Outcome.ANSWERED and c in ("low", "medium"):
        out.append(CheckResult("confidence", False, Severity.SOFT, f"model confidence {c}"))
    if review.reanswer:
        out.append(CheckResult("review", False, Severity.SOFT, f"re-answered after review ({review.label})"))
    return out


def decide_tier(checks: Iterable[CheckResult]) -> Tier:
    checks = list(checks)
    if any(not c.passed and c.severity is Severity.HARD for c in checks):
        return Tier.NEEDS_WORK
    if any(not c.passed for c in checks):
        return Tier.CHECK
    return Tier.READY


def failed_text(checks: Iterable[CheckResult]) -> str:
    """The Checks cell: failed checks in words, hard ones first; "" when all passed."""
    failed = [c for c in checks if not c.passed]
    failed.sort(key=lambda c: c.severity is not Severity.HARD)
    return "; ".join(dict.fromkeys(c.reason for c in failed))


def tier_counts(tiers: Iterable[Tier | None]) -> dict[str, int]:
    counts = {t.key: 0 for t in Tier}
    for t in tiers:
        if t is not None:
            counts[t.key] += 1
    return counts
