"""Finding the header row and what each column is for, in whatever layout a customer sends.

Pure functions over cell values: a header row is the row (within the first 30) whose short text cells
name the most distinct roles, and it must name a question column."""

from __future__ import annotations

import re

from autofill.languages import REGISTRY

HEADER_SCAN_ROWS = 30
MAX_HEADER_CHARS = 80

# Roles of the customer's columns, most specific first: "Question no." is a number column, not a
# question column; "Reviewer comment" is ours, not the customer's "Comments". Each role's names in every
# language autofill knows (issue 33: questionnaires in other languages): each language's module in
# autofill/languages/ holds its own (`headers`).
ROLE_ORDER = ("number", "section", "form_of_answer", "explanation", "hyde_hint", "question", "answer", "comments")
CUSTOMER_ROLES: list[tuple[str, set[str]]] = [
    (role, {name for lang in REGISTRY.values() for name in lang.headers.get(role, ())}) for role in ROLE_ORDER]

# The columns autofill adds, in the order they are added after the Answer column.
ADDED_ROLES: list[tuple[str, str]] = [
    ("reasoning", "Reasoning"),
    ("sources", "Sources"),
    ("confidence", "Confidence"),
    ("status", "Status"),
    ("review", "Review"),
    ("reviewer_comment", "Reviewer comment"),
    ("tier", "Tier"),  # trust tier from the checks (autofill/checks): Ready / Check / Needs work
    ("checks", "Checks"),  # the failed checks in words
    ("library_answer", "Library answer"),  # the answer library's approved answer (autofill/library)
    ("datapoints", "Framework datapoints"),  # what the row asks for in ESRS, IFRS S2, GRI ... (autofill/frameworks)
]
ADDED_HEADERS = {role: header for role, header in ADDED_ROLES}
# An added column whose header the customer's header row already uses gets this tag (layout.py), so
# no header is there twice: the customer's own "Status" stays theirs, ours reads "Status (autofill)".
OURS_TAG = " (autofill)"
_ADDED_NAMES = {header.lower(): role for role, header in ADDED_ROLES}
_ADDED_NAMES.update({f"{header.lower()}{OURS_TAG}": role for role, header in ADDED_ROLES})
_ADDED_NAMES.update({"reviewer comments": "reviewer_comment", "review comment": "reviewer_comment"})
# A reviewer's columns mean the same to the customer as to autofill: a customer's own Review or
# Reviewer comment column is used as ours (read, and written by the review app), never doubled.
REVIEWER_ROLES = ("review", "reviewer_comment")

ROLE_LABELS = {
    "number": "No.", "section": "Section", "question": "Question", "form_of_answer": "Form of answer",
    "explanation": "Explanation", "hyde_hint": "HyDE hint", "answer": "Answer", "comments": "Comments",
    **ADDED_HEADERS,
}

_QUESTION_WORD = re.compile(r"\bquestions?\b", re.I)


def normalise(text: str) -> str:
    text = re.sub(r"\s+", " ", str(text)).strip().lower()
    return text.rstrip(":*").strip()


def customer_role(text: str) -> str:
    """The role a header cell names, or "" when it names none."""
    t = normalise(text)
    if not t or len(t) > MAX_HEADER_CHARS:
        return ""
    # "Answer (select from list)" -> "answer"
    candidates = [t]
    stripped = re.sub(r"\s*[\(\[].*?[\)\]]\s*", " ", t).strip()
    if stripped and stripped != t:
        candidates.append(stripped)
    for cand in candidates:
        for role, names in CUSTOMER_ROLES:
            if cand in names:
                return role
    if _QUESTION_WORD.search(t) and not re.search(r"\b(no|nr|number|id|ref|#)\b", t):
        return "question"
    return ""


def added_role(text: str) -> str:
    return _ADDED_NAMES.get(normalise(text), "")


def header_roles(cells: list[tuple[int, object]]) -> dict[str, tuple[int, str]]:
    """Map roles to (column index, header text) for one candidate header row.

    `cells` are (1-based column, value) pairs. The first column naming a role wins. Our own added
    columns count only when most of them are present (a previous autofill output), so a customer's
    lone "Status" column is never mistaken for ours and overwritten; a customer's Review and Reviewer
    comment columns are the reviewer's either way (REVIEWER_ROLES)."""
    roles: dict[str, tuple[int, str]] = {}
    ours: dict[str, tuple[int, str]] = {}
    for col, value in cells:
        if not isinstance(value, str) or not value.strip():
            continue
        text = value.strip()
        role = added_role(text)
        if role:
            # Last one wins: ours sit right of the customer's columns, which may reuse a name ("Status").
            ours[role] = (col, text)
            continue
        role = customer_role(text)
        if role and role not in roles:
            roles[role] = (col, text)
    if len(ours) >= 3:
        roles.update(ours)
    else:
        # Not ours: they are ordinary customer columns (maybe "Comments"-like); keep them visible.
        for role, (col, text) in ours.items():
            if role in REVIEWER_ROLES:
                roles.setdefault(role, (col, text))
                continue
            alt = customer_role(text)
            if alt and alt not in roles:
                roles[alt] = (col, text)
    return roles


def score_header(roles: dict[str, tuple[int, str]]) -> int:
    """How header-like a row is: distinct roles named, zero without a question column."""
    if "question" not in roles:
        return 0
    return len(roles)


def find_header_row(rows: list[tuple[int, list[tuple[int, object]]]]) -> tuple[int, dict[str, tuple[int, str]]]:
    """Pick the header row among `rows` ((row number, cells) pairs, first 30 rows).

    Returns (0, {}) when no row names a question column. A lone "Question" header counts only when
    it is written exactly so, since titles such as "Questionnaire" must not pass."""
    best_row, best_roles, best_score = 0, {}, 0
    for row_number, cells in rows:
        roles = header_roles(cells)
        score = score_header(roles)
        if score == 1 and normalise(roles["question"][1]) not in ("question", "questions"):
            continue
        if score > best_score:
            best_row, best_roles, best_score = row_number, roles, score
    return best_row, best_roles
