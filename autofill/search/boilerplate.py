"""Pages that answer nothing (issue 47): covers and inside covers, contents pages, "about this report",
disclaimers and forward-looking statements, glossaries, content indexes used as such, and pages repeated
across a company's reports. They mention every topic and state no fact about any, so a search ranks them
high for many rows; a reviewer never wants them cited unless the question asks about them.

Recognised from the document itself, never from one report's wording: each page gets a score in [0, 1]
summed from signals, each with its reason, and a page scoring `THRESHOLD` or more is boilerplate of the
kinds its signals name:

- navigation: the share of the page's lines that are page references (a title then a page number, dotted
  leaders) under a "Contents" heading, or rows of a framework index (GRI/TCFD/SASB) that name pages;
- legal and report-description phrases per page: "forward-looking statements", "undue reliance",
  "registered office", "prepared in accordance with", "integrated into other parts of", "this report covers";
- a glossary's heading and its definition lines;
- position: the first two and the last page of a document, and nearly empty pages there;
- breadth without facts: a page naming many sustainability topics with hardly a figure;
- repetition: most of a page's word sequences printed on a page of another of the company's reports
  (weak alone: a table both reports print is still an answer).

`rank_last` is the hook between a row's search and its rerank (answer/row.py, through
search/boilerplate_pages.py, which computes the scores once per company and keeps them). A row that asks
about a kind (basis of preparation, assurance, forward-looking statements, a glossary term, the content
index) keeps that kind's pages where the search put them. Pure functions."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Sequence
from autofill.frameworks.content_index import page_refs

THRESHOLD = 0.5


class Kind(Enum):
    COVER = "cover"
    CONTENTS = "contents"
    ABOUT = "about this report"
    DISCLAIMER = "disclaimer"
    GLOSSARY = "glossary"
    INDEX = "content index"
    REPEATED = "repeated page"


@dataclass(frozen=True)
class PageText:
    file_name: str
    page: int  # 1-based PDF page
    text: str
    pages_in_file: int = 0  # the document's page count (0: unknown)


@dataclass(frozen=True)
class PageScore:
    file_name: str
    page: int
    score: float
    kinds: tuple[Kind, ...] = ()
    reasons: tuple[str, ...] = ()

    @property
    def boilerplate(self) -> bool:
        return self.score >= THRESHOLD

    def reason(self) -> str:
        return "; ".join(self.reasons)


@dataclass
class _Signals:
    score: float = 0.0
    kinds: list[Kind] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def add(self, weight: float, kind: Kind | None, reason: str) -> None:
        self.score += weight
        if kind is not None and kind not in self.kinds:
            self.kinds.append(kind)
        self.reasons.append(reason)


_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*", re.UNICODE)
_FIGURE = re.compile(r"(?<![\w.])\d[\d,.]*\s*(?:%|per cent|percent|mt|kt|t\b|gj|mwh|gwh|tj|m3|ml|us\$|\$|€|£)?",
                     re.IGNORECASE)
_PAGE_REF_LINE = re.compile(r"^(?=.*[^\W\d_]).{2,}?(?:\.{3,}|…+|\s|\t)\s*(?:p\.?\s*)?\d{1,3}(?:\s*[-–]\s*\d{1,3})?$",
                            re.IGNORECASE)
_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}")
_BARE_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")
_CONTENTS_HEAD = re.compile(r"^\W*(?:table of contents|contents|in this report|inside this report|what'?s inside)\b",
                            re.IGNORECASE | re.MULTILINE)
_INDEX_HEAD = re.compile(r"\b(?:content index|gri index|esrs index|tcfd index|sasb index|index of disclosures|"
                         r"disclosure index|cross[- ]reference (?:index|table)|tcfd (?:content )?index)\b", re.IGNORECASE)
_ABOUT_HEAD = re.compile(r"^\W*(?:about (?:this|the) report|basis of (?:preparation|reporting)|reporting (?:approach|scope|"
                         r"boundary|basis)|scope of (?:this|the) report|important (?:notice|information)|disclaimer|"
                         r"forward[- ]looking statements?|cautionary (?:statement|note))\b", re.IGNORECASE | re.MULTILINE)
_GLOSSARY_HEAD = re.compile(r"^\W*(?:glossary|abbreviations|acronyms|definitions|list of abbreviations|"
                            r"glossary of terms|terms and abbreviations)\b", re.IGNORECASE | re.MULTILINE)
_DEFINITION_LINE = re.compile(r"^[A-Z][A-Za-z0-9&/()\-’' .°]{0,40}?\s*(?:[:–—-]\s+|\t|\s{2,})[A-Z(a-z]")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")

DISCLAIMER_PHRASES = (
    "forward-looking statement", "forward looking statement", "cautionary statement", "cautionary note",
    "undue reliance", "should not be relied", "no representation", "no assurance can be given",
    "not guarantees of future", "not a guarantee of future", "actual results may differ", "could cause actual",
    "risks and uncertainties", "does not constitute an offer", "disclaimer", "no obligation to update",
    "does not undertake", "all rights reserved", "copyright", "registered office", "registered in",
    "registration number", "without limitation", "except as required by", "safe harbo",
)
ABOUT_PHRASES = (
    "prepared in accordance with", "integrated into other parts", "about this report", "this report covers",
    "this report has been prepared", "this report was prepared", "reporting period", "reporting boundary",
    "scope of this report", "unless otherwise stated", "is available at", "should be read in conjunction",
    "refer collectively", "are referred to", "references in this", "the terms", "forms part of",
    "this report is", "this report contains", "reporting framework", "reporting standards",
)
CONTACT_PHRASES = (
    "corporate directory", "telephone", "facsimile", "share registrar", "contact us", "registered offices",
    "head office", "subscribe to", "follow us", "postal address", "investor relations", "printed on",
)
TOPIC_WORDS = (
    "climate", "emission", "energy", "water", "waste", "biodiversity", "safety", "health", "human rights",
    "community", "communities", "diversity", "governance", "ethic", "supply chain", "supplier", "tax",
    "remuneration", "risk", "scenario", "target", "adaptation", "transition", "nature", "land", "labour",
    "employee", "customer", "privacy", "corruption", "circular", "pollution", "indigenous", "tailings",
)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def _facts(lines: Sequence[str]) -> int:
    """Figures a page states, years and page numbers (a line holding only a number, or ending in one) aside,
    and sentences beyond two (a cover's subtitle and tagline): a cover has none ("Report 2024"), a short page
    that states a fact has some."""
    text = "\n".join(re.sub(r"\s\d{1,3}$", "", ln) for ln in lines if not _BARE_NUMBER.match(ln))
    figures = [f for f in _FIGURE.findall(text) if not re.fullmatch(r"(?:19|20)\d\d", f.strip())]
    sentences = len(re.findall(r"[a-z][.!?](?:\s|$)", text))
    return len(figures) + max(0, sentences - 2)


def _phrase_hits(low: str, phrases: Sequence[str]) -> list[str]:
    return [p for p in phrases if p in low]


def _page_ref_lines(lines: Sequence[str]) -> int:
    """Lines that point to a page: "Governance .... 12", "1.1 Role of the Board 9", a title followed by a
    line holding only its page number (PDF text often splits them)."""

    count = 0
    for i, ln in enumerate(lines):
        cells = [c.strip() for c in ln.strip().strip("|").split("|")] if _TABLE_ROW.match(ln) else []
        if len(cells) >= 2 and re.search(r"[^\W\d_]{3}", cells[0]) and page_refs(cells[-1]):
            count += 1  # "| 1. Pursuing net zero | 7 |": a contents page read as a table
        elif _LEADERS.search(ln) or (_PAGE_REF_LINE.match(ln) and len(ln) < 90):
            count += 1
        elif _BARE_NUMBER.match(ln) and i > 0 and re.search(r"[^\W\d_]{3}", lines[i - 1]) and len(lines[i - 1]) < 90:
            count += 1
    return count


def _referenced(lines: Sequence[str]) -> list[int]:
    """The numbers that end the page's lines, in order (a contents page's page numbers)."""
    out = []
    for ln in lines:
        m = re.search(r"(?:^|\s|\.)(\d{1,3})\s*$", ln)
        if m:
            out.append(int(m.group(1)))
    return out


def _ascending(numbers: Sequence[int], pages_in_file: int) -> bool:
    """Page numbers as a contents page lists them: mostly rising, none far past the document's end (a
    financial table's last column is neither)."""
    if len(numbers) < 5 or (pages_in_file and max(numbers) > pages_in_file + 10):
        return False
    rising = sum(1 for a, b in zip(numbers, numbers[1:]) if b >= a)
    return rising >= 0.8 * (len(numbers) - 1)


