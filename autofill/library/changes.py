"""Material change between a new answer and the approved library answer it was given: another
verdict (Yes vs No, Partially, Not disclosed) or other figures, compared with their units by
`autofill/checks/numbers.py` (the parser eval and the trust checks use): "16.2 Mt" equals
"16,200,000 tonnes". Rewording is not a change. Pure functions."""

from __future__ import annotations

import re

from autofill.checks.numbers import extract_quantities, quantities_match

# Verdict words an answer may lead with, longest first ("Not disclosed" before "No").
_VERDICTS = [
    ("not disclosed", "not disclosed"), ("not applicable", "not applicable"), ("n/a", "not applicable"),
    ("partially", "partially"), ("partly", "partially"), ("partial", "partially"),
    ("yes", "yes"), ("no", "no"), ("true", "yes"), ("false", "no"),
]
FIGURE_TOLERANCE = 0.005  # relative: rounding in the last shown digit is not a change


def verdict(text: str, allowed: list[str] | None = None) -> str:
    """The verdict an answer leads with ("yes", "no", "partially", "not disclosed", an allowed value
    in lower case), or "" for a free-text answer."""
    low = " ".join(str(text or "").split()).lower()
    for value in sorted(allowed or [], key=len, reverse=True):
        v = value.lower().strip()
        if v and low.startswith(v) and (len(low) == len(v) or not low[len(v)].isalnum()):
            return v
    for word, label in _VERDICTS:
        if low.startswith(word) and (len(low) == len(word) or not low[len(word)].isalnum()):
            return label
    return ""


def _figures_differ(new: str, approved: str) -> list[str]:
    """Figures of one dimension (percent, mass, money ...) stated on both sides that do not match."""
    new_q, old_q = extract_quantities(new), extract_quantities(approved)
    out = []
    for dim in sorted({q.dim for q in new_q} & {q.dim for q in old_q}):
        a = [q for q in new_q if q.dim == dim]
        b = [q for q in old_q if q.dim == dim]
        unmatched_new = [q for q in a if not any(quantities_match(q, g, FIGURE_TOLERANCE) for g in b)]
        unmatched_old = [g for g in b if not any(quantities_match(q, g, FIGURE_TOLERANCE) for q in a)]
        if unmatched_new or unmatched_old:
            shown_new = ", ".join(q.text for q in unmatched_new) or "-"
            shown_old = ", ".join(g.text for g in unmatched_old) or "-"
            out.append(f"{shown_old} -> {shown_new}")
    return out


def material_change(new: str, approved: str, allowed: list[str] | None = None) -> str:
    """Why `new` differs materially from `approved` ("" when it does not): another verdict, or other
    figures of a kind both state."""
    if not str(new or "").strip() or not str(approved or "").strip():
        return ""
    v_new, v_old = verdict(new, allowed), verdict(approved, allowed)
    if v_new and v_old and v_new != v_old:
        return f"verdict {v_old!r} -> {v_new!r}"
    if bool(v_new) != bool(v_old) and "not disclosed" in (v_new, v_old):
        return f"verdict {v_old or 'an answer'!r} -> {v_new or 'an answer'!r}"
    figures = _figures_differ(new, approved)
    if figures:
        return "figures " + "; ".join(figures)
    return ""


# "p. 26", "pp. 4-5", and the printed page a citation may add: "p. 26 (printed 24)".
_PAGE_REF = re.compile(r"\s+pp?\.\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*\(printed [^)]*\))?\s*$", re.IGNORECASE)


def cited_files(sources: str) -> list[str]:
    """File names in a Sources cell ("A.pdf p. 3; B.pdf pp. 4-5" -> ["A.pdf", "B.pdf"])."""
    out: list[str] = []
    for part in re.split(r"[;\n]", str(sources or "")):
        name = _PAGE_REF.sub("", part.strip()).strip()
        if name and name not in out:
            out.append(name)
    return out


def cited_pages(sources: str) -> list[tuple[str, int]]:
    """(file, page) pairs of a Sources cell, for citations of a reused answer."""
    out = []
    for part in re.split(r"[;\n]", str(sources or "")):
        m = re.match(r"^(.*?)\s+pp?\.\s*(\d+)", part.strip(), re.IGNORECASE)
        if m and (m.group(1), int(m.group(2))) not in out:
            out.append((m.group(1).strip(), int(m.group(2))))
    return out
