"""A form datapoint's value read from what a model wrote, as the type the datapoint asks for. Pure.

The model answers a typed question (default_templates/form_answer.j2) with a JSON object whose "answer"
is the value and whose "unit" is the unit it wrote the value in. What it writes is read leniently and
strictly at once: "16.2 Mt CO2e", "16,200,000", 16200000 and "16,2 Mt" are all a number, converted
into the form's unit (forms/units.py); a number in another dimension than the form's ("10 PJ" for a
tonnes cell) is refused, never written. Yes / no, true / false, "ja" / "oui" are booleans; an
enumeration value must be one of the allowed values (case, spaces and punctuation aside, or the one
allowed value the answer starts with); a date is read from the usual spellings; text is text.
"Not disclosed" (and an empty answer) is no value: nothing is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from typing import Any, Sequence

from autofill.checks.numbers import parse_numeral
from autofill.forms.units import Unit, convert, parse_unit, quantities


class ValueType(str, Enum):
    """What a datapoint's cell holds."""

    NUMBER = "number"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ENUM = "enum"
    DATE = "date"
    TEXT = "text"

    @property
    def numeric(self) -> bool:
        return self in (ValueType.NUMBER, ValueType.INTEGER)


@dataclass(frozen=True)
class TypedValue:
    """A value of the datapoint's type, or why there is none (`problem`)."""

    value: float | int | bool | str | date | None
    written: str  # the answer as the model wrote it
    unit: str = ""  # the unit the model's figure came in ("Mt CO2e"), "" when none was written
    problem: str = ""  # "" when `value` is a value of the type; else why not, in words

    @property
    def ok(self) -> bool:
        return not self.problem and self.value is not None


NOT_DISCLOSED = re.compile(r"^\s*(?:not\s+disclosed|n/?a|none|unknown|not\s+(?:stated|reported|available)|-+)\s*\.?\s*$",
                           re.IGNORECASE)
_TRUE = {"yes", "true", "y", "1", "ja", "oui", "si", "sí", "wahr", "vrai", "x", "checked"}
_FALSE = {"no", "false", "n", "0", "nein", "non", "falsch", "faux", "unchecked"}
_SCIENTIFIC = re.compile(r"^[-+]?\d+(?:\.\d+)?[eE][-+]?\d+$")
_PLAIN_NUMBER = re.compile(r"^[-−]?\s*(\d[\d,.\u00a0\u202f ]*)$")
_DATE_FORMATS = ("%Y-%m-%d", "%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%d/%m/%Y", "%d.%m.%Y", "%Y/%m/%d")


def parse_value(raw: Any, kind: ValueType, unit: Unit | None = None, allowed: Sequence[str] = (),
                written_unit: str = "") -> TypedValue:
    """`raw` (the reply's "answer": a string, a number, a boolean) as a value of `kind`. `unit`: the
    form's unit (numbers are converted into it); `written_unit`: the reply's "unit" field, the unit of a
    bare number; `allowed`: the drop-down's values (an ENUM value must be one of them)."""
    written = "" if raw is None else (str(raw).strip() if not isinstance(raw, bool) else ("Yes" if raw else "No"))
    if raw is None or (isinstance(raw, str) and (not written or NOT_DISCLOSED.match(written))):
        return TypedValue(None, written, problem="not disclosed")
    if kind.numeric:
        value = _number(raw, written, unit, written_unit)
        if value.ok and kind is ValueType.INTEGER:
            n = float(value.value)  # type: ignore[arg-type]
            if abs(n - round(n)) > 1e-6:
                return TypedValue(None, written, value.unit, f"{written} is not a whole number")
            return TypedValue(int(round(n)), written, value.unit)
        return value
    if kind is ValueType.BOOLEAN:
        return _boolean(raw, written)
    if kind is ValueType.ENUM:
        return _enum(written, allowed)
    if kind is ValueType.DATE:
        return _date(raw, written)
    return TypedValue(written, written)


