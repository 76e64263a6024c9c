"""A form's data validations, every kind, read from the sheets' XML (pure reading, no openpyxl).

openpyxl keeps the plain `<dataValidation>` elements but drops the x14 ones in a sheet's extLst, which
is where Excel puts any validation whose source is on another sheet (`'Enumeration Lists'!$C$2:$C$257`):
both are read here the same way, so a drop-down is never missed because of where its list lives.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from html import unescape
from pathlib import Path

from openpyxl.utils.cell import range_boundaries
from autofill.workbook.safety import _sheet_part_names

_PLAIN = re.compile(r"<(?:\w+:)?dataValidation\b([^>]*?)(/>|>(.*?)</(?:\w+:)?dataValidation>)", re.S)
_X14 = re.compile(r"<x14:dataValidation\b([^>]*)>(.*?)</x14:dataValidation>", re.S)
_ATTR = re.compile(r'\b([\w:]+)="([^"]*)"')


@dataclass(frozen=True)
class Validation:
    """One validation rule: its kind ("list", "whole", "decimal", "date", "custom", "textLength", "" for
    a prompt only), operator, formulas (unescaped, without "="), prompt and the cells it covers."""

    sheet: str
    kind: str
    formula1: str
    formula2: str
    operator: str
    sqref: str
    prompt: str = ""
    prompt_title: str = ""
    extension: bool = False

    def boxes(self) -> list[tuple[int, int, int, int]]:
        """(min_col, min_row, max_col, max_row) of each range in sqref."""
        out = []
        for part in self.sqref.split():
            try:
                c1, r1, c2, r2 = range_boundaries(part.replace("$", ""))
            except (ValueError, TypeError):
                continue
            if None not in (c1, r1, c2, r2):
                out.append((c1, r1, c2, r2))
        return out

    def covers(self, col: int, row: int) -> bool:
        return any(c1 <= col <= c2 and r1 <= row <= r2 for c1, r1, c2, r2 in self.boxes())


def _attrs(text: str) -> dict[str, str]:
    return {k.split(":")[-1]: unescape(v) for k, v in _ATTR.findall(text)}


def _formula(body: str, n: int) -> str:
    m = re.search(rf"<(?:x14:)?formula{n}>\s*(?:<xm:f>)?(.*?)(?:</xm:f>)?\s*</(?:x14:)?formula{n}>", body, re.S)
    return unescape(m.group(1).strip()).lstrip("=") if m else ""


def parse_sheet_validations(sheet: str, xml: str) -> list[Validation]:
    """Every validation of one sheet's XML, plain and x14 (pure)."""
    out: list[Validation] = []
    x14_spans = [(m.start(), m.end()) for m in _X14.finditer(xml)]
    for m in _X14.finditer(xml):
        a = _attrs(m.group(1))
        body = m.group(2)
        sq = re.search(r"<xm:sqref>(.*?)</xm:sqref>", body, re.S)
        out.append(Validation(sheet, a.get("type", ""), _formula(body, 1), _formula(body, 2),
                              a.get("operator", ""), sq.group(1).strip() if sq else "",
                              a.get("prompt", ""), a.get("promptTitle", ""), extension=True))
    for m in _PLAIN.finditer(xml):
        if any(s <= m.start() < e for s, e in x14_spans) or m.group(0).startswith("<x14:"):
            continue
        a = _attrs(m.group(1))
        body = m.group(3) or ""
        out.append(Validation(sheet, a.get("type", ""), _formula(body, 1), _formula(body, 2),
                              a.get("operator", ""), a.get("sqref", ""), a.get("prompt", ""),
                              a.get("promptTitle", "")))
    return out


def read_validations(path: Path) -> dict[str, list[Validation]]:
    """Validations per sheet name, from the workbook's zip."""

    out: dict[str, list[Validation]] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for part, sheet in _sheet_part_names(zf).items():
                try:
                    xml = zf.read(part).decode("utf-8", "replace")
                except KeyError:
                    continue
                if "dataValidation" in xml:
                    out[sheet] = parse_sheet_validations(sheet, xml)
    except (zipfile.BadZipFile, OSError):
        return {}
    return out


class ValidationIndex:
    """The validation that applies to a cell (the last one listed wins, as in Excel's own order)."""

    def __init__(self, by_sheet: dict[str, list[Validation]]):
        self._by_sheet = by_sheet

    def at(self, sheet: str, col: int, row: int) -> Validation | None:
        found = None
        for v in self._by_sheet.get(sheet, ()):
            if v.covers(col, row):
                if found is None or (v.kind and not found.kind) or (v.kind == "list"):
                    found = v
        return found
