"""Allowed answer values: from a list drop-down (data validation) on the Answer cell, or from the
"Form of answer" text ("Yes/No and a short explanation").

Cross-sheet drop-downs made by Excel are stored in an extension list (x14:dataValidation) that openpyxl
does not read; they are parsed here from the sheet XML so their values are still known, and writeback
re-creates them as ordinary validations so the filled copy keeps its drop-downs."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string, range_boundaries
from autofill.workbook.safety import _sheet_part_names, _xml_unescape


@dataclass
class ListValidation:
    """A list drop-down: the cell ranges it covers and its source formula."""

    sqref: str  # "F5 F6 F8:F10"
    formula: str  # '"Yes,No"', "Lists!$A$1:$A$4" or a defined name
    extension: bool = False  # read from an x14 extension list (openpyxl drops those on save)
    boxes: tuple[tuple[int, int, int, int], ...] = ()  # (min_col, min_row, max_col, max_row)

    def covers(self, col: int, row: int) -> bool:
        return any(c1 <= col <= c2 and r1 <= row <= r2 for c1, r1, c2, r2 in self.boxes)


def _boxes(sqref: str) -> tuple[tuple[int, int, int, int], ...]:
    out = []
    for part in str(sqref).split():
        try:
            c1, r1, c2, r2 = range_boundaries(part.replace("$", ""))
        except (ValueError, TypeError):
            continue
        out.append((c1 or 1, r1 or 1, c2 or 16384, r2 or 1048576))
    return tuple(out)


def sheet_list_validations(ws) -> list[ListValidation]:
    """List-type data validations openpyxl read for a worksheet."""
    out = []
    for dv in ws.data_validations.dataValidation:
        if (dv.type or "") != "list" or not dv.formula1:
            continue
        sqref = str(dv.sqref)
        out.append(ListValidation(sqref=sqref, formula=str(dv.formula1), boxes=_boxes(sqref)))
    return out


_X14_DV = re.compile(r"<x14:dataValidation\b([^>]*)>(.*?)</x14:dataValidation>", re.S)


def extension_list_validations(path: Path) -> dict[str, list[ListValidation]]:
    """x14 list validations per sheet name, read from the zip (openpyxl ignores them)."""
    out: dict[str, list[ListValidation]] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            parts = _sheet_part_names(zf)
            for part, sheet in parts.items():
                try:
                    xml = zf.read(part).decode("utf-8", "replace")
                except KeyError:
                    continue
                if "x14:dataValidation" not in xml:
                    continue
                for m in _X14_DV.finditer(xml):
                    attrs, body = m.group(1), m.group(2)
                    kind = re.search(r'\btype="([^"]+)"', attrs)
                    if not kind or kind.group(1) != "list":
                        continue
                    f = re.search(r"<x14:formula1>\s*<xm:f>(.*?)</xm:f>", body, re.S)
                    sq = re.search(r"<xm:sqref>(.*?)</xm:sqref>", body, re.S)
                    if f and sq:
                        sqref = sq.group(1).strip()
                        out.setdefault(sheet, []).append(ListValidation(
                            sqref=sqref, formula=_xml_unescape(f.group(1).strip()), extension=True,
                            boxes=_boxes(sqref)))
    except (zipfile.BadZipFile, OSError):
        return {}
    return out


def resolve_list(wb, formula: str, home_sheet: str) -> list[str] | None:
    """The values of a list validation's formula: inline ("Yes,No"), a range on this or another
    sheet, or a defined name pointing at one. None when it cannot be resolved (e.g. INDIRECT)."""
    f = formula.strip()
    if f.startswith("="):
        f = f[1:].strip()
    if f.startswith('"') and f.endswith('"') and len(f) >= 2:
        return [v.strip() for v in f[1:-1].split(",") if v.strip()]
    if f in wb.defined_names:
        target = wb.defined_names[f].attr_text
        return resolve_list(wb, target, home_sheet) if target and target != f else None
    ws_sheet = wb[home_sheet] if home_sheet in wb.sheetnames else None
    if ws_sheet is not None and f in getattr(ws_sheet, "defined_names", {}):
        return resolve_list(wb, ws_sheet.defined_names[f].attr_text, home_sheet)
    sheet_name, ref = home_sheet, f
    if "!" in f:
        sheet_name, _, ref = f.rpartition("!")
        sheet_name = sheet_name.strip()
        if sheet_name.startswith("'") and sheet_name.endswith("'"):
            sheet_name = sheet_name[1:-1].replace("''", "'")
    if sheet_name not in wb.sheetnames:
        return None
    try:
        c1, r1, c2, r2 = range_boundaries(ref.replace("$", ""))
    except (ValueError, TypeError):
        return None
    if None in (c1, r1, c2, r2) or (c2 - c1 + 1) * (r2 - r1 + 1) > 1000:
        return None
    ws = wb[sheet_name]
    values = []
    for row in ws.iter_rows(min_row=r1, max_row=r2, min_col=c1, max_col=c2, values_only=True):
        for v in row:
            if v is not None and str(v).strip():
                values.append(_as_text(v))
    return values


def _as_text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


# ------------------------------------------------------------------------------------ form of answer

_KNOWN_VALUES = {
    "yes": "Yes", "no": "No", "partially": "Partially", "partial": "Partial", "not disclosed": "Not disclosed",
    "n/a": "N/A", "na": "N/A", "not applicable": "Not applicable", "unknown": "Unknown",
    "true": "True", "false": "False", "in progress": "In progress", "planned": "Planned",
}
_STOP = re.compile(r"\s+(?:and|with|plus|\+|incl\.?|including)\b|[,;:(\-–—.]", re.I)


def form_of_answer_values(text: str) -> list[str]:
    """Allowed values named by a form-of-answer text: "Yes/No", "Yes / No / Partially and short
    explanation", "Yes, No or Not disclosed". Empty when the text names no closed set of values."""
    if not text or not isinstance(text, str):
        return []
    t = " ".join(text.split())
    placeholder = "\u0000NA\u0000"
    t2 = re.sub(r"\bN/A\b", placeholder, t, flags=re.I)
    if "/" in t2:
        start = t2.find("/")
        # The value before the first slash is the last word(s) of the text before it.
        before = t2[:start]
        head = re.split(r"[:;,(]", before)[-1].strip()
        parts = [head] + t2[start + 1:].split("/")
        values = []
        for i, part in enumerate(parts):
            part = part.strip()
            if i == len(parts) - 1 or i > 0:
                part = _STOP.split(part, maxsplit=1)[0].strip()
            part = part.replace(placeholder, "N/A")
            if not part or len(part.split()) > 3:
                break
            values.append(part)
        values = [_canonical(v) for v in values]
        if len(values) >= 2 and _plausible(values):
            return values
    # "Yes, No or Partially" / "Yes or No": only when every token is a known closed value.
    m = re.match(r"^\s*([A-Za-z/ ]+?(?:\s*,\s*[A-Za-z/ ]+?)*\s+or\s+[A-Za-z/ ]+?)(?:\s*$|[\s,;:(.\-–—])", t)
    if m:
        tokens = [x.strip() for x in re.split(r"\s*,\s*|\s+or\s+", m.group(1)) if x.strip()]
        if len(tokens) >= 2 and all(tok.lower() in _KNOWN_VALUES for tok in tokens):
            return [_KNOWN_VALUES[tok.lower()] for tok in tokens]
    return []


def _canonical(value: str) -> str:
    return _KNOWN_VALUES.get(value.lower(), value)


def _plausible(values: list[str]) -> bool:
    """Slash lists that are answer options, not "tonnes/year" or "Scope 1/2"."""
    known = sum(1 for v in values if v.lower() in _KNOWN_VALUES)
    if known >= 2:
        return True
    return known >= 1 and all(v[:1].isupper() for v in values)


def column_index(letter: str) -> int:
    return column_index_from_string(letter)