def _number(raw: Any, written: str, unit: Unit | None, written_unit: str) -> TypedValue:
    source = parse_unit(written_unit) if written_unit else None
    if isinstance(raw, bool):
        return TypedValue(None, written, problem=f"{written} is not a number")
    if isinstance(raw, (int, float)):
        return _in_form_unit(float(raw), source, unit, written, written_unit)
    if _SCIENTIFIC.match(written):
        return _in_form_unit(float(written), source, unit, written, written_unit)
    found = quantities(written)
    if len({(q.dim, q.value) for q in found}) > 1:
        return TypedValue(None, written, problem=f"{written} states more than one figure")
    if found:
        q = found[0]
        if q.dim == "plain":
            return _in_form_unit(q.value, source, unit, written, written_unit)
        if unit is None or q.dim != unit.dim:
            where = unit.symbol if unit is not None else "a bare number (the form names no unit)"
            return TypedValue(None, written, q.text, f"{q.text} cannot be written as {where}")
        return TypedValue(q.value / unit.factor, written, q.text)
    m = _PLAIN_NUMBER.match(written)  # a year-like figure ("2020") checks/numbers.py leaves out
    if m:
        value, _ = parse_numeral(re.sub(r"[\s\u00a0\u202f]", "", m.group(1)))
        sign = -1.0 if written.lstrip().startswith(("-", "−")) else 1.0
        return _in_form_unit(sign * value, source, unit, written, written_unit)
    return TypedValue(None, written, problem=f"{written} is not a number")


def _in_form_unit(value: float, source: Unit | None, unit: Unit | None, written: str, written_unit: str) -> TypedValue:
    if source is None or unit is None:
        return TypedValue(value, written, written_unit)
    if source.dim != unit.dim:
        return TypedValue(None, written, written_unit, f"{written} {written_unit} cannot be written as {unit.symbol}")
    return TypedValue(convert(value, source, unit), written, written_unit)


def _boolean(raw: Any, written: str) -> TypedValue:
    if isinstance(raw, bool):
        return TypedValue(raw, written)
    word = re.split(r"[\s,.;:(]", written.lower(), maxsplit=1)[0]
    if word in _TRUE:
        return TypedValue(True, written)
    if word in _FALSE:
        return TypedValue(False, written)
    return TypedValue(None, written, problem=f"{written} is neither yes nor no")


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", str(text).lower())


def _enum(written: str, allowed: Sequence[str]) -> TypedValue:
    if not allowed:
        return TypedValue(None, written, problem="the form lists no allowed values")
    for value in allowed:
        if str(value).strip().lower() == written.lower():
            return TypedValue(str(value), written)
    squashed = _squash(written)
    same = [v for v in allowed if _squash(v) == squashed]
    if len(same) == 1:
        return TypedValue(str(same[0]), written)
    low = written.lower()
    starts = [v for v in sorted(allowed, key=len, reverse=True)
              if low.startswith(str(v).strip().lower()) and str(v).strip()
              and (len(low) == len(str(v).strip()) or not low[len(str(v).strip())].isalnum())]
    if starts:
        return TypedValue(str(starts[0]), written)
    return TypedValue(None, written, problem=f"{written} is not one of the allowed values")


def _date(raw: Any, written: str) -> TypedValue:
    if isinstance(raw, (date, datetime)):
        return TypedValue(raw if isinstance(raw, date) else raw.date(), written)
    text = re.sub(r"(\d)(?:st|nd|rd|th)\b", r"\1", written.strip().rstrip("."))
    for fmt in _DATE_FORMATS:
        try:
            return TypedValue(datetime.strptime(text, fmt).date(), written)
        except ValueError:
            continue
    return TypedValue(None, written, problem=f"{written} is not a date")


def cell_value(value: TypedValue, allowed: Sequence[str] = ()) -> Any:
    """What the cell gets: a boolean as the drop-down spells yes and no ("YES", "Yes") when the cell has
    one, else True / False; any other value as it is."""
    if isinstance(value.value, bool) and allowed:
        want = _TRUE if value.value else _FALSE
        for option in allowed:
            if _squash(option) in want:
                return str(option)
    return value.value