def _index_rows(lines: Sequence[str]) -> int:
    """Table rows (or lines) ending in page references: a framework index used as such."""

    n = 0
    for ln in lines:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")] if _TABLE_ROW.match(ln) else [ln]
        if len(cells) > 1 and any(page_refs(c) for c in cells[1:]):
            n += 1
        elif len(cells) == 1 and re.search(r"\b(?:GRI|SASB|TCFD|ESRS|IFRS)\b.*\s\d{1,3}(?:\s*[-–,]\s*\d{1,3})*\s*$", ln):
            n += 1
    return n


def score_page(page: PageText, repeated: float = 0.0, after_glossary: bool = False) -> PageScore:
    """The page's boilerplate score and its reasons. `repeated`: the share of its word 6-grams printed on a
    page of another of the company's documents (`repeated_shares`); `after_glossary`: the page before it is
    a glossary (a glossary runs on over pages without repeating its heading)."""
    text = page.text or ""
    low = " ".join(text.lower().split()).replace("‑", "-").replace("’", "'")
    ws = words(text)
    lines = _lines(text)
    n_words, n_lines = len(ws), max(1, len(lines))
    s = _Signals()
    first = page.page <= 2
    last = bool(page.pages_in_file) and page.page >= page.pages_in_file and page.pages_in_file > 3
    head = "\n".join(lines[:4])

    # position, and the nearly empty pages of a cover
    if n_words < 40 and (first or last) and not _facts(lines):
        s.add(0.6, Kind.COVER, f"nearly empty page ({n_words} words) at the {'start' if first else 'end'}")
    elif first or last:
        s.add(0.15, None, f"{'one of the first two pages' if first else 'the last page'}")

    # navigation: contents pages and index tables
    refs = _page_ref_lines(lines)
    share = refs / n_lines
    titles = sum(1 for ln in lines if len(ln.split()) <= 7 and not ln.rstrip().endswith((".", ":", ";")))
    sentences = len(re.findall(r"[a-z][.!?](?:\s|$)", text))
    if _CONTENTS_HEAD.search(head) and (refs >= 5 or (titles >= 6 and titles / n_lines >= 0.7)
                                        or (n_words >= 10 and sentences <= 1)):
        s.add(0.6, Kind.CONTENTS, f"a contents heading and {max(refs, titles)} page references or titles")
    elif refs >= 8 and share >= 0.35 and _ascending(_referenced(lines), page.pages_in_file):
        s.add(0.45, Kind.CONTENTS, f"{share:.0%} of lines are page references, in page order")
    rows = _index_rows(lines)
    index_head = _INDEX_HEAD.search(head) or re.search(r"^\W*(?:gri|tcfd|sasb|esrs|issb)\b.{0,30}\bindex\b", head,
                                                         re.IGNORECASE | re.MULTILINE)
    if rows >= 5 and (index_head or _INDEX_HEAD.search(low[:600])):
        s.add(0.6, Kind.INDEX, f"an index table: {rows} rows naming pages")
    elif index_head and n_lines >= 6:
        s.add(0.5, Kind.INDEX, "an index heading over a table of disclosures")
    if _ABOUT_HEAD.search(head):
        s.add(0.5, Kind.DISCLAIMER if re.search(r"disclaimer|forward|cautionary|important", head, re.IGNORECASE)
              else Kind.ABOUT, "a heading of a report's description or notices")

    # legal and report-description phrases
    legal = _phrase_hits(low, DISCLAIMER_PHRASES)
    if legal:
        weight = min(0.7, 0.15 * len(legal) + (0.15 if n_words and len(legal) * 100 / n_words > 0.8 else 0.0))
        s.add(weight, Kind.DISCLAIMER if len(legal) >= 2 else None,
              f"{len(legal)} legal phrases ({', '.join(legal[:3])})")
    about = _phrase_hits(low, ABOUT_PHRASES)
    if about:
        weight = min(0.6, 0.15 * len(about))
        s.add(weight, Kind.ABOUT if len(about) >= 2 or "about this report" in low[:200] else None,
              f"{len(about)} report-description phrases ({', '.join(about[:3])})")

    contact = _phrase_hits(low, CONTACT_PHRASES)
    if len(contact) >= 2:
        s.add(min(0.6, 0.15 * len(contact)), Kind.COVER, f"{len(contact)} contact and directory phrases "
              f"({', '.join(contact[:3])})")

    # glossaries
    defs = sum(1 for ln in lines if _DEFINITION_LINE.match(ln))
    if _GLOSSARY_HEAD.search(head) or (defs >= 8 and defs / n_lines >= 0.3):
        s.add(0.6, Kind.GLOSSARY, f"a glossary ({defs} definition lines)")
    elif after_glossary and n_words and len(_FIGURE.findall(text)) * 100 / n_words < 4.0:
        s.add(0.5, Kind.GLOSSARY, "the glossary continued from the page before")

    # many topics, no facts
    if n_words >= 40:
        topics = sum(1 for t in TOPIC_WORDS if t in low)
        figures = len(_FIGURE.findall(text))
        if topics >= 8 and figures * 100 / n_words < 1.0:
            s.add(0.25, None, f"{topics} topics named, {figures} figures")

    if repeated >= 0.5:
        s.add(0.3, Kind.REPEATED, f"{repeated:.0%} of its text is on a page of another report")

    kinds = tuple(s.kinds) if s.score >= THRESHOLD else ()
    if s.score >= THRESHOLD and not kinds:
        kinds = (Kind.COVER,) if first or last else (Kind.ABOUT,)
    return PageScore(page.file_name, page.page, round(min(1.0, s.score), 3), kinds, tuple(s.reasons))


