"""The language of a text: pure functions, no I/O, nothing heavy imported.

Reports and questionnaires are not only English. `detect` names the language of a text (ISO 639-1 code)
from its script and, for Latin and Cyrillic text, from how many of each language's most common function
words it uses: for a page or a questionnaire that is decisive (a German text is a third articles,
prepositions and pronouns of German), with no model and no dependency. A text too short or too mixed to
say is "" (unknown); callers then keep the English behaviour of before.

LANGUAGES (autofill/languages/, one module per language) holds what the rest of the tool needs per language:
its name, the Snowball stemmer PyStemmer has for it and the bm25s stop-word list the keyword index drops
(store/bm25_index.py), its function words and script. Detection covers the languages with both (and
recognises Greek, Arabic, Chinese, Japanese and Korean by script, searched without stemming)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from autofill.languages import REGISTRY, Language

# Each language's data (name, stemmer, stop words, function words, script) is its module in
# autofill/languages/ (issue 44: adding a language is one file); detection here reads the registry.
LANGUAGES: dict[str, Language] = REGISTRY
ENGLISH = "en"
# Scripts that name their language on their own (checked before the function words).
_SCRIPTS = tuple((lang.code, re.compile(lang.script))
                 for lang in sorted((x for x in REGISTRY.values() if x.script), key=lambda x: x.script_rank))
_WORD = re.compile(r"[^\W\d_]+")
# At most this much of a text is read (a document's first pages say its language).
SAMPLE = 20_000
# A verdict needs this many function words, and the winner this share of all function words found.
MIN_MARKERS, MIN_SHARE = 4, 0.4


def name(code: str) -> str:
    """The language's English name ("German"); "unknown" for ""."""
    lang = LANGUAGES.get(code)
    return lang.name if lang else (code or "unknown")


def markers(text: str) -> Counter[str]:
    """How many of each language's function words `text` (its first SAMPLE characters) uses."""
    counts: Counter[str] = Counter()
    for word in _WORD.findall(text[:SAMPLE].lower()):
        for code, lang in LANGUAGES.items():
            if word in lang.markers:
                counts[code] += 1
    return counts


