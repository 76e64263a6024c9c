"""Which gate opens each datapoint of a form, read from the template's own structure (issue 45 part B).

A gate is a yes / no input that opens (or closes) other inputs: "Has the undertaking established GHG
emission reduction targets?" opens the base year and target year columns, not the current period's
Scope 1. The template says which cells a gate opens in two ways, read in this order:

1. conditional formats: a rule whose condition tests the gate (`$J$19=TRUE`, `$D$316="YES"`, or an
   AND of such tests) over the cells it applies to (`G21:J24`). Each test of an AND is a gate the
   cells need (the Scope 3 base / target columns need both "Scope 3 disclosed" and "targets set"); an
   OR is no necessary condition and is not read. A test of another kind of cell (an enumeration's
   value) is not a gate;
2. for a gate no conditional format names, the formulas of its own sheet that test it (not inside an
   OR or NOT) and refer to other inputs of that sheet (a status formula `=IF(C8=TRUE, IF(C9="", "MISSING VALUE", "OK"), "")`, a total
   `=IF(G29=TRUE, SUM(D30:F44), "-")`): those inputs are behind it. An input the same formula also
   tests as a gate is not behind the others (a row of check boxes summed up).

Nearness is never a reason: a gate opens only the cells the template ties to it. Pure over a `Book`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from autofill.forms.book import Area, Book, split_ref
from autofill.forms.model import Datapoint, DatapointKind, Gate, GateOpens
from autofill.forms.named import _opens

_REF = r"(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Z]{1,3}\$?\d+|[A-Za-z_][\w.]*"
_TEST = re.compile(rf"^\s*({_REF})\s*=\s*(TRUE|FALSE|\"[^\"]*\")\s*$", re.I)
_GATE_TEST = re.compile(rf"({_REF})\s*=\s*(TRUE|FALSE)\b", re.I)
_REFS = re.compile(r"(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?(?![\w(])")
YES_WORDS = {"yes", "true", "ja", "oui", "si", "sí", "sim", "wahr", "vrai"}
NO_WORDS = {"no", "false", "nein", "non", "não", "nee", "falsch", "faux"}
MAX_AREA = 2000  # cells of one formula reference or conditional-format range looked at


def read_gates(book: Book, sheets: list[str], dps: dict[str, Datapoint]) -> dict[str, tuple[Gate, ...]]:
    """Per datapoint key, the gates that open it (in the template's order), from conditional formats,
    then formulas; datapoints behind no gate are absent."""
    booleans = {(dp.sheet, *_col_row(dp.cell.ref)): dp.key for dp in dps.values()
                if dp.kind is DatapointKind.BOOLEAN and len(dp.cells) == 1 and not dp.alias_of}
    at: dict[tuple[str, int, int], list[str]] = {}
    for dp in dps.values():
        for c in dp.cells:
            at.setdefault((c.sheet, *_col_row(c.ref)), []).append(dp.key)
    found: dict[str, list[Gate]] = {}

    def give(key: str, gate: Gate) -> None:
        if gate.key == key or dps[key].alias_of == gate.key:
            return
        have = found.setdefault(key, [])
        if all(g.key != gate.key for g in have):
            have.append(gate)

    by_format: set[str] = set()
    for sheet in sheets:
        for where, condition in conditional_rules(book.wb[sheet]):
            tests = condition_gates(book, sheet, condition, booleans, dps)
            if not tests:
                continue
            by_format.update(g.key for g in tests)
            for area in (split_ref(part, sheet) for part in where.split()):
                for cr in _cells(area):
                    for key in at.get(cr, ()):
                        for g in tests:
                            give(key, replace(g, source=f"conditional format {sheet}!{where}"))
    for sheet in sheets:
        for row in book.wb[sheet].iter_rows():
            for c in row:
                raw = book.raw(sheet, c.column, c.row)
                if not (isinstance(raw, str) and raw.startswith("=")):
                    continue
                tests = formula_gates(book, sheet, raw, booleans)
                tests = [(k, g) for k, g in tests if k not in by_format]
                if not tests:
                    continue
                tested = {k for k, _ in tests}
                for m in _REFS.finditer(raw[1:]):
                    for cr in _cells(split_ref(m.group(0), sheet)):
                        for key in at.get(cr, ()):
                            if key in tested or cr[0] != sheet:
                                continue
                            for gkey, opens in tests:
                                give(key, Gate(gkey, opens, source=f"formula {sheet}!{c.coordinate}"))
    return {k: tuple(v) for k, v in found.items()}


def with_gates(dps: dict[str, Datapoint], gates: dict[str, tuple[Gate, ...]]) -> dict[str, Datapoint]:
    """The datapoints with their gates: the first in `gate`, any others in `more_gates`."""
    out = {}
    for key, dp in dps.items():
        g = gates.get(key, ())
        out[key] = replace(dp, gate=g[0] if g else None, more_gates=tuple(g[1:]))
    return out


def conditional_rules(ws) -> list[tuple[str, str]]:
    """(the ranges a rule applies to, its condition) of each expression rule of a sheet."""
    out = []
    try:
        formats = list(ws.conditional_formatting)
    except Exception:  # noqa: BLE001 - a read-only or odd sheet has none to read
        return out
    for cf in formats:
        where = str(cf.sqref)
        for rule in cf.rules:
            if rule.type == "expression" and rule.formula:
                out.append((where, str(rule.formula[0])))
    return out


def condition_gates(book: Book, sheet: str, condition: str, booleans: dict, dps: dict[str, Datapoint]) -> list[Gate]:
    """The gates a conditional format's condition needs: one test, or every gate test of an AND."""
    text = condition.strip().lstrip("=")
    m = re.fullmatch(r"\s*AND\((.*)\)\s*", text, re.I | re.S)
    parts = _split_args(m.group(1)) if m else [text]
    if not m and re.match(r"\s*(OR|NOT)\(", text, re.I):
        return []
    out = []
    for part in parts:
        t = _TEST.match(part)
        if not t:
            continue
        key = _boolean_at(book, sheet, t.group(1), booleans)
        if key is None:
            continue
        opens = _opens_by_value(t.group(2), dps[key].allowed)
        if opens is not None:
            out.append(Gate(key, opens))
    return out


def formula_gates(book: Book, sheet: str, formula: str, booleans: dict) -> list[tuple[str, GateOpens]]:
    """The gates a formula tests (`X=TRUE`, `X=FALSE`), with the answer that opens what it refers to."""

    out: list[tuple[str, GateOpens]] = []
    for m in _GATE_TEST.finditer(formula):
        key = _boolean_at(book, sheet, m.group(1), booleans)
        if key is None or not key_on(book, sheet, m.group(1)) or _enclosing(formula, m.start()) in ("OR", "NOT"):
            continue  # a gate of another sheet (a table of contents' check box), or no necessary condition
        if all(k != key for k, _ in out):
            out.append((key, _opens(formula, m.group(1), m.group(2))))
    return out


def key_on(book: Book, sheet: str, ref: str) -> bool:
    """The reference is a cell of `sheet` (gates by formula tie cells of one sheet only)."""
    area = book.names.get(ref) or split_ref(ref, sheet)
    return area is not None and area.sheet == sheet


def _enclosing(formula: str, pos: int) -> str:
    """The name of the function whose parentheses hold position `pos` of `formula` ("" at the top)."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        ch = formula[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z.]+)\s*$", formula[:i])
                return m.group(1).upper() if m else ""
            depth -= 1
    return ""


def _boolean_at(book: Book, sheet: str, ref: str, booleans: dict) -> str | None:
    area = book.names.get(ref) or split_ref(ref, sheet)
    if area is None or not area.single:
        return None
    return booleans.get((area.sheet, area.c1, area.r1))


def _opens_by_value(value: str, allowed: tuple[str, ...]) -> GateOpens | None:
    v = value.strip().strip('"').strip().lower()
    if v in YES_WORDS:
        return GateOpens.YES
    if v in NO_WORDS:
        return GateOpens.NO
    if len(allowed) == 2 and v in (a.lower() for a in allowed):  # a yes / no in the form's own words
        return GateOpens.YES if v == allowed[0].lower() else GateOpens.NO
    return None


def _split_args(text: str) -> list[str]:
    out, depth, quoted, cur = [], 0, False, ""
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            out.append(cur)
            cur = ""
            continue
        cur += ch
    return [*out, cur]


def _cells(area: Area | None):
    if area is None or (area.c2 - area.c1 + 1) * (area.r2 - area.r1 + 1) > MAX_AREA:
        return ()
    return ((area.sheet, c, r) for c, r in area.cells())


def _col_row(ref: str) -> tuple[int, int]:
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    letters, row = coordinate_from_string(ref)
    return column_index_from_string(letters), row
