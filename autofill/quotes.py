"""What a quote from a passage is (issue 47): a sentence, or a table row read with its labels, and never a
bare heading. Pure functions, no I/O; the evidence-only draft (answer/evidence_only.py), the review
report's highlights (review/highlights.py) and the cited page of a model's answer use them.

Tables are stored in chunks as Markdown (`| a | b |` lines, a `|---|` rule under the first line; a piece
of a split table repeats both, a caption line may open it). A row such as `|  | 32.6 | 32.7 |` says nothing
to a reviewer on its own, so a table row is quoted as `Scope 1 and 2 (Mt CO2e), 2023: 32.6`: its row label
(a label-only row above it names a group of rows; an empty label borrows it), the unit of the table's
corner cell when the label has none, and each value with its column header (the header rows above the
data: a second header line of years or units under the first is joined to it, column by column)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_RULE = re.compile(r":?-{2,}:?")
_FIGURE = re.compile(r"^[<>~≈$€£(\u2013\u2212\-+]*\d[\d.,\s%)*\u2013\-]*[%*)]?[a-z]{0,2}$", re.IGNORECASE)
# Cells that hold no value: "n/a", a dash, a currency sign the table finder split from its figure ("$").
_PLACEHOLDER = re.compile(r"^(?:n/?a|n\.a\.|[-\u2013\u2014]|nil|\*|[$\u20ac\u00a3]|us\$)$", re.IGNORECASE)
_YEAR_LABEL = re.compile(r"^(?:(?:FY|CY|H[12]\s*)?\s?(?:19|20)\d\d(?:\s*[/\u2013-]\s*\d{2,4})?|(?:19|20)\d\d\s*(?:FY|CY)?)"
                         r"\s*[:*]?\s*(?:\(\w+\))?$", re.IGNORECASE)
_TRAILING_YEAR = re.compile(r"\s((?:FY|CY)?\s?(?:19|20)\d\d(?:/\d{2})?)$", re.IGNORECASE)
_PERIOD = re.compile(r"(?:(?:January|February|March|April|May|June|July|August|September|October|November|"
                     r"December)\s+\d{1,2},\s+)?(?:FY|CY)?\s?(?:19|20)\d\d\b")
_UNIT = re.compile(r"\(([^()]*[A-Za-z%][^()]*)\)")  # "(Mt CO2e)", "(%)"; never a footnote "(5)"
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_YEAR = re.compile(r"\b(?:FY|CY)?\s?((?:19|20)\d\d)\b", re.IGNORECASE)
# A verb a sentence has and a heading lacks; headings are also short and end without a full stop.
_VERBS = frozenset("""is are was were be been being has have had do does did will would shall should can
could may might must achieved achieve reached reduced increased decreased remained totalled totaled amounted
represents represented includes included reported reports emitted consumed set sets aims aim plan plans
committed commits expects expect""".split())
HEADING_WORDS = 12


def is_figure(cell: str) -> bool:
    """A table cell holding a value: "32.6", "1,450", "(3.2)", "12%", "–5", "0.4*"."""
    c = cell.strip()
    return bool(c) and bool(_FIGURE.match(c)) and not is_year_label(c)


def is_year_label(cell: str) -> bool:
    """A column header that is a year or period: "2023", "FY2023", "2022/23", "2018:"."""
    return bool(_YEAR_LABEL.match(cell.strip()))


def figures(text: str) -> set[str]:
    """The figures of a text, normalised ("1,120" -> "1120", "30.0" -> "30"), years and single digits left
    out: they are what ties a sentence to a table value ("Scope 1" and "2023" are not values)."""
    out = set()
    for m in _NUMBER.finditer(text or ""):
        n = m.group().rstrip(",").replace(",", "")
        decimal = "." in n
        if decimal:
            n = n.rstrip("0").rstrip(".")
        if not n or (len(n) == 1 and not decimal) or (len(n) == 4 and n[:2] in ("19", "20") and not decimal):
            continue
        out.add(n)
    return out


def is_heading(text: str) -> bool:
    """A bare heading: a short line with no full stop, no figure and no verb ("Managed and non-managed
    operations", "Our approach to climate change"); it names a topic and answers nothing."""
    s = " ".join((text or "").split())
    if not s:
        return True
    words = s.split()
    if len(words) > HEADING_WORDS or s.rstrip("\"”')").endswith((".", "!", "?", ";")):
        return False
    if s[0] in "•▪◦○‣●-–—*" or s[0].islower():
        return False  # a bullet ("• Net zero by 2050"), or a line continuing the one above
    if figures(s):
        return False
    return not any(w.strip(",:;()\"'").lower() in _VERBS for w in words)


def cells_of(line: str) -> list[str] | None:
    """The cells of a Markdown table line, None for a line that is not one; [] for the rule under a header."""
    s = line.strip()
    if not s.startswith("|") or s.count("|") < 2:
        return None
    cells = [c.strip() for c in s.strip("|").split("|")]
    if all(_RULE.fullmatch(c) or not c for c in cells):
        return []
    return cells


@dataclass(frozen=True)
class TableRow:
    """A data row of a table, read with its labels."""

    line: str  # the row as the chunk holds it ("| Scope 1 and 2 | 32.6 | 32.7 |"): what a page locator finds
    label: str  # the row label with its group and unit: "Scope 1 and 2 (Mt CO2e)"
    values: tuple[tuple[str, str], ...]  # (column header, value) for each filled value cell
    context: str = ""  # the table's corner cell and caption: words a row rarely repeats

    def quote(self, want: set[str] | frozenset[str] = frozenset()) -> str:
        """`Label, 2023: 32.6; 2022: 32.7`; `want` (years or words) keeps only the columns whose header
        names one of them, when any does."""
        values = list(self.values)
        if want:
            chosen = [(h, v) for h, v in values if any(w in h.lower() for w in want)]
            values = chosen or values
        pairs = "; ".join(f"{h}: {v}" if h else v for h, v in values)
        if not self.label:
            return pairs
        return f"{self.label}, {pairs}" if pairs else self.label

    @property
    def text(self) -> str:
        return self.quote()


@dataclass
class _Table:
    caption: str = ""
    header_rows: list[list[str]] = field(default_factory=list)
    data_started: bool = False
    group: str = ""
    rows: list[TableRow] = field(default_factory=list)


def _is_header_like(cells: list[str]) -> bool:
    """A row under the first header line that continues the header: an empty (or unit-only) label and
    values that are years, periods or words, never figures."""
    body = [c for c in cells[1:] if c]
    if not body or any(is_figure(c) for c in body):
        return False
    return not cells[0] or bool(_UNIT.fullmatch(cells[0]))


def _headers(rows: list[list[str]], width: int) -> list[str]:
    """Column headers from the header rows: each column's cells top to bottom; a cell a header row left
    empty under a spanning heading ("2023" over "Location | Market") takes the one on its left."""
    out = [""] * width
    for r, row in enumerate(rows):
        row = row + [""] * (width - len(row))
        last = r == len(rows) - 1
        carried = ""
        for c in range(width):
            cell = row[c]
            if cell:
                carried = cell
            elif not last and c > 0 and len(rows) > 1:
                cell = carried
            cell = cell.rstrip(":").strip()
            if cell and cell not in out[c]:
                out[c] = f"{out[c]} {cell}".strip()
    for c in range(min(width, max((len(r) for r in rows), default=0)) - 1):
        # A year the table finder put in the cell on its left ("Emissions (Mt CO2e) 2023 |  | 2022"):
        # it heads the empty column beside it.
        m = _TRAILING_YEAR.search(out[c])
        if m and not out[c + 1] and m.start() > 0:
            out[c], out[c + 1] = out[c][:m.start()].strip(), m.group(1)
    return out


_UNIT_WORDS = re.compile(r"(?:^|[\s/(])(?:[kmg]?t|tonnes?|co2[\w-]*|[kmgtp]wh|[kmgtp]j|gl|ml|kl|m3|ha|km|"
                         r"millions?|billions?|thousands?|per ?cent|us\$|a\$|\$|€|£|%)(?=$|[\s/),.-])", re.IGNORECASE)


def _unit(text: str) -> str:
    """The unit in parentheses ("(Mt CO2e)", "(million tonnes CO2-e)", "(%)"), not a remark ("(including
    capital goods)") or a footnote ("(5)")."""
    m = next((m for m in _UNIT.finditer(text or "") if len(m.group(1)) <= 32 and _UNIT_WORDS.search(m.group(1))),
             None)
    return f"({m.group(1).strip()})" if m else ""


def _row(table: _Table, cells: list[str], line: str) -> TableRow | None:
    width = max(len(cells), max((len(r) for r in table.header_rows), default=0))
    headers = _headers(table.header_rows, width)
    label = cells[0]
    values = [(headers[c] if c < len(headers) and c > 0 else "", cells[c]) for c in range(1, len(cells))
              if cells[c] and not _PLACEHOLDER.match(cells[c])]
    named = [h for h in headers[1:] if h]
    header_width = max((len(r) for r in table.header_rows), default=0)
    if len(cells) != header_width and values and len(values) == len(named):
        # A row split into more cells than its header ("TOTAL ASSETS | $ | 59,268 | $ | 55,556" under
        # "| 2021 | 2020"): its values pair with the named columns in order.
        values = [(h, v) for h, (_, v) in zip(named, values)]
    if values and not any(h for h, _ in values):
        # No column header names them: a financial statement prints its periods in the caption above the
        # table ("CONSOLIDATED BALANCE SHEETS ... August 29, 2021 August 30, 2020"), one a value.
        periods = _PERIOD.findall(table.caption[-80:])
        if len(periods) == len(values):
            values = [(period, v) for period, (_, v) in zip(periods, values)]
    if not values:
        # A label-only row names the rows under it ("Scope 1 and 2" over "Location-based", "Market-based").
        if label:
            table.group = label
        return None
    corner = headers[0] if headers else ""
    if not label:
        # The label printed on its own line above its figures ("Scope 1 and 2" over "| | 32.6 |"): the
        # label is this row's alone, so it names no group below.
        label, table.group = table.group or corner, ""
    elif table.group and table.group.lower() not in label.lower():
        label = f"{table.group} \u2013 {label}"
    unit = _unit(corner) or _unit(table.caption)
    if unit and label and not _unit(label) and not any(_unit(h) for h, _ in values):
        label = f"{label} {unit}"
    context = " ".join(x for x in (table.caption, corner) if x)
    return TableRow(line=line.strip(), label=label, values=tuple(values), context=context)


@dataclass(frozen=True)
class Piece:
    """A quotable piece of a passage, in order: a sentence, or a table row."""

    text: str
    row: TableRow | None = None

    @property
    def locate_text(self) -> str:
        return self.row.line if self.row is not None else self.text


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\"“(\[]?[A-Z0-9])")


