"""Years, scopes and bases tied to the figures they qualify. Pure functions.

A cited page states nearly every year and "Scope 1/2/3" somewhere, so finding the answer's year
anywhere on it proves little: "Scope 1 was 9.5 Mt in FY2019" is wrong when the page says 9.5 Mt for
FY2020 and mentions FY2019 elsewhere. Here a qualifier (a year, a GHG scope, a basis such as
market-based or gross) stated in the same clause of the answer as a figure must be stated with that
figure in the cited passages: in the same sentence, or in the same table cell's row label and column
header (Markdown tables as ingest writes them: `| Metric | FY2022 | FY2021 |`).

Lenient where the evidence cannot say: a clause without a figure ties nothing; a figure the cited
passages lack is the figure check's to report; a qualifier absent from every cited passage is the
year or scope check's; and when no sentence or cell stating the figure names any qualifier of that
kind (a figure given without a year), the qualifier cannot be tied and is not flagged. Text in
parentheses belongs to the clause around it unless it states figures of its own ("16.2 Mt (FY2021)"
ties FY2021 to 16.2 Mt; "(9.5 Mt in FY2020)" is a clause of its own)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from autofill.checks.figures import HEDGED_SLACK, RELATIVE_SLACK, answer_figures, hedged, passage_figures, supports
from autofill.checks.numbers import Quantity, extract_years
from autofill.checks.scope import scopes_in, terms_in
from autofill.records import CheckResult, Passage, Severity

# A sentence ends at . ! ? before a capital, digit, quote, bracket or bullet; not after "e.g." or "p.".
# A bullet starts one too, full stop or not (PDF text: "\uf0b7" or "•" at the start of each item).
_BULLETS = "•▪◦‣●■□\uf0b7\uf0a7\uf0d8\uf076\uf0fc"
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[\-–" + _BULLETS + r"])")
_BULLET = re.compile(r"\s*[" + _BULLETS + r"]\s*")
LIST_ITEMS = 10  # the most bullet items a lead-in sentence ("... includes these measures:") covers
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|approx|incl|no|p|pp|fig|vs|cf|St|Mr|Ms|Dr|Co|Ltd|Inc|[A-Z])\.$")
_CLAUSE_END = re.compile(r";\s+|\n\s*\n|\n\s*[•▪\-–*]\s+|(?<=[.!?])\s+(?=[A-Z\"'(])")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^[\s|:\-–—]+$")


@dataclass(frozen=True)
class Kind:
    """A kind of qualifier: how to read it from text and how to name it in a reason."""

    name: str  # the check it reports under: "years" or "scope"
    read: Callable[[str], set]
    label: Callable[[object, str], str]


def _years(text: str) -> set:
    return {y for y, _ in extract_years(text)}


def _year_label(year: object, clause: str) -> str:
    texts = [t for y, t in extract_years(clause) if y == year]
    text = texts[0] if texts else str(year)
    return text if str(year) in text else f"{text} ({year})"


# Bases that say which of several figures is meant ("6.3 Mt market-based; 5.1 Mt location-based").
# Absolute vs intensity describes a target rather than labels a figure, and its unit already says it
# (t CO2-e per tonne): checked against the whole passage only (scope.py).
TIED_TERMS = {"market-based", "location-based", "gross", "net"}
KINDS = (
    Kind("years", _years, _year_label),
    Kind("scope", scopes_in, lambda n, _: f"Scope {n}"),
    Kind("scope", lambda text: terms_in(text) & TIED_TERMS, lambda t, _: str(t)),
)


def _sentences(text: str) -> list[str]:
    parts = _SENTENCE_END.split(text)
    out: list[str] = []
    for part in parts:
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return [p.strip() for p in out if p.strip()]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@dataclass(frozen=True)
class Unit:
    """Where a passage states a figure (`text`: a sentence, a table cell) and what counts as stated
    with it (`context`: the sentence with the one before and after it, as a report introduces a
    programme in one sentence and gives its figure in the next; a cell with its row label and
    column header)."""

    text: str
    context: str


CAPTION_CHARS = 240  # a short line right above a table, ending no sentence, is its caption


def _caption(prose: list[str]) -> str:
    """The caption of a table about to start: the last line above it, when short and no sentence's
    end ("Operational GHG emissions (kt CO2-e), year ended 30 June 2023"); ingest puts it there."""
    last = next((line.strip() for line in reversed(prose) if line.strip()), "")
    return last if len(last) <= CAPTION_CHARS and not re.search(r"[.!?:]['\")]*$", last) else ""


def _table_units(lines: list[str], caption: str = "") -> list[Unit]:
    """One unit a cell, stated with its row label, its column header and the table's caption."""
    rows = [_cells(line) for line in lines if not _TABLE_RULE.match(line)]
    if not rows:
        return []
    header = rows[0]
    out = [Unit(" ".join(header), " ".join([caption, *header]))]
    for row in rows[1:]:
        for j, cell in enumerate(row[1:], start=1):
            if cell:
                column = header[j] if j < len(header) else ""
                out.append(Unit(cell, " ".join(x for x in (caption, row[0], column, cell) if x)))
    return out


