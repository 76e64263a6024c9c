"""Tables: find them with PyMuPDF, read their cells, drop fake ones, render Markdown, and repair
tables that a page break cut in two.

Why this shape (figures from benchmarks/parsers.py on the 75 BHP pages, 2-core machine):
PyMuPDF 2.0's `find_tables()` gates detection with its layout model (ONNX, shipped in the wheel,
offline) and costs ~0.3 s per page, about 100x plain text extraction. Running it on every page
would make parsing as slow as embedding, so by default it runs only on pages whose words look
tabular (rows of numbers side by side); `ingest.table_pages = "all"` runs it everywhere. Cell text
is read from the page's words rather than `Table.extract()`, which in PyMuPDF 2.0 loses spaces
("Scope1(kt)") and splits "1,450" into "1450\\n,"."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from autofill.ingest.cleanup import clean_spaces

_NUMERIC = re.compile(r"^[<>~$(\u2013\-+]*\d[\d.,%)*]*$")
_NUMBER_CELL = re.compile(r"^[<>~$(\u2013\-+]*\d[\d.,%)*\-\u2013]*$")

Word = tuple  # PyMuPDF "words" tuple: (x0, y0, x1, y1, text, block, line, word_no)


@dataclass
class TableGrid:
    bbox: tuple[float, float, float, float]
    header: list[str]
    rows: list[list[str]]

    @property
    def columns(self) -> int:
        return len(self.header)

    def markdown(self) -> str:
        return render_markdown(self.header, self.rows)


def render_markdown(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "/") for c in cells) + " |"

    out = [line(header), "|" + "---|" * len(header)]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def looks_tabular(words: list[Word], after_table: bool = False) -> bool:
    """Cheap test before the costly table finder: numbers in rows and columns.

    A row is a baseline with two or more numbers; it counts when at least two of its numbers line
    up (right edges within ~6 pt) with numbers in two or more other rows. Three such rows make a
    table candidate; prose with stray years or footnote marks in two text columns rarely does. A
    page right after a table only needs two rows of numbers: the table may continue there."""
    rows: dict[int, list[int]] = defaultdict(list)
    for w in words:
        if _NUMERIC.match(w[4]):
            rows[round(w[3] / 3)].append(round(w[2] / 6))
    rows = {k: v for k, v in rows.items() if len(v) >= 2}
    if after_table:
        return len(rows) >= 2
    columns: Counter[int] = Counter()
    for cols in rows.values():
        columns.update(set(cols))

    def aligned(col: int) -> bool:
        return columns[col - 1] + columns[col] + columns[col + 1] >= 3

    return sum(1 for cols in rows.values() if sum(1 for c in set(cols) if aligned(c)) >= 2) >= 3


def _cell_text(words: list[Word], cell: tuple | None) -> str:
    if cell is None:
        return ""
    x0, y0, x1, y1 = cell
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    inside.sort(key=lambda w: (w[5], w[6], w[7]))  # MuPDF's own reading order: block, line, word
    return clean_spaces(" ".join(w[4] for w in inside)).replace("\n", " ").strip()


def _grid_from_table(table, words: list[Word]) -> list[list[str]]:
    grid = [[_cell_text(words, cell) for cell in row.cells] for row in table.rows]
    grid = [r for r in grid if any(r)]
    if not grid:
        return []
    width = max(len(r) for r in grid)
    grid = [r + [""] * (width - len(r)) for r in grid]
    keep = [c for c in range(width) if any(r[c] for r in grid)]  # layout leaves empty spacer columns
    return [[r[c] for c in keep] for r in grid]


def merge_sparse_header(grid: list[list[str]]) -> list[list[str]]:
    """A header spread over two rows ("Year ended 30 June" above "2020 | 2019") becomes one row, so
    the header repeated on every piece of a split table still names the columns."""
    if len(grid) >= 3 and sum(1 for c in grid[0] if not c) > len(grid[0]) / 2 and not grid[1][0]:
        merged = [" ".join(x for x in (a, b) if x) for a, b in zip(grid[0], grid[1])]
        return [merged] + grid[2:]
    return grid


def is_real_table(grid: list[list[str]]) -> bool:
    """Reject what is really text layout: one column or one row, mostly empty cells, one character
    per cell, or paragraphs poured into a grid."""
    if len(grid) < 2 or len(grid[0]) < 2:
        return False
    if len(grid) == 2 and max(_numeric_share(r) for r in grid) < 0.5:
        return False  # two rows of words (a signature block, a caption) are layout, not a table
    cells = [c for r in grid for c in r]
    filled = [c for c in cells if c]
    if len(filled) < 0.5 * len(cells):
        return False
    if sum(1 for c in filled if len(c) == 1 and not c.isdigit()) > 0.5 * len(filled):
        return False
    return sum(1 for c in filled if len(c) > 80) <= 0.3 * len(filled)


def find_tables(page, words: list[Word], mode: str = "auto", after_table: bool = False) -> list[TableGrid]:
    """Real tables on a page, top to bottom. mode: "auto" (only pages that look tabular), "all", "off".
    `after_table`: the previous page had a table, which may continue here."""
    if mode == "off" or (mode == "auto" and not looks_tabular(words, after_table)):
        return []
    try:
        found = page.find_tables()
    except Exception:  # a table finder failure must not lose the page's text
        return []
    tables = []
    for table in found.tables:
        grid = merge_sparse_header(_grid_from_table(table, words))
        if is_real_table(grid):
            tables.append(TableGrid(tuple(table.bbox), grid[0], grid[1:]))
    tables.sort(key=lambda t: (t.bbox[1], t.bbox[0]))
    return tables


def _numeric_share(cells: list[str]) -> float:
    body = [c for c in cells[1:] if c]  # the first column is usually a label
    return sum(1 for c in body if _NUMBER_CELL.match(c.replace(" ", ""))) / len(body) if body else 0.0


def is_headerless_continuation(previous: TableGrid, current: TableGrid) -> bool:
    """True when `current`, at the top of a page, continues `previous` from the page before without
    repeating its header: same columns, and its first row reads like data, not like a header."""
    if previous.columns != current.columns or current.header == previous.header:
        return False
    return _numeric_share(current.header) >= 0.5 and _numeric_share(previous.header) < 0.5


def attach_header(previous: TableGrid, current: TableGrid) -> TableGrid:
    """The continuation piece with the original header put back; its first row becomes data."""
    return TableGrid(current.bbox, list(previous.header), [list(current.header)] + current.rows)
