"""The type of an input cell, from what the workbook says about it: its drop-down (and the values in
it), its other validation, its number format, a check box's TRUE / FALSE, and the unit its label or
heading names. Pure functions over plain values; the reader gathers them."""

from __future__ import annotations

import re

from autofill.forms.model import DatapointKind

_YES_NO = {"yes", "no", "true", "false", "ja", "nein", "oui", "non", "si", "sí", "sì", "nee", "nej",
           "tak", "nie", "sim", "não", "y", "n", "wahr", "falsch", "vrai", "faux", "verdadero", "falso"}
_MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"}
_BOOL_CUSTOM = re.compile(r"=\s*TRUE\b.*=\s*FALSE\b|=\s*FALSE\b.*=\s*TRUE\b", re.I | re.S)
_DATE_FORMAT = re.compile(r"(?<![\\\"])(?:d{1,4}|y{2,4}|m{1,4}/|/m{1,4})", re.I)
_UNIT_IN = re.compile(r"\(\s*(?:in\s+|en\s+|in\s*)?([^()]{1,14}?)\s*\)\s*[:*]?\s*$|\[\s*([^\[\]]{1,10})\s*\]\s*$|\bin\s+([A-Za-z€$£][\w€$£/²³.-]{0,10})\s*$",
                      re.I)
_UNITISH = re.compile(r"^(?:%|[€$£]|[A-Z]{3}|t|kg|g|mt|tco2e?q?|tco2|kgco2e?|mwh|kwh|gwh|gj|tj|mj|m3|m³|m2|m²|ha|"
                      r"km|l|litres?|liters?|hours?|h|days?|years?|tonnes?|metric tonnes?|"
                      r"cubic met(?:er|re)s?|square met(?:er|re)s?|hectares?|[a-z]{1,5}co2e?(?:/\w+)?)$", re.I)


def _ints(values: list[str]) -> list[int] | None:
    out = []
    for v in values:
        t = v.strip()
        if t.endswith(".0"):
            t = t[:-2]
        if not t.isdigit():
            return None
        out.append(int(t))
    return out


def list_kind(values: list[str]) -> tuple[DatapointKind, str]:
    """What a drop-down's values make the cell: (kind, date part or "")."""
    clean = [v.strip() for v in values if v.strip()]
    if not clean:
        return DatapointKind.ENUMERATION, ""
    low = {v.lower() for v in clean}
    if len(low) == 2 and low <= _YES_NO:
        return DatapointKind.BOOLEAN, ""
    nums = _ints(clean)
    if nums is not None:
        if all(1800 <= n <= 2200 for n in nums):
            return DatapointKind.YEAR, "year"
        if min(nums) >= 1 and max(nums) <= 12 and len(nums) >= 12:
            return DatapointKind.NUMBER, "month"
        if min(nums) >= 1 and max(nums) <= 31 and len(nums) >= 28:
            return DatapointKind.NUMBER, "day"
    if len(low) == 12 and low <= _MONTHS:
        return DatapointKind.ENUMERATION, "month"
    return DatapointKind.ENUMERATION, ""


def is_date_format(number_format: str) -> bool:
    fmt = re.sub(r"\[[^\]]*\]|\"[^\"]*\"", "", number_format or "")
    return bool(_DATE_FORMAT.search(fmt)) and "0" not in fmt.replace("00", "")


def cell_kind(*, validation_kind: str = "", validation_formula: str = "", validation_formula2: str = "",
              allowed: list[str] | None = None, value=None, number_format: str = "General",
              label: str = "") -> tuple[DatapointKind, str]:
    """The kind of one input cell and, for the parts of a date, which part it is ("year", "month",
    "day"), from its validation, current value, number format and label (pure)."""
    if validation_kind == "list":
        return list_kind(allowed) if allowed is not None else (DatapointKind.ENUMERATION, "")
    if isinstance(value, bool):
        return DatapointKind.BOOLEAN, ""
    if validation_kind == "custom" and _BOOL_CUSTOM.search(validation_formula or ""):
        return DatapointKind.BOOLEAN, ""
    if validation_kind == "date" or is_date_format(number_format):
        return DatapointKind.DATE, ""
    if validation_kind == "whole":
        bounds = _ints([validation_formula, validation_formula2 or validation_formula])
        if bounds and all(1800 <= b <= 2200 for b in bounds):
            return DatapointKind.YEAR, "year"
    fmt = number_format or "General"
    if "%" in fmt.replace("\\%", "") or re.search(r"\[\s*%\s*\]|\(\s*%\s*\)|\bin\s*%", label):
        return DatapointKind.PERCENT, ""
    if validation_kind in ("decimal", "whole"):
        return DatapointKind.NUMBER, ""
    if fmt != "General" and fmt != "@" and re.search(r"[0#]", fmt):
        return DatapointKind.NUMBER, ""
    if isinstance(value, (int, float)):
        return DatapointKind.NUMBER, ""
    return label_kind(label), ""


