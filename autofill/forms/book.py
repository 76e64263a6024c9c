"""A workbook as a form reader sees it: formulas and cached values side by side, defined names
resolved to cells, and the text a cell shows, worked out from its formula when the formula only
joins text, follows names or looks a label up in a translation table (INDEX / MATCH), else its
cached value. Used for labels, headings and drop-down lists; never writes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from openpyxl.utils.cell import column_index_from_string, range_boundaries

from autofill.forms.model import FormCell

_TOKEN = re.compile(r"""
    (?P<str>"(?:[^"]|"")*")
  | (?P<ref>(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?)(?![\w(])
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_\\][\w.]*)
  | (?P<op>&|\(|\)|,|;|=|\+|-)
  | (?P<ws>\s+)
""", re.X)


class Unsupported(Exception):
    """The formula does more than a label needs; the cached value is used instead."""


@dataclass(frozen=True)
class Area:
    sheet: str
    c1: int
    r1: int
    c2: int
    r2: int

    @property
    def single(self) -> bool:
        return self.c1 == self.c2 and self.r1 == self.r2

    def cells(self):
        for r in range(self.r1, self.r2 + 1):
            for c in range(self.c1, self.c2 + 1):
                yield c, r


def split_ref(text: str, home: str) -> Area | None:
    """'Sheet name'!$A$1:$B$2 (or A1 on `home`) as an Area; None when it is not a cell reference."""
    text = text.strip()
    sheet = home
    if "!" in text:
        sheet, _, text = text.rpartition("!")
        sheet = sheet.strip()
        if sheet.startswith("'") and sheet.endswith("'"):
            sheet = sheet[1:-1].replace("''", "'")
    try:
        c1, r1, c2, r2 = range_boundaries(text.replace("$", ""))
    except (ValueError, TypeError):
        return None
    if None in (c1, r1, c2, r2):
        return None
    return Area(sheet, c1, r1, c2, r2)


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class _Cell:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _SheetValues:
    def __init__(self, values: dict[tuple[int, int], object]):
        self._values = values

    def cell(self, row: int, column: int) -> _Cell:
        return _Cell(self._values.get((row, column)))


class CachedValues:
    """The values Excel cached for every formula cell, read in one streaming pass (openpyxl's
    read-only mode: a fraction of a full load, which formats every merged cell)."""

    def __init__(self, path):
        import warnings

        import openpyxl

        self._sheets: dict[str, _SheetValues] = {}
        with warnings.catch_warnings():  # the sheets are parsed while iterated: keep openpyxl quiet till the end
            warnings.simplefilter("ignore", UserWarning)
            wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
            try:
                for ws in wb.worksheets:
                    values = {}
                    for row in ws.iter_rows():
                        for c in row:
                            v = getattr(c, "value", None)
                            if v is not None and getattr(c, "row", None) is not None:
                                values[(c.row, c.column)] = v
                    self._sheets[ws.title] = _SheetValues(values)
            finally:
                wb.close()

    def __getitem__(self, sheet: str) -> _SheetValues:
        return self._sheets.get(sheet) or _SheetValues({})


class Book:
    """The two openpyxl views of one workbook (formulas, cached values) and its defined names."""

    def __init__(self, wb_formulas, wb_values, overrides: dict[tuple[str, int, int], object] | None = None):
        self.wb = wb_formulas
        self.values = wb_values
        self.overrides = dict(overrides or {})
        self.names: dict[str, Area] = {}
        self.broken_names: list[str] = []
        scoped = [(name, dn) for ws in wb_formulas.worksheets
                  for name, dn in getattr(ws, "defined_names", {}).items()]  # names local to a sheet
        for name, dn in list(wb_formulas.defined_names.items()) + scoped:
            if name in self.names:
                continue
            area = self._area_of(dn)
            if area is None:
                self.broken_names.append(name)
            else:
                self.names[name] = area
        self._memo: dict[tuple[str, int, int], str] = {}
        # the cells label formulas look up (a language choice) and the options they are matched in
        self.lookups: dict[Area, Area] = {}

    def _area_of(self, dn) -> Area | None:
        try:
            dests = list(dn.destinations)
        except Exception:  # noqa: BLE001 - openpyxl raises on #REF! and other broken names
            return None
        if len(dests) != 1:
            return None
        sheet, ref = dests[0]
        if sheet not in self.wb.sheetnames or not ref:
            return None
        return split_ref(ref, sheet)

    # ------------------------------------------------------------------ cells

    def raw(self, sheet: str, col: int, row: int):
        """What the cell holds: a formula as text starting with "=", or a value."""
        if (sheet, col, row) in self.overrides:
            return self.overrides[(sheet, col, row)]
        value = self.wb[sheet].cell(row=row, column=col).value
        if value is not None and not isinstance(value, (str, int, float, bool)) and hasattr(value, "text"):
            return "=" + str(value.text or "").lstrip("=")  # array formulas
        return value

    def cached(self, sheet: str, col: int, row: int):
        if (sheet, col, row) in self.overrides:
            return self.overrides[(sheet, col, row)]
        return self.values[sheet].cell(row=row, column=col).value

    def is_formula(self, sheet: str, col: int, row: int) -> bool:
        v = self.raw(sheet, col, row)
        return isinstance(v, str) and v.startswith("=")

    def text(self, sheet: str, col: int, row: int, depth: int = 0) -> str:
        """The text the cell shows: its formula worked out when it only handles text, else the value
        Excel cached for it."""
        key = (sheet, col, row)
        if key in self._memo:
            return self._memo[key]
        raw = self.raw(sheet, col, row)
        if isinstance(raw, str) and raw.startswith("=") and key not in self.overrides:
            try:
                out = _text(_Eval(self, sheet, depth).run(raw[1:]))
            except (Unsupported, RecursionError, KeyError, IndexError, ValueError):
                out = _text(self.cached(sheet, col, row))
        else:
            out = _text(raw)
        self._memo[key] = out
        return out

    def name_text(self, name: str) -> str:
        area = self.names.get(name)
        return self.text(area.sheet, area.c1, area.r1) if area else ""


class _Eval:
    """A small evaluator for label formulas: "text", references, names, &, INDEX, MATCH, TRIM."""

    def __init__(self, book: Book, home: str, depth: int):
        if depth > 12:
            raise Unsupported("too deep")
        self.book, self.home, self.depth = book, home, depth

    def run(self, formula: str):
        self.toks = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(formula) if m.lastgroup != "ws"]
        if sum(len(t[1]) for t in self.toks) < len(re.sub(r"\s", "", formula)):
            raise Unsupported("unknown characters")
        self.i = 0
        value = self.expr()
        if self.i != len(self.toks):
            raise Unsupported("trailing tokens")
        return self.scalar(value)

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, value=None):
        kind, text = self.peek()
        if kind is None or (value is not None and text != value):
            raise Unsupported(f"expected {value}")
        self.i += 1
        return kind, text

    def expr(self):
        value = self.term()
        while self.peek()[1] == "&":
            self.take("&")
            value = _text(self.scalar(value)) + _text(self.scalar(self.term()))
        return value

    def scalar(self, value):
        if isinstance(value, Area):
            if not value.single:
                raise Unsupported("range used as text")
            return self.book.text(value.sheet, value.c1, value.r1, self.depth + 1)
        return value

    def term(self):
        kind, text = self.take()
        if kind == "str":
            return text[1:-1].replace('""', '"')
        if kind == "num":
            return float(text) if "." in text else int(text)
        if kind == "ref":
            area = split_ref(text, self.home)
            if area is None or area.sheet not in self.book.wb.sheetnames:
                raise Unsupported("bad reference")
            return area
        if kind == "name":
            if self.peek()[1] == "(":
                return self.call(text.upper())
            if text.upper() in ("TRUE", "FALSE"):
                return text.upper() == "TRUE"
            area = self.book.names.get(text)
            if area is None:
                raise Unsupported(f"unknown name {text}")
            return area
        if text == "(":
            value = self.expr()
            self.take(")")
            return value
        raise Unsupported(f"unexpected {text}")

    def args(self):
        self.take("(")
        out = []
        if self.peek()[1] == ")":
            self.take(")")
            return out
        while True:
            out.append(self.expr())
            if self.peek()[1] in (",", ";"):
                self.take()
                continue
            self.take(")")
            return out

    def call(self, fn: str):
        args = self.args()
        if fn == "TRIM" and len(args) == 1:
            return " ".join(_text(self.scalar(args[0])).split())
        if fn == "MATCH" and len(args) >= 2:
            if isinstance(args[0], Area) and args[0].single and isinstance(args[1], Area):
                self.book.lookups.setdefault(args[0], args[1])
            wanted = _text(self.scalar(args[0])).strip().lower()
            area = args[1]
            if not isinstance(area, Area):
                raise Unsupported("MATCH over a non-range")
            for n, (c, r) in enumerate(area.cells(), start=1):
                if self.book.text(area.sheet, c, r, self.depth + 1).strip().lower() == wanted:
                    return n
            raise Unsupported("MATCH found nothing")
        if fn == "INDEX" and len(args) >= 2:
            area = args[0]
            if not isinstance(area, Area):
                raise Unsupported("INDEX over a non-range")
            n = int(self.scalar(args[1]))
            m = int(self.scalar(args[2])) if len(args) > 2 else 1
            if area.r1 == area.r2:
                col, row = area.c1 + n - 1, area.r1
            elif area.c1 == area.c2:
                col, row = area.c1, area.r1 + n - 1
            else:
                col, row = area.c1 + m - 1, area.r1 + n - 1
            if not (area.c1 <= col <= area.c2 and area.r1 <= row <= area.r2):
                raise Unsupported("INDEX out of range")
            return Area(area.sheet, col, row, col, row)
        raise Unsupported(f"function {fn}")


def column_number(letters: str) -> int:
    return column_index_from_string(letters)


def formula_cells(book: Book, sheets: list[str]) -> frozenset[FormCell]:
    """Every formula cell of `sheets` (array formulas too): cells autofill never writes."""
    out = set()
    for sheet in sheets:
        for row in book.wb[sheet].iter_rows():
            for c in row:
                v = c.value
                if (isinstance(v, str) and v.startswith("=")) or (v is not None and hasattr(v, "text")
                                                                  and not isinstance(v, str)):
                    out.add(FormCell(sheet, c.coordinate))
    return frozenset(out)
