"""Numbers with units, pulled out of free text so figures can be compared whatever their format:
"16.2 Mt CO2-e" equals "16,200,000 tCO2e", "US$400 million" equals "US$0.4 billion", "30 per cent"
equals "30%", "1.234m" equals "1,234,000". Used by the trust checks (an answer's figures against its
cited passages) and by eval (an answer's figures against the gold answer's). Pure functions, no I/O.

Not counted as figures: years (a bare integer from 1900 to 2100 such as "2030", and spans such as
"2021-22" or "2021/22"; `extract_years` reads those), fiscal years and anything glued to a word
("FY2021", "CO2", the footnote digits in "net zero19"), scope numbers ("Scope 1", "Scope 1+2") and
days of a month ("30 June", "June 30"), and page or passage references ("p. 12", "[2]"). A range "US$10-40/tCO2e" gives both ends, each with the
range's currency and unit. A minus sign ("-12%", "−12%") makes a figure negative.

Reports and answers in German, French and Spanish write figures their way, and those are read too
(issue 33): a decimal comma ("16,2 Mt", "1.234,5 t", "16 200,5" with a no-break space), dots between
thousands when there are two or more groups ("16.200.000"), the scale words "Tsd.", "Mio.", "Millionen",
"Mrd.", "Milliarden", "millions", "milliards", "millones", "mil millones", the units "Tonnen",
"toneladas", "Prozent", "pour cent", "por ciento", "€" after the figure, "t CO2-Äq.", fiscal years
"GJ2021", and dates "30. Juni", "30 juin", "30 de junio". A lone "1.234" or "1,234" stays English
(1.234 and 1234): nothing in the figure itself says otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A numeral not glued to a word on its left: "FY2021", "CO2", "zero19" and "x.5" are not figures.
# Thousands separators: comma, or a (narrow) no-break space as some reports print them.
# Then the continental forms: "1.234,5", "16.200.000", "16,2" (a comma before one or two digits is never an
# English thousands separator).
_NUMERAL = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2,}(?![\d,])"
                      r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!,\d)|\d{1,3}(?:[\u00a0\u202f]\d{3})+(?:[.,]\d+)?"
                      r"|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?|\.\d+)")
_RANGE_JOIN = re.compile(r"^\s?(?:-|–|—|to)\s?(?:US\$|A\$|\$|€|£)?$", re.IGNORECASE)
_NEGATIVE_BEFORE = re.compile(r"(?:^|[\s(|:=])[-−–]\s?$")
_CURRENCY_BEFORE = re.compile(r"(US\$|A\$|AU\$|C\$|\$|€|£|\bUSD|\bAUD|\bEUR|\bGBP)\s?$", re.IGNORECASE)
_SCOPE = re.compile(r"\bscopes?\s*\d(?:\s*(?:\+|and|&|,|/|-|–)\s*\d)*\b", re.IGNORECASE)
# Page and passage references inside an answer: "p. 12", "pp. 3-4", "page 7", "[2]", "passage 3".
_REFERENCE = re.compile(r"\b(?:pp?\.|pages?|passages?)\s*\d+(?:\s*[-–]\s*\d+)?|\[\d+(?:\s*[,;]\s*\d+)*\]",
                        re.IGNORECASE)
_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
           r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
           r"|januar|februar|märz|mai|juni|juli|oktober|dezember"  # German (the rest as in English)
           r"|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre"
           r"|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)\b")
_DAY_OF = re.compile(r"^(?:\.\s?|\s(?:de\s)?)" + _MONTHS, re.IGNORECASE)  # "30. Juni", "30 de junio"
_MONTH_BEFORE = re.compile(_MONTHS.replace(r"\b", "") + r"\.?\s$", re.IGNORECASE)
# "2021-22", "2021/22", "2020-2030", "FY2021", "FY21", "CY2020": read as years, never as figures.
YEAR_SPAN = re.compile(r"(?<![\w.,])((?:19|20)\d{2})\s?[-–/]\s?((?:19|20)?\d{2})(?![\w.,]?\d)")
FISCAL = re.compile(r"\b(?:FY|CY|GJ)\s?'?((?:19|20)?\d{2})(?:\s?[-–/]\s?((?:19|20)?\d{2}))?(?!\d)", re.IGNORECASE)
YEAR = re.compile(r"(?<![\w.])(?<!\d,)((?:19|20)\d{2})(?!\w|[,.]\d)")
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9,
          "trillion": 1e12, "millions": 1e6, "billions": 1e9,
          "tsd": 1e3, "tausend": 1e3, "mio": 1e6, "millionen": 1e6, "million": 1e6, "mrd": 1e9, "milliarden": 1e9,
          "milliarde": 1e9, "milliard": 1e9, "milliards": 1e9, "millones": 1e6, "millón": 1e6,
          "mil millones": 1e9, "miles de millones": 1e9}
# unit word -> (dimension, factor to the dimension's base unit)
_CO2 = r"\s?(?:of\s)?co(?:2|₂)[\s-]?(?:e(?:q)?|äq\.?)"  # "CO2e", "CO2-e", "CO₂e", "of CO2-eq", "CO2-Äq."
_UNITS = {
    "%": ("percent", 1.0), "per cent": ("percent", 1.0), "percent": ("percent", 1.0), "pct": ("percent", 1.0),
    "gt": ("mass", 1e9), "mt": ("mass", 1e6), "kt": ("mass", 1e3), "t": ("mass", 1.0), "kg": ("mass", 1e-3),
    "tonnes": ("mass", 1.0), "tonne": ("mass", 1.0), "tons": ("mass", 1.0), "ton": ("mass", 1.0),
    "gl": ("volume", 1e9), "ml": ("volume", 1e6), "kl": ("volume", 1e3),
    "gigalitres": ("volume", 1e9), "gigalitre": ("volume", 1e9), "megalitres": ("volume", 1e6),
    "megalitre": ("volume", 1e6), "litres": ("volume", 1.0), "litre": ("volume", 1.0), "liters": ("volume", 1.0),
    "pj": ("energy", 1e6), "tj": ("energy", 1e3), "gj": ("energy", 1.0), "mj": ("energy", 1e-3),
    "twh": ("energy", 3.6e6), "gwh": ("energy", 3.6e3), "mwh": ("energy", 3.6), "kwh": ("energy", 3.6e-3),
    "gw": ("power", 1e6), "mw": ("power", 1e3), "kw": ("power", 1.0),
    "ha": ("area", 1.0), "hectares": ("area", 1.0), "km2": ("area", 100.0),
    "°c": ("temperature", 1.0), "degrees": ("temperature", 1.0), "ºc": ("temperature", 1.0),
    "dollars": ("money", 1.0), "usd": ("money", 1.0), "aud": ("money", 1.0), "eur": ("money", 1.0),
    "tonnen": ("mass", 1.0), "toneladas": ("mass", 1.0), "prozent": ("percent", 1.0), "pour cent": ("percent", 1.0),
    "por ciento": ("percent", 1.0), "€": ("money", 1.0), "euro": ("money", 1.0), "euros": ("money", 1.0),
}
_SUFFIX = re.compile(
    r"^(?P<space>\s?)(?P<scale>thousand|millions|million|billions|billion|trillion|mn|bn|m|b|k"
    r"|tausend|millionen|milliarden|milliarde|milliards|milliard|millones|millón|mil millones"
    r"|miles de millones|(?:tsd|mio|mrd)\.?)?(?![a-zäöüéó])\s?"
    r"(?P<unit>%|per cent|percent|pct|prozent|pour cent|por ciento|gigalitres?|megalitres?|litres?|liters"
    r"|tonnen|toneladas|tonnes?|tons?|degrees|dollars|euros?|€"
    r"|hectares|usd|aud|eur|gt|mt|kt|kg|t|gl|ml|kl|pj|tj|gj|mj|twh|gwh|mwh|kwh|gw|mw|kw|ha|km2|°c|ºc)?"
    r"(?P<co2>" + _CO2 + r")?(?![a-z])"
    r"(?P<per>\s?(?:/|per\s)\s?(?:t|tonnes?|tco2-?e?|tco2e|mwh|gj|kg|unit|employee|hour|m)\b)?",
    re.IGNORECASE,
)
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                      "ninety": 90, "hundred": 100, "half": 50})
_WORD_NUMBER = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_WORD_PERCENT = re.compile(r"^\s?(?:per\s?cent|percent|%)", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    value: float  # in the dimension's base unit: tonnes, litres, GJ, currency units, percent points
    raw: float  # the numeral as written ("16.2" in "16.2 Mt"), without its sign
    dim: str  # "mass", "percent", "volume", "energy", "power", "area", "temperature", "money",
    #           "money/t", a "<dim>/<per>" intensity, or "plain"
    text: str  # the matched text, for reports ("987,654 tCO2e")
    decimals: int = 0  # digits written after the decimal point: the precision the figure claims
    multiplier: float = 1.0  # scale x unit factor: value = +-raw x multiplier
    start: int = -1  # where the figure starts in the text (its currency sign, if any)

    @property
    def step(self) -> float:
        """Half a unit of the last written digit, in base units: "16.2 Mt" claims 16.15 to 16.25 Mt."""
        return 0.5 * 10 ** -self.decimals * self.multiplier


def _blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def extract_quantities(text: str) -> list[Quantity]:
    """Every figure in `text` with its unit normalised (see the module docstring for what is skipped)."""
    text = str(text or "")
    for pattern in (_SCOPE, _REFERENCE, YEAR_SPAN, FISCAL):
        text = _blank(text, pattern)
    found = [(m.start(), m.end(), m.group(1)) for m in _NUMERAL.finditer(text)]
    groups: list[list[tuple[int, int, str]]] = []
    for item in found:
        if groups and _RANGE_JOIN.match(text[groups[-1][-1][1]:item[0]]):
            groups[-1].append(item)  # "10-40", "2 to 4": one range, one unit
        else:
            groups.append([item])
    out: list[Quantity] = []
    for group in groups:
        start, end = group[0][0], group[-1][1]
        money = _CURRENCY_BEFORE.search(text[max(0, start - 4):start])
        currency = money is not None
        negative = bool(_NEGATIVE_BEFORE.search(text[max(0, start - 3):start])) and not currency
        after = text[end:end + 40]
        if re.match(r"^(?:st|nd|rd|th)\b", after, re.IGNORECASE):
            continue  # "1st", "3rd": ordinals, not figures
        if re.match(r"^\s?" + _MONTHS, after, re.IGNORECASE) or _DAY_OF.match(after) \
                or _MONTH_BEFORE.search(text[max(0, start - 10):start]):
            continue  # "30 June 2021", "June 30": a date, not a figure
        suffix = _SUFFIX.match(after)
        scale_word = (suffix["scale"] or "").lower().rstrip(".") if suffix else ""
        unit_word = (suffix["unit"] or "").lower() if suffix else ""
        if suffix and suffix["co2"] and not unit_word and scale_word in ("m", "k", "b"):
            unit_word, scale_word = {"m": "mt", "k": "kt", "b": "gt"}[scale_word], ""  # "16.2 MtCO2e" read as M + t
        per = (suffix["per"] or "").strip().lstrip("/").replace("per ", "").strip().lower() if suffix else ""
        if scale_word in ("m", "b", "k") and not currency:
            # "100 m" is more likely metres than millions; "US$100m", "1.2m tCO2e" and "5k" are scales.
            glued = suffix is not None and not suffix["space"]
            if not (unit_word or (glued and scale_word == "k")):
                scale_word = ""
                unit_word = ""
        scale = _SCALE.get(scale_word, 1.0)
        dim, factor = _UNITS.get(unit_word, ("plain", 1.0))
        if currency or dim == "money":
            dim, factor = ("money/t" if per in ("t", "tonne", "tonnes", "tco2e", "tco2-e", "tco2") else "money"), 1.0
        elif per and dim != "plain":
            dim = f"{dim}/{per}"
        label = (money.group(1) if money else "") + text[start:end + (suffix.end() if suffix else 0)].strip()
        if negative:
            label = "-" + label
        for _, _, numeral in group:
            raw, decimals = parse_numeral(numeral)
            if dim == "plain" and scale == 1.0 and raw.is_integer() and 1900 <= raw <= 2100 \
                    and not re.search(r"[,.\u00a0\u202f]", numeral) and len(group) == 1:
                continue  # a year ("by 2030"), not a figure
            sign = -1.0 if negative and len(group) == 1 else 1.0
            out.append(Quantity(sign * raw * scale * factor, raw, dim, label, decimals, scale * factor,
                                start - (len(money.group(0)) if money else 0)))
    return out


def parse_numeral(numeral: str) -> tuple[float, int]:
    """(value, digits after the decimal mark) of a numeral _NUMERAL found, English or continental:
    "1,234.5" and "1.234,5" are both 1234.5; "16,2" is 16.2; "16.200.000" is 16200000."""
    n = numeral.replace("\u00a0", "").replace("\u202f", "")
    comma, dot = n.rfind(","), n.rfind(".")
    if comma > dot and (dot >= 0 or len(n) - comma - 1 != 3 or "\u00a0" in numeral or "\u202f" in numeral):
        whole, frac = n[:comma].replace(".", ""), n[comma + 1:]  # the comma is the decimal mark
    elif n.count(".") > 1:
        whole, frac = n.replace(".", ""), ""  # dots between thousands
    else:
        whole, _, frac = n.replace(",", "").partition(".")
    return float(f"{whole or 0}.{frac or 0}"), len(frac)


def extract_number_words(text: str) -> list[Quantity]:
    """Numbers written as words ("three scenarios", "fifty per cent"): passages spell out what answers
    write as numerals. Plain, or percent when "per cent" follows."""
    out = []
    for m in _WORD_NUMBER.finditer(str(text or "")):
        n = float(_NUMBER_WORDS[m.group(1).lower()])
        pct = bool(_WORD_PERCENT.match(text[m.end():m.end() + 10]))
        out.append(Quantity(n, n, "percent" if pct else "plain", m.group(0), start=m.start()))
    return out


def extract_years(text: str) -> list[tuple[int, str]]:
    """Years stated in `text`, with the text that states them: "2030", "FY2021" and "FY21" (2021),
    "2021-22" and "2021/22" (2021 and 2022). Figures with thousands separators ("2,030") are not years."""
    text = _blank(str(text or ""), _SCOPE)
    found: list[tuple[int, str]] = []

    def full(y: str, base: int | None) -> int:
        if len(y) == 4:
            return int(y)
        century = (base // 100 * 100) if base else 2000
        return century + int(y)

    for m in FISCAL.finditer(text):
        first = full(m.group(1), None)
        found.append((first, m.group(0)))
        if m.group(2):
            found.append((full(m.group(2), first), m.group(0)))
    text = _blank(text, FISCAL)
    for m in YEAR_SPAN.finditer(text):
        first = int(m.group(1))
        second = full(m.group(2), first)
        found.append((first, m.group(0)))
        if second != first:
            found.append((second, m.group(0)))
    text = _blank(text, YEAR_SPAN)
    found += [(int(m.group(1)), m.group(1)) for m in YEAR.finditer(text)]
    return [(y, t) for y, t in found if 1900 <= y <= 2100]


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