def _shingles(text: str, n: int = 6) -> set[int]:
    ws = words(text)
    return {hash(tuple(ws[i:i + n])) for i in range(max(0, len(ws) - n + 1))}


def repeated_shares(pages: Sequence[PageText]) -> dict[tuple[str, int], float]:
    """Per page, the share of its word 6-grams that occur on some page of another of the company's documents
    (0 with one document)."""
    by_file: dict[str, set[int]] = {}
    sh = {(p.file_name, p.page): _shingles(p.text) for p in pages}
    for (f, _), grams in sh.items():
        by_file.setdefault(f, set()).update(grams)
    if len(by_file) < 2:
        return {}
    counts: Counter = Counter()
    for grams in by_file.values():
        counts.update(grams)
    out: dict[tuple[str, int], float] = {}
    for key, grams in sh.items():
        if len(grams) >= 20:
            own = by_file[key[0]]
            shared = sum(1 for g in grams if counts[g] > 1 and g in own)  # in this file and at least one other
            out[key] = shared / len(grams)
    return out


def score_pages(pages: Iterable[PageText]) -> list[PageScore]:
    """Every page scored, its repetition across the company's documents included."""
    pages = sorted(pages, key=lambda p: (p.file_name, p.page))
    rep = repeated_shares(pages)
    out: list[PageScore] = []
    for p in pages:
        before = out[-1] if out and out[-1].file_name == p.file_name and out[-1].page == p.page - 1 else None
        out.append(score_page(p, rep.get((p.file_name, p.page), 0.0),
                              after_glossary=before is not None and Kind.GLOSSARY in before.kinds))
    return out


