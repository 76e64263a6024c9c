"""Reading the model's verification of an answer (verify.llm): the reply lists the answer's claims,
each supported, partly supported or not supported by the cited passages. Pure and lenient: code
fences, prose around the JSON, trailing commas, booleans or words as verdicts."""

from __future__ import annotations

from typing import Any

from autofill.records import CheckResult, Severity
from autofill.replies import json_values

_SUPPORTED = {"true", "yes", "supported", "fully supported", "y", "1", "correct"}
_PARTIAL = {"partial", "partially", "partly", "partially supported", "partly supported", "unclear", "mixed"}
_UNSUPPORTED = {"false", "no", "unsupported", "not supported", "contradicted", "n", "0", "incorrect",
                "not in passages", "absent"}
MAX_CLAIM_CHARS = 120


def _verdict(claim: dict) -> str | None:
    for key in ("verdict", "supported", "status", "label", "support"):
        if key in claim:
            value = claim[key]
            if isinstance(value, bool):
                return "supported" if value else "unsupported"
            word = " ".join(str(value).replace("_", " ").replace("-", " ").lower().split()).strip(".! ")
            if word in _SUPPORTED:
                return "supported"
            if word in _PARTIAL:
                return "partial"
            if word in _UNSUPPORTED:
                return "unsupported"
    return None


def _claims(text: str) -> list[dict] | None:
    # Python-style single quotes are tried last: an apostrophe inside a claim would break them.
    for value in json_values(text) + json_values(str(text or "").replace("'", '"')):
        items: Any = None
        if isinstance(value, dict):
            lowered = {str(k).lower(): v for k, v in value.items()}
            items = lowered.get("claims")
        elif isinstance(value, list):
            items = value
        if isinstance(items, list) and all(isinstance(c, dict) for c in items):
            return [{str(k).lower(): v for k, v in c.items()} for c in items]
    return None


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_CLAIM_CHARS else text[:MAX_CLAIM_CHARS - 3] + "..."


def parse_verdict(text: str) -> list[CheckResult]:
    """CheckResults named "verify": a hard failure per unsupported claim, a soft one per partly
    supported claim, one pass when all are supported; a soft failure when the reply cannot be read."""
    claims = _claims(text)
    if claims is None:
        return [CheckResult("verify", False, Severity.SOFT, "model verification reply could not be read")]
    out: list[CheckResult] = []
    judged = 0
    for c in claims:
        verdict = _verdict(c)
        claim = _short(c.get("claim") or c.get("text") or c.get("statement") or "")
        if verdict is None or not claim:
            continue
        judged += 1
        if verdict == "unsupported":
            out.append(CheckResult("verify", False, Severity.HARD, f"model check: not supported: {claim}"))
        elif verdict == "partial":
            out.append(CheckResult("verify", False, Severity.SOFT, f"model check: partly supported: {claim}"))
    if out:
        return out
    if claims and not judged:
        return [CheckResult("verify", False, Severity.SOFT, "model verification reply could not be read")]
    return [CheckResult("verify", True, Severity.HARD,
                        f"model check: {judged} claim{'s' if judged != 1 else ''} supported")]
