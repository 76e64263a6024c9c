"""The language of a text: pure functions, no I/O, nothing heavy imported.

Reports and questionnaires are not only English. `detect` names the language of a text (ISO 639-1 code)
from its script and, for Latin and Cyrillic text, from how many of each language's most common function
words it uses: for a page or a questionnaire that is decisive (a German text is a third articles,
prepositions and pronouns of German), with no model and no dependency. A text too short or too mixed to
say is "" (unknown); callers then keep the English behaviour of before.

LANGUAGES holds what the rest of the tool needs per language: its name, the Snowball stemmer PyStemmer
has for it and the bm25s stop-word list the keyword index drops (store/bm25_index.py). Detection covers
the languages with both (and recognises Greek, Arabic, Chinese, Japanese and Korean by script, searched
without stemming)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    stemmer: str = ""  # PyStemmer algorithm; "" = none
    stopwords: str = ""  # name of the bm25s.stopwords list; "" = none
    # The commonest function words (detection only: short, so no language wins by a longer list).
    markers: frozenset[str] = frozenset()


def _lang(code: str, name: str, stemmer: str, stopwords: str, markers: str) -> Language:
    return Language(code, name, stemmer, stopwords, frozenset(markers.split()))


LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (
    _lang("en", "English", "english", "STOPWORDS_EN",
          "the of and to in is that for it with as was on are be by this from or have an not which their has "
          "were its been also will our we these"),
    _lang("de", "German", "german", "STOPWORDS_GERMAN",
          "der die und den von zu das mit sich des auf für ist im dem nicht ein eine als auch werden aus hat "
          "dass nach wird bei einer um am sind noch wie einem über zum unsere wir unser durch"),
    _lang("fr", "French", "french", "STOPWORDS_FRENCH",
          "le la les des et du un une est que pour dans par sur au aux qui plus ne pas avec ce son sont nous "
          "notre cette leur été nos ses"),
    _lang("es", "Spanish", "spanish", "STOPWORDS_SPANISH",
          "el los las del y que una es por para con su al lo como más sus este esta nuestra nuestro ha han "
          "fue se nuestros"),
    _lang("it", "Italian", "italian", "STOPWORDS_ITALIAN",
          "il gli di della e che è per con non sono dei delle nel alla si anche come nostro nostra degli "
          "questo ed"),
    _lang("nl", "Dutch", "dutch", "STOPWORDS_DUTCH",
          "het een en van is dat op te voor met zijn niet aan er ook als bij door om wordt worden onze naar "
          "dan"),
    _lang("pt", "Portuguese", "portuguese", "STOPWORDS_PORTUGUESE",
          "os as do da dos das e em um uma que para com não por no na mais ao é são nosso nossa foi"),
    _lang("da", "Danish", "danish", "STOPWORDS_DANISH",
          "og i at det er en til af den på med for som har ikke et der vi fra var vores"),
    _lang("no", "Norwegian", "norwegian", "STOPWORDS_NORWEGIAN",
          "og i er det til en på av som for med at har ikke et den vi fra var vår våre"),
    _lang("sv", "Swedish", "swedish", "STOPWORDS_SWEDISH",
          "och i att det är en som på av för med till den har inte ett vi om var vår våra"),
    _lang("ru", "Russian", "russian", "STOPWORDS_RUSSIAN",
          "и в не на что с по это как из к для у о от все же мы наши также"),
    _lang("tr", "Turkish", "turkish", "STOPWORDS_TURKISH",
          "ve bir bu da de için ile olarak olan gibi daha çok her ama kadar ya sonra veya biz bizim"),
    _lang("el", "Greek", "greek", "", ""),
    _lang("ar", "Arabic", "arabic", "", ""),
    _lang("zh", "Chinese", "", "", ""),
    _lang("ja", "Japanese", "", "", ""),
    _lang("ko", "Korean", "", "", ""),
)}
ENGLISH = "en"
# Scripts that name their language on their own (checked before the function words).
_SCRIPTS = (("ja", re.compile(r"[\u3040-\u30ff]")), ("ko", re.compile(r"[\uac00-\ud7af]")),
            ("zh", re.compile(r"[\u4e00-\u9fff]")), ("el", re.compile(r"[\u0370-\u03ff]")),
            ("ar", re.compile(r"[\u0600-\u06ff]")))
_WORD = re.compile(r"[^\W\d_]+")
# At most this much of a text is read (a document's first pages say its language).
SAMPLE = 20_000
# A verdict needs this many function words, and the winner this share of all function words found.
MIN_MARKERS, MIN_SHARE = 4, 0.4


def name(code: str) -> str:
    """The language's English name ("German"); "unknown" for ""."""
    lang = LANGUAGES.get(code)
    return lang.name if lang else (code or "unknown")


def detect(text: str, min_markers: int = MIN_MARKERS) -> str:
    """The ISO 639-1 code of `text`'s language, or "" when it cannot tell (too short, mixed, another).
    `min_markers`: the function words a verdict needs (fewer for one question, as `ask` has)."""
    sample = text[:SAMPLE]
    letters = len(_WORD.findall(sample))
    for code, script in _SCRIPTS:
        if letters and len(script.findall(sample)) >= max(3, letters // 4):
            return code
    counts: Counter[str] = Counter()
    for word in _WORD.findall(sample.lower()):
        for code, lang in LANGUAGES.items():
            if word in lang.markers:
                counts[code] += 1
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


def questionnaire_language(rows: Sequence[Any]) -> str:
    """Detect the language of a questionnaire's rows (records.QuestionRow) read together and set it on
    each row (keyword search and the answer prompt use it); returns it."""
    language = detect_many(" ".join((r.question, r.form_of_answer, r.explanation)) for r in rows)
    for r in rows:
        r.language = language
    return language


def report_language(documents: Iterable[Any]) -> str:
    """The language of most of a store's pages (records.DocumentRecord: language, pages); "" unknown."""
    pages: Counter[str] = Counter()
    for doc in documents:
        if doc.language:
            pages[doc.language] += max(1, int(doc.pages or 0))
    return pages.most_common(1)[0][0] if pages else ""


def languages_clause(questionnaire: str, documents: Sequence[Any]) -> str:
    """What the run's first line says about languages: "questionnaire in German; 2 documents in English",
    or each document's language where they differ."""
    langs = {doc.language for doc in documents}
    if len(langs) <= 1:
        count = len(documents)
        docs = f"{count} document{'s' if count != 1 else ''} in {name(next(iter(langs), ''))}"
    else:
        docs = "documents: " + ", ".join(f"{doc.file_name} {name(doc.language)}" for doc in documents)
    return f"questionnaire in {name(questionnaire)}; {docs}"


def prompt_languages(questionnaire: str, report: str) -> tuple[str, str]:
    """(language of the HyDE passage, language of the answer) to name in the prompts: the report's and
    the questionnaire's, or "" for both where everything is English or unknown (prompts as before)."""
    if questionnaire in ("", ENGLISH) and report in ("", ENGLISH):
        return "", ""
    return (name(report) if report else "", name(questionnaire) if questionnaire else "")
