"""The answer's form: a drop-down answer must be one of its allowed values; "Not disclosed" should
not come with citations (if a passage is cited, something was disclosed); any other answer needs a
citation.

The words of a closed form of answer in the questionnaire's languages (issue 43): `form_values` reads
"Ja/Nein", "Oui/Non", "Sí/No", "Sì/No", "Sim/Não", "Ja/Nee" (or "Ja oder Nein") in a row's own language as
"Yes/No" is read in English (workbook/validations.form_of_answer_values), so the answer prompt lists them
and this check holds the answer to them; "not disclosed" is recognised in those languages too."""

from __future__ import annotations

import re

from autofill.languages import with_
from autofill.records import CheckResult, Severity

# Closed answer values per language (lower case, as a form of answer writes them) -> what each means, and
# the word for "or" in "Ja oder Nein": each language's module in autofill/languages/ holds its own.
FORM_WORDS: dict[str, dict[str, str]] = {code: dict(lang.form_words) for code, lang in with_("form_words").items()}
OR_WORDS = {code: lang.or_word for code, lang in with_("or_word").items()}
_NOT_DISCLOSED_WORDS = sorted({w for words in FORM_WORDS.values() for w, meaning in words.items()
                               if meaning == "not disclosed" and " " in w}, key=len, reverse=True)
_NOT_DISCLOSED = re.compile(
    r"^\W*(?:not\s+disclosed|no\s+disclosure|not\s+reported|not\s+stated|not\s+available|no\s+information|"
    r"information\s+not\s+(?:available|disclosed)|unknown|n/?a\b|"
    + "|".join(r"\s+".join(map(re.escape, w.split())) for w in _NOT_DISCLOSED_WORDS) + r")", re.IGNORECASE)
_MAX_WORDS = 3  # words in one value at most ("niet van toepassing")


def _words(language: str) -> dict[str, str]:
    """The closed values of `language` and English's; every language's for an unknown one ("")."""
    if language in FORM_WORDS:
        return {**FORM_WORDS["en"], **FORM_WORDS[language]}
    return {w: m for words in FORM_WORDS.values() for w, m in words.items()}


def _known(words: list[str], table: dict[str, str], from_end: bool) -> str:
    """The longest run of up to _MAX_WORDS of `words` (its last ones with `from_end`, else its first ones)
    that is a value of `table`, as written; "" when none is."""
    for n in range(min(_MAX_WORDS, len(words)), 0, -1):
        part = words[-n:] if from_end else words[:n]
        if " ".join(part).lower() in table:
            return " ".join(part)
    return ""


def _values(parts: list[str], table: dict[str, str]) -> list[str]:
    """The values of a list's parts (the first part's last words, the last part's first words, the others
    whole), each with a capital; [] unless every part is one and they are two or more."""
    if len(parts) < 2:
        return []
    out = []
    for i, part in enumerate(parts):
        words = re.sub(r"[^\w\s/.'-]", " ", part).split()
        if i == 0:
            words = re.split(r"[:;,(]", part)[-1].split()
            value = _known(words, table, from_end=True)
        elif i == len(parts) - 1:
            value = _known(words, table, from_end=False)
        else:
            value = " ".join(words) if " ".join(words).lower() in table else ""
        if not value:
            return []
        out.append(value[:1].upper() + value[1:])
    return out


def form_values(text: str, language: str = "") -> list[str]:
    """The closed values a form of answer names in the words of `language` (ISO 639-1, the row's; English's
    are always read; "" reads every language's): "Ja/Nein" -> ["Ja", "Nein"], "Sí / No / Parcialmente y
    breve explicación" -> ["Sí", "No", "Parcialmente"], "Oui ou Non" -> ["Oui", "Non"]; [] when it names no
    closed set. Pure."""
    t = " ".join(str(text or "").split())
    if not t:
        return []
    table = _words(language)
    protected = re.sub(r"\bn/a\b", "n\u2044a", t, flags=re.IGNORECASE)  # "N/A" is one value, not a list
    if "/" in protected:
        values = _values([p.replace("\u2044", "/") for p in protected.split("/")], table)
        if values:
            return values
    ors = {OR_WORDS[language], "or"} if language in OR_WORDS else set(OR_WORDS.values())
    head = re.split(r"[.;:(]", t, maxsplit=1)[0]  # "Oui ou Non, avec explication": a list opens the text
    pieces = re.split(r"(\s*,\s*|\s+(?:" + "|".join(map(re.escape, sorted(ors))) + r")\s+)", head, flags=re.IGNORECASE)
    parts, separators = pieces[0::2], pieces[1::2]
    if parts[0].strip().lower() in table:
        for k in range(len(parts), 1, -1):  # the longest list of values joined by an "or"
            if any("," not in sep for sep in separators[:k - 1]):
                values = _values(parts[:k], table)
                if values:
                    return values
    return []


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