def pieces(text: str) -> list[Piece]:
    """The sentences and table rows of a passage. A paragraph is the lines between blank lines; a line
    that is a bare heading stays apart from the sentence under it (and is never a piece)."""
    out: list[Piece] = []
    prose: list[str] = []
    table: _Table | None = None
    last_prose = ""

    def flush() -> None:
        nonlocal last_prose
        if prose:
            joined = " ".join(prose)
            for s in _SENTENCE_END.split(joined):
                s = s.strip()
                if s and not is_heading(s):
                    out.append(Piece(s))
            last_prose = prose[-1]
            prose.clear()

    for line in (text or "").splitlines():
        cells = cells_of(line)
        if cells is None:
            table = None
            stripped = line.strip()
            if not stripped:
                flush()
            elif is_heading(stripped):
                flush()  # a heading line ends a paragraph and is not glued to the sentence under it
                last_prose = stripped
            else:
                prose.append(stripped)
            continue
        if table is None:
            flush()
            table = _Table(caption=last_prose)
        if cells == []:
            continue  # the rule under the header
        if not table.header_rows or (not table.data_started and _is_header_like(cells)):
            table.header_rows.append(cells)
            continue
        table.data_started = True
        row = _row(table, cells, line)
        if row is not None:
            out.append(Piece(row.text, row))
    flush()
    return out