_PERCENT_WORDS = re.compile(r"\b(?:percentage|per ?cent|share of)\b|%", re.I)
_NUMBER_WORDS = re.compile(r"^\s*(?:number|total|amount|average|quantity|volume|mass|weight|area)\b(?! of (?:how|why|whether))",
                           re.I)
_YEAR_WORDS = re.compile(r"\((?:yyyy|year)\)\s*$|\b(?:base|target|reporting) year\s*$", re.I)
_DATE_WORDS = re.compile(r"\b(?:yyyy-mm-dd|dd/mm/yyyy|mm/dd/yyyy|dd\.mm\.yyyy)\b", re.I)


def label_kind(label: str) -> DatapointKind:
    """The kind a label alone suggests, for a cell with no drop-down, no validation and no number
    format: a unit or "Number of ..." makes a number, "%" or "percentage" a percent, "(yyyy)" a year."""
    text = " ".join((label or "").split())
    if not text:
        return DatapointKind.TEXT
    if _DATE_WORDS.search(text):
        return DatapointKind.DATE
    if _YEAR_WORDS.search(text):
        return DatapointKind.YEAR
    if _PERCENT_WORDS.search(text) and not re.match(r"\s*(?:describe|description|explain)", text, re.I):
        return DatapointKind.PERCENT
    if unit_in(text, anywhere=False) or _NUMBER_WORDS.match(text):
        return DatapointKind.NUMBER
    return DatapointKind.TEXT


_UNIT_ANYWHERE = re.compile(r"\(\s*(?:in\s+|en\s+)?([^()]{1,30}?)\s*\)|\[\s*([^\[\]]{1,10})\s*\]|\bin\s+([A-Za-z€$£][\w€$£/²³.-]{0,10})\b",
                            re.I)


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")  # tCO₂e as some translations write it


def _unitish(text: str) -> str:
    text = text.strip().rstrip(".:")
    if _UNITISH.match(text):
        return text
    last = text.split()[-1] if text.split() else ""
    return last if last != text and _UNITISH.match(last) and not last.isalpha() or last in ("m³", "m²") else ""


def unit_in(text: str, anywhere: bool = True) -> str:
    """The unit a label or heading names: "(in MWh)", "[tCO2e]", "in tCO2e", "(cubic meters m³)"; the
    one at the end first, else (`anywhere`) the first anywhere ("" if none)."""
    text = " ".join((text or "").split()).translate(_SUBSCRIPTS)
    m = _UNIT_IN.search(text)
    if m:
        unit = _unitish(next(g for g in m.groups() if g))
        if unit:
            return unit
    for m in _UNIT_ANYWHERE.finditer(text) if anywhere else ():
        unit = _unitish(next(g for g in m.groups() if g))
        if unit:
            return unit
    return ""


def scale_in(number_format: str, label: str) -> int:
    """The power of ten a cell's figures are in: "in thousands" / "000s" / a format ending in ","."""
    low = (label or "").lower()
    if re.search(r"\bin (?:thousands|'000s?|000s?|k€|keur|tsd)\b|\(000\)|'000", low):
        return 3
    if re.search(r"\bin millions?\b|\bm€|\bmeur\b|\bmio\b", low):
        return 6
    fmt = (number_format or "").split(";")[0]
    if re.search(r"[0#],,(?![0#])", fmt):
        return 6
    if re.search(r"[0#],(?![0#])", fmt):
        return 3
    return 0