def detect(text: str, min_markers: int = MIN_MARKERS) -> str:
    """The ISO 639-1 code of `text`'s language, or "" when it cannot tell (too short, mixed, another).
    `min_markers`: the function words a verdict needs (fewer for one question, as `ask` has)."""
    sample = text[:SAMPLE]
    letters = len(_WORD.findall(sample))
    for code, script in _SCRIPTS:
        if letters and len(script.findall(sample)) >= max(3, letters // 4):
            return code
    counts = markers(sample)
    if not counts:
        return ""
    (best, hits), = counts.most_common(1)
    total = sum(counts.values())
    return best if hits >= min_markers and hits >= MIN_SHARE * total else ""


def detect_many(texts: Iterable[str]) -> str:
    """The language of texts read together (a questionnaire's questions, a document's pages)."""
    parts: list[str] = []
    size = 0
    for text in texts:
        if size >= SAMPLE:
            break
        parts.append(text)
        size += len(text) + 1
    return detect("\n".join(parts))


def languages_label(codes: Iterable[str]) -> str:
    """"English, German" for the distinct codes, in first-seen order ("unknown" for "")."""
    seen: list[str] = []
    for code in codes:
        if code not in seen:
            seen.append(code)
    return ", ".join(name(c) for c in seen) if seen else "unknown"


def document_language(doc: Any) -> str:
    """The language of a parsed document (records.ParsedDocument): up to 1,000 characters of each page,
    so a cover, a contents page or an English glossary does not decide alone."""
    return detect_many(" ".join(b.text for b in page.blocks)[:1000] for page in doc.pages)


# A row's own language, read from its own words (question, form of answer, explanation), needs this many
# function words; a questionnaire is read row by row only when at least two of its languages each have
# ROW_LANGUAGE_MIN_ROWS such rows (issue 43). Measured on the 270 rows of the BHP questionnaire, its nine
# translations (benchmarks/devsets) and the FinanceBench questionnaires: 249 rows read as their
# questionnaire's language, 20 too short to tell, 1 wrong (a Spanish row read as Turkish, one row alone):
# one-language questionnaires keep one language for every row, as before.
ROW_MIN_MARKERS = 2
ROW_LANGUAGE_MIN_ROWS = 2


def row_text(row: Any) -> str:
    return " ".join((row.question, row.form_of_answer, row.explanation))


def row_languages(own: Sequence[str], whole: str, counts: Sequence[Mapping[str, int]] = ()) -> list[str]:
    """Each row's language from each row's own detection (`own`, "" where it cannot tell), its function
    words (`counts`, `markers` of each row) and the whole questionnaire's language (`whole`): `whole` for
    every row of a one-language questionnaire; in a questionnaire where two or more languages each have
    ROW_LANGUAGE_MIN_ROWS rows, each row's own language where it is one of those, else the one of those
    whose function words it uses most (a tie: none), else the nearest row's before it (a sheet keeps its
    languages together), else after it, else `whole`. Pure."""
    found = Counter(code for code in own if code)
    languages = {code for code, n in found.items() if n >= ROW_LANGUAGE_MIN_ROWS}
    if len(languages) < 2:
        return [whole for _ in own]
    known = []
    for i, code in enumerate(own):
        if code not in languages and i < len(counts):
            hits = sorted(((n, c) for c, n in counts[i].items() if c in languages and n), reverse=True)
            code = hits[0][1] if hits and (len(hits) == 1 or hits[0][0] > hits[1][0]) else ""
        known.append(code if code in languages else "")
    out: list[str] = []
    for i, code in enumerate(known):
        before = next((c for c in reversed(known[:i]) if c), "")
        after = next((c for c in known[i + 1:] if c), "")
        out.append(code or before or after or whole)
    return out


def questionnaire_language(rows: Sequence[Any]) -> str:
    """Detect the language of a questionnaire's rows (records.QuestionRow) and set it on each row (keyword
    search, translation, centring and the answer prompt use it): the rows read together, or, where the
    rows are in several languages, each row's own (`row_languages`). Returns the rows read together ("" for
    a questionnaire of several languages none of which has most of its words: `questionnaire_languages`
    names them). The questions are read first, the whole rows where they cannot tell: a form of answer or
    an explanation in another language (English guidance beside French questions) does not outvote them."""
    texts = [row_text(r) for r in rows]
    language = detect_many(str(r.question or "") for r in rows) or detect_many(texts)
    own = [detect(text, ROW_MIN_MARKERS) for text in texts]
    counts = [markers(text) for text in texts] if len(set(own) - {""}) > 1 else []
    for r, code in zip(rows, row_languages(own, language, counts)):
        r.language = code
    return language


def questionnaire_languages(rows: Sequence[Any]) -> tuple[str, ...]:
    """The distinct languages of a questionnaire's rows (as `questionnaire_language` set them), in row
    order; ("",) for a questionnaire whose language is unknown, () for no rows."""
    return tuple(dict.fromkeys(getattr(r, "language", "") for r in rows))


def report_language(documents: Iterable[Any]) -> str:
    """The language of most of a store's pages (records.DocumentRecord: language, pages); "" unknown."""
    pages: Counter[str] = Counter()
    for doc in documents:
        if doc.language:
            pages[doc.language] += max(1, int(doc.pages or 0))
    return pages.most_common(1)[0][0] if pages else ""


def languages_clause(questionnaire: str | Sequence[str], documents: Sequence[Any]) -> str:
    """What the run's first line says about languages: "questionnaire in German; 2 documents in English",
    each document's language where they differ, and each of the questionnaire's languages where its rows
    are in several ("questionnaire in English, Spanish, Italian": `questionnaire` a sequence of codes)."""
    if not isinstance(questionnaire, str):
        known = [code for code in questionnaire if code]
        label = languages_label(known) if known else name("")
    else:
        label = name(questionnaire)
    langs = {doc.language for doc in documents}
    if len(langs) <= 1:
        count = len(documents)
        docs = f"{count} document{'s' if count != 1 else ''} in {name(next(iter(langs), ''))}"
    else:
        docs = "documents: " + ", ".join(f"{doc.file_name} {name(doc.language)}" for doc in documents)
    return f"questionnaire in {label}; {docs}"


def prompt_languages(questionnaire: str, report: str) -> tuple[str, str]:
    """(language of the HyDE passage, language of the answer) to name in the prompts: the report's and
    the questionnaire's, or "" for both where everything is English or unknown (prompts as before)."""
    if questionnaire in ("", ENGLISH) and report in ("", ENGLISH):
        return "", ""
    return (name(report) if report else "", name(questionnaire) if questionnaire else "")