def question_years(text: str) -> set[str]:
    """The years a question names ("FY2023", "in 2023"): the table columns a quote keeps."""
    return {m.group(1) for m in _YEAR.finditer(text or "")}


def stated_in_words(row: TableRow, sentences: list[str]) -> str:
    """A sentence stating one of a table row's figures (not a year, not a single digit) in words: the
    quote a reviewer would rather read than the row. "" when none does."""
    wanted = set()
    for _, v in row.values:
        wanted |= figures(v)
    if not wanted:
        return ""
    for s in sentences:
        if figures(s) & wanted and not is_heading(s) and "|" not in s:
            return s
    return ""


def holding_figures(answer: str, texts: list[str], cited: list[int]) -> int | None:
    """The 1-based index of the passage among `texts` holding the most of the answer's figures (years and
    single digits aside), when none of the `cited` ones holds any: the model cited a page that names the
    topic while another passage states the figure. None when the answer states no figure, a cited passage
    holds one, or no passage does."""
    wanted = figures(answer)
    if not wanted:
        return None
    held = [len(wanted & figures(t)) for t in texts]
    if any(held[i - 1] for i in cited if 1 <= i <= len(texts)):
        return None
    best = max(range(len(texts)), key=lambda i: (held[i], -i), default=None)
    return None if best is None or not held[best] else best + 1