def _prose_units(text: str) -> list[Unit]:
    """Sentences (paragraphs, separated by blank lines, end one too); each with its neighbours, a
    lead-in ending in ":" with the bullet items it introduces, and each of those items with its
    lead-in."""
    pieces: list[tuple[str, int, bool]] = []  # (sentence, bullet part, starts an item)
    part = 0
    for paragraph in re.split(r"\n\s*\n", text):
        for k, chunk in enumerate(_BULLET.split(" ".join(paragraph.split()))):
            part += 1
            pieces += [(s, part, j == 0 and k > 0) for j, s in enumerate(_sentences(chunk))]
    units = []
    for i, (sentence, part, _) in enumerate(pieces):
        context = [p for p, _, _ in pieces[max(0, i - 1):i + 2]]
        if sentence.endswith(":"):
            context += [p for p, k, item in pieces[i + 2:] if item and k <= part + LIST_ITEMS]
        lead = next((j for j in range(i - 1, -1, -1) if pieces[j][0].endswith(":")), None)
        if lead is not None and lead < i - 1 and all(item for _, _, item in pieces[lead + 1:i + 1]):
            context.append(pieces[lead][0])
        units.append(Unit(sentence, " ".join(context)))
    return units


def passage_units(text: str) -> list[Unit]:
    """A passage cut where a figure and its qualifiers are stated together: prose sentences (lines
    of a PDF page joined first) and table cells (Markdown rows as ingest writes tables)."""
    units: list[Unit] = []
    prose: list[str] = []
    table: list[str] = []
    caption = ""

    def flush_prose() -> None:
        if prose:
            units.extend(_prose_units("\n".join(prose)))
            prose.clear()

    for line in str(text or "").splitlines():
        if _TABLE_LINE.match(line):
            if not table:
                caption = _caption(prose)
            flush_prose()
            table.append(line)
            continue
        if table:
            units.extend(_table_units(table, caption))
            table.clear()
        prose.append(line)
    if table:
        units.extend(_table_units(table, caption))
    flush_prose()
    return units


def _anchor(q: Quantity) -> bool:
    """A figure specific enough to tie a year to: with a unit, decimals or four digits ("16.2 Mt",
    "300,000", "46.3"); not a bare "100" (as in "Climate Action 100+") or "five"."""
    return q.dim != "plain" or q.decimals > 0 or abs(q.raw) >= 1000


def _has_figure(text: str) -> bool:
    return bool(answer_figures(text))


def _lift_parentheses(text: str) -> tuple[str, list[str]]:
    """The text with every top-level parenthesis that states a figure taken out, and those."""
    outer, inner, depth, start = [], [], 0, 0
    pos = 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                group = text[start + 1:i]
                if _has_figure(group):
                    outer.append(text[pos:start])
                    outer.append(" " * (i + 1 - start))
                    inner.append(group)
                    pos = i + 1
    outer.append(text[pos:])
    return "".join(outer), inner


def answer_clauses(text: str) -> list[str]:
    """The answer cut into clauses: sentences and ";"-separated parts, with parentheses that state
    figures of their own as clauses of their own (recursively)."""
    outer, inner = _lift_parentheses(str(text or ""))
    parts = [" ".join(c.split()) for c in _CLAUSE_END.split(outer)]
    out = [c for c in parts if c]
    for group in inner:
        out += answer_clauses(group)
    return out


def _nearest(clause: str, figures: list[Quantity], needle: str) -> Quantity:
    at = clause.find(needle)
    return min(figures, key=lambda q: abs(q.start - at) if at >= 0 and q.start >= 0 else 0)