# ---------------------------------------------------------------- what a row asks about

_ASKS: tuple[tuple[re.Pattern, tuple[Kind, ...]], ...] = (
    (re.compile(r"basis of (?:preparation|reporting)|prepared (?:in accordance|under|using)|in accordance with|"
                r"reporting (?:framework|standard|boundar|period|scope|principles)|frameworks? (?:used|applied|followed)|"
                r"standards? (?:used|applied|followed)|assurance|assured|verif(?:ied|ication)|about (?:the|this) report|"
                r"(?:report|disclosure)s? (?:covers?|scope)|scope of (?:the|this|your) report|consolidation approach|"
                r"organi[sz]ational boundar|operational control|which entities|report(?:s|ing)? (?:in line|aligned) with|"
                r"(?:in line|aligned|complian\w*) with (?:the )?(?:tcfd|gri|issb|sasb|esrs|csrd|ifrs)", re.IGNORECASE),
     (Kind.ABOUT, Kind.COVER, Kind.REPEATED)),
    (re.compile(r"forward[- ]looking|disclaimer|cautionary|safe harbo", re.IGNORECASE),
     (Kind.DISCLAIMER, Kind.REPEATED)),
    (re.compile(r"glossary|definition|defin(?:e|es|ed) (?:as|the term)|abbreviation|acronym|what (?:does|is) meant",
                re.IGNORECASE), (Kind.GLOSSARY,)),
    (re.compile(r"content index|gri index|(?:gri|sasb|tcfd|esrs) (?:content )?index|index table|cross[- ]reference|"
                r"table of contents", re.IGNORECASE), (Kind.INDEX, Kind.CONTENTS)),
)


def asked_kinds(text: str) -> frozenset[Kind]:
    """The kinds of boilerplate a question asks about ("basis of preparation", "forward-looking statements")."""
    out: set[Kind] = set()
    for pattern, kinds in _ASKS:
        if pattern.search(text or ""):
            out.update(kinds)
    return frozenset(out)


def demoted(score: PageScore | None, asked: frozenset[Kind]) -> bool:
    """Whether a page ranks last for a row that asks about `asked`."""
    return score is not None and score.boilerplate and not (set(score.kinds) & asked)


def rank_last(candidates: Sequence, scores: dict[tuple[str, int], PageScore], asked: frozenset[Kind],
              keep: int) -> list:
    """`candidates` (Passages) with those on boilerplate pages the row does not ask about moved to the end, in
    their order; left out altogether when at least `keep` others remain (so no reranker brings them back)."""
    good, last = [], []
    for c in candidates:
        (last if demoted(scores.get((c.file_name, c.page_start)), asked) else good).append(c)
    if not last:
        return list(candidates)
    return good if len(good) >= keep else good + last
