"""Numbers with units, pulled out of free text so an answer's figures can be checked against the gold
answer's: "16.2 Mt CO2-e" equals "16,200,000 tonnes CO2e", "US$400 million" equals "US$0.4 billion",
"30 per cent" equals "30%". Pure functions, no I/O.

Not counted as figures: years (a bare integer from 1900 to 2100 such as "2030"), fiscal years and
anything glued to a word ("FY2021", "CO2", the footnote digits in "net zero19"), scope numbers
("Scope 1", "Scope 1+2") and days of a month ("30 June"). A range "US$10-40/tCO2e" gives both ends,
each with the range's currency and unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A numeral not glued to a word on its left: "FY2021", "CO2", "zero19" and "x.5" are not figures.
_NUMERAL = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
_RANGE_JOIN = re.compile(r"^\s?(?:-|–|—|to)\s?(?:US\$|A\$|\$|€|£)?$", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(r"(US\$|A\$|AU\$|C\$|\$|€|£|\bUSD|\bAUD|\bEUR|\bGBP)\s?$", re.IGNORECASE)
_SCOPE = re.compile(r"\bscopes?\s*\d(?:\s*(?:\+|and|&|,|/|-|–)\s*\d)*\b", re.IGNORECASE)
_MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b"
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9,
          "trillion": 1e12}
# unit word -> (dimension, factor to the dimension's base unit)
_UNITS = {
    "%": ("percent", 1.0), "per cent": ("percent", 1.0), "percent": ("percent", 1.0), "pct": ("percent", 1.0),
    "gt": ("mass", 1e9), "mt": ("mass", 1e6), "kt": ("mass", 1e3), "t": ("mass", 1.0),
    "tonnes": ("mass", 1.0), "tonne": ("mass", 1.0), "tons": ("mass", 1.0), "ton": ("mass", 1.0),
    "gl": ("volume", 1e9), "ml": ("volume", 1e6), "kl": ("volume", 1e3),
    "gigalitres": ("volume", 1e9), "gigalitre": ("volume", 1e9), "megalitres": ("volume", 1e6),
    "megalitre": ("volume", 1e6), "litres": ("volume", 1.0), "litre": ("volume", 1.0), "liters": ("volume", 1.0),
    "pj": ("energy", 1e6), "tj": ("energy", 1e3), "gj": ("energy", 1.0), "mj": ("energy", 1e-3),
    "twh": ("energy", 3.6e6), "gwh": ("energy", 3.6e3), "mwh": ("energy", 3.6), "kwh": ("energy", 3.6e-3),
    "°c": ("temperature", 1.0), "degrees": ("temperature", 1.0), "ºc": ("temperature", 1.0),
    "dollars": ("money", 1.0), "usd": ("money", 1.0), "aud": ("money", 1.0), "eur": ("money", 1.0),
}
_SUFFIX = re.compile(
    r"^\s?(?P<scale>thousand|million|billion|trillion|mn|bn|m|b|k)?(?![a-z])\s?"
    r"(?P<unit>%|per cent|percent|pct|gigalitres?|megalitres?|litres?|liters|tonnes?|tons?|degrees|dollars"
    r"|usd|aud|eur|gt|mt|kt|t|gl|ml|kl|pj|tj|gj|mj|twh|gwh|mwh|kwh|°c|ºc)?(?![a-z])"
    r"(?P<per>\s?(?:/|per\s)\s?(?:t|tonne|tco2-?e?|tco2e)\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    value: float  # in the dimension's base unit: tonnes, litres, GJ, currency units, percent points
    raw: float  # the numeral as written ("16.2" in "16.2 Mt")
    dim: str  # "mass", "percent", "volume", "energy", "temperature", "money", "money/t" or "plain"
    text: str  # the matched text, for reports


def extract_quantities(text: str) -> list[Quantity]:
    """Every figure in `text` with its unit normalised (see the module docstring for what is skipped)."""
    text = _SCOPE.sub(lambda m: " " * len(m.group(0)), str(text or ""))
    found = [(m.start(), m.end(), float(m.group(1).replace(",", ""))) for m in _NUMERAL.finditer(text)]
    groups: list[list[tuple[int, int, float]]] = []
    for item in found:
        if groups and _RANGE_JOIN.match(text[groups[-1][-1][1]:item[0]]):
            groups[-1].append(item)  # "10-40", "2 to 4": one range, one unit
        else:
            groups.append([item])
    out: list[Quantity] = []
    for group in groups:
        start, end = group[0][0], group[-1][1]
        currency = bool(_CURRENCY_BEFORE.search(text[max(0, start - 4):start]))
        after = text[end:end + 40]
        if re.match(r"^\s?" + _MONTHS, after, re.IGNORECASE):
            continue  # "30 June 2021": a date, not a figure
        suffix = _SUFFIX.match(after)
        scale_word = (suffix["scale"] or "").lower() if suffix else ""
        unit_word = (suffix["unit"] or "").lower() if suffix else ""
        per_tonne = bool(suffix and suffix["per"])
        if scale_word in ("m", "b", "k") and not currency:
            scale_word = ""  # "100 m" is more likely metres than millions; only "US$100m" is money
            unit_word = ""
        scale = _SCALE.get(scale_word, 1.0)
        dim, factor = _UNITS.get(unit_word, ("plain", 1.0))
        if currency or dim == "money":
            dim, factor = ("money/t" if per_tonne else "money"), 1.0
        label = text[start:end + (suffix.end() if suffix else 0)].strip()
        for _, _, raw in group:
            if dim == "plain" and scale == 1.0 and raw.is_integer() and 1900 <= raw <= 2100 \
                    and "," not in label and len(group) == 1:
                continue  # a year ("by 2030"), not a figure
            out.append(Quantity(raw * scale * factor, raw, dim, label))
    return out


def close(a: float, b: float, tolerance: float) -> bool:
    """Relative closeness to the gold value b; an exact match is needed when b is 0."""
    if b == 0:
        return a == 0
    return abs(a - b) <= tolerance * abs(b)


def quantities_match(answer: Quantity, gold: Quantity, tolerance: float) -> bool:
    """Same dimension: compare normalised values (16.2 Mt == 16,200,000 t). When either side has no
    unit, compare the numerals as written (an answer "16.2" for a gold "16.2 Mt")."""
    if answer.dim == gold.dim:
        return close(answer.value, gold.value, tolerance)
    if "plain" in (answer.dim, gold.dim):
        return close(answer.raw, gold.raw, tolerance)
    return False


@dataclass(frozen=True)
class NumberMatch:
    matched: bool  # at least one gold figure is stated in the answer
    gold_numbers: int
    matched_numbers: int  # gold figures found in the answer

    @property
    def recall(self) -> float:
        return self.matched_numbers / self.gold_numbers if self.gold_numbers else 0.0


def number_match(answer: str, gold: str, tolerance: float = 0.02) -> NumberMatch | None:
    """Does the answer state the gold answer's figures (within `tolerance`, relative)? None when the
    gold answer holds no figure to check."""
    gold_q = list({(q.dim, q.value): q for q in extract_quantities(gold)}.values())  # a figure counts once
    if not gold_q:
        return None
    answer_q = extract_quantities(answer)
    hits = sum(1 for g in gold_q if any(quantities_match(a, g, tolerance) for a in answer_q))
    return NumberMatch(hits > 0, len(gold_q), hits)