def check_ties(answer: str, cited: Sequence[Passage]) -> list[CheckResult]:
    """One failed check per year, scope or basis that the cited passages state, but never with the
    figure the answer's clause gives it; nothing when no clause ties a qualifier to a figure."""
    units = [u for p in cited for u in passage_units(p.text)]
    if not units:
        return []
    everywhere = "\n".join(p.text for p in cited)
    unit_figures: list[list[Quantity]] | None = None
    failed: dict[str, CheckResult] = {}
    tied = 0
    for clause in answer_clauses(answer):
        figures = [q for q in answer_figures(clause) if _anchor(q)]
        wanted = [(kind, kind.read(clause)) for kind in KINDS]
        if not figures or not any(named for _, named in wanted):
            continue
        if unit_figures is None:
            unit_figures = [[q for q in passage_figures(u.text) if _anchor(q)] for u in units]
        anchors = [units[i] for i, fs in enumerate(unit_figures)
                   if any(supports(p, q, HEDGED_SLACK if hedged(clause, q) else RELATIVE_SLACK)
                          for q in figures for p in fs)]
        if not anchors:
            continue  # the figures are not in the cited passages: the figure check says so
        for kind, named in wanted:
            if not named:
                continue
            # A sentence that dates its figure is what counts; one that does not borrows from its
            # neighbours ("the CIP, announced in July 2019. BHP will invest US$400 million ...").
            stated_with = [kind.read(u.text) or kind.read(u.context) for u in anchors]
            if not any(stated_with):
                continue  # the passages give the figure without any year (scope, basis): cannot tie
            have = set().union(*stated_with)
            anywhere = kind.read(everywhere)
            for q in sorted(named, key=str):
                if q in have or q not in anywhere:
                    tied += q in have
                    continue
                label = kind.label(q, clause)
                figure = _nearest(clause, figures, label.split(" (")[0])
                reason = f"{label} not stated with {figure.text} in cited passages"
                failed.setdefault(reason, CheckResult(kind.name, False, Severity.HARD, reason))
    if failed:
        return list(failed.values())
    if not tied:
        return []
    return [CheckResult("ties", True, Severity.HARD,
                        f"years and scopes stated with their figures in the cited passages ({tied})")]


# A document named with its year: "Climate Change Report 2020", "the 2021 Climate Transition Action Plan".
_DOCUMENT = r"(?:Report|Plan|Review|Statement|Disclosures?|Accounts)"
_TITLE_WORD = r"[A-Z][\w'’&-]*"
_TITLED_YEAR = re.compile(rf"\b((?:{_TITLE_WORD}\s+){{1,6}}{_DOCUMENT})\s+((?:19|20)\d{{2}})(?!\d)"
                          rf"|(?<!\d)((?:19|20)\d{{2}})\s+((?:{_TITLE_WORD}\s+){{0,6}}{_DOCUMENT})\b")
TITLE_WORDS = 3  # a title is matched on its last words, the document word included: "Climate Change Report"
_ARTICLES = {"the", "this", "our", "its", "their", "a", "an"}


def _title_key(title: str) -> str:
    words = [w for w in title.lower().split() if w not in _ARTICLES]
    return " ".join(words[-TITLE_WORDS:])


def document_years(text: str) -> list[tuple[str, int, str]]:
    """(title key, year, as written) for each document the text names with a year."""
    out = []
    for m in _TITLED_YEAR.finditer(" ".join(str(text or "").split())):
        title, year = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if len(title.split()) >= 2:  # "Report 2020" alone names no document
            out.append((_title_key(title), int(year), m.group(0)))
    return out


def check_document_years(answer: str, cited: Sequence[Passage]) -> list[CheckResult]:
    """A document the answer names with a year ("Climate Change Report 2021") that the cited passages
    and file names name only with another year ("Climate Change Report 2020")."""
    named = document_years(answer)
    if not named:
        return []
    sources = [p.file_name.rsplit(".", 1)[0] for p in cited] + [p.text for p in cited]
    stated: dict[str, set[int]] = {}
    for text in sources:
        for key, year, _ in document_years(text):
            stated.setdefault(key, set()).add(year)
    out = []
    for key, year, written in named:
        others = next((ys for k, ys in stated.items() if k.endswith(key) or key.endswith(k)), set())
        if others and year not in others:
            name = " ".join(w for w in written.split() if w.lower() not in _ARTICLES)
            title = " ".join(name.replace(str(year), "").split())
            reason = f"{name}: cited passages name it {title} {', '.join(map(str, sorted(others)))}"
            out.append(CheckResult("years", False, Severity.HARD, reason))
    return out
