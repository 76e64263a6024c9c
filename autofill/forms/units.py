"""The units a form asks for and the conversion of a reported figure into them. Pure.

A form names its unit in a label ("Total energy consumption in MWh"), a unit cell ("metric tonnes (t)")
or a datapoint's own unit ("tCO2e"); a report writes the figure in its own ("16.2 Mt CO2-e", "10.4 PJ",
"1,234 megalitres", "25,000 m3"). Both are read into a `Unit` (dimension and factor to the dimension's
base unit, the same bases as checks/numbers.py: tonnes, GJ, litres, percent points), and a figure
converts from one to the other only within a dimension: 16.2 Mt CO2e is 16,200 kt or 16,200,000 t;
10.4 PJ is 10,400,000 GJ or 2,888,889 MWh; 1,234 megalitres is 1,234,000 m3.

checks/numbers.py does not know cubic metres (it reads "m3" as a bare figure): `normalise_units` writes
them as kilolitres, which it does know (1 m3 = 1 kL), before a text is read for figures."""

from __future__ import annotations

import re
from dataclasses import dataclass

from autofill.checks.numbers import Quantity, extract_quantities


@dataclass(frozen=True)
class Unit:
    symbol: str  # as shown to people and the model: "t CO2e", "MWh", "m3"
    dim: str  # "mass", "energy", "volume", "percent", "money", "plain" (a count, hours, a ratio)
    factor: float  # one of this unit in the dimension's base unit (t, GJ, litres, percent points)


# Spellings -> unit, longest first when matched. Mass in tonnes, energy in GJ, volume in litres.
_SPELLINGS: list[tuple[str, Unit]] = [
    (r"g\s?t\s?co2-?e(?:q)?|gigatonnes?", Unit("Gt CO2e", "mass", 1e9)),
    (r"m\s?t\s?co2-?e(?:q)?|million (?:metric )?tonnes?(?: of)?(?: co2-?e(?:q)?)?|megatonnes?|\bmt\b",
     Unit("Mt CO2e", "mass", 1e6)),
    (r"k\s?t\s?co2-?e(?:q)?|thousand (?:metric )?tonnes?|kilotonnes?|\bkt\b", Unit("kt CO2e", "mass", 1e3)),
    (r"t\s?co2-?e(?:q)?|tonnes? (?:of )?co2-?e(?:q)?|metric tonnes?|tonnes?|\btons?\b|\bt\b", Unit("t", "mass", 1.0)),
    (r"\bkg\b|kilograms?", Unit("kg", "mass", 1e-3)),
    (r"\bpj\b|petajoules?", Unit("PJ", "energy", 1e6)),
    (r"\btj\b|terajoules?", Unit("TJ", "energy", 1e3)),
    (r"\bgj\b|gigajoules?", Unit("GJ", "energy", 1.0)),
    (r"\bmj\b|megajoules?", Unit("MJ", "energy", 1e-3)),
    (r"\btwh\b|terawatt[- ]hours?", Unit("TWh", "energy", 3.6e6)),
    (r"\bgwh\b|gigawatt[- ]hours?", Unit("GWh", "energy", 3.6e3)),
    (r"\bmwh\b|megawatt[- ]hours?", Unit("MWh", "energy", 3.6)),
    (r"\bkwh\b|kilowatt[- ]hours?", Unit("kWh", "energy", 3.6e-3)),
    (r"\bgl\b|gigalitres?|gigaliters?", Unit("GL", "volume", 1e9)),
    (r"megalitres?|megaliters?|\bml\b", Unit("ML", "volume", 1e6)),
    (r"m3\b|m³|cubic met(?:re|er)s?", Unit("m3", "volume", 1e3)),
    (r"\bkl\b|kilolitres?|kiloliters?", Unit("kL", "volume", 1e3)),
    (r"\blitres?\b|\bliters?\b|\bl\b", Unit("L", "volume", 1.0)),
    (r"%|per ?cent|percentage", Unit("%", "percent", 1.0)),
    (r"\beur\b|€|euros?", Unit("EUR", "money", 1.0)),
    (r"\busd\b|us\$|dollars?", Unit("USD", "money", 1.0)),
]
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_COMPILED = [(re.compile(pattern, re.IGNORECASE), unit) for pattern, unit in _SPELLINGS]
_CUBIC = re.compile(r"(?<=[\d\s])(?:m3|m³|cubic met(?:re|er)s?)(?![\w])", re.IGNORECASE)


def parse_unit(text: str) -> Unit | None:
    """The unit a form's text names ("metric tonnes (t)", "in MWh", "tCO2e", "m3"), or None. A label
    naming several ("Total energy (MWh) ... 1 GJ = ...") gives the first one it writes."""
    text = str(text or "").translate(_SUBSCRIPTS)  # "tCO₂e" as "tCO2e"
    best: tuple[int, int, Unit] | None = None
    for i, (pattern, unit) in enumerate(_COMPILED):
        m = pattern.search(text)
        if m and (best is None or (m.start(), i) < best[:2]):
            best = (m.start(), i, unit)
    return best[2] if best else None


_IN_LABEL = re.compile(r"\(([^()]{1,30})\)|\bin\s+([A-Za-z%€$³0-9 .-]{1,25}?)(?=$|[\s,;:)])")


def unit_in_label(label: str) -> Unit | None:
    """The unit a label names in brackets or after "in" ("Scope 1 (tCO2e)", "Total energy consumption in
    MWh"), or None; the rest of a label is never read for a unit ("don't" is no tonne)."""
    for m in _IN_LABEL.finditer(str(label or "")):
        unit = parse_unit(m.group(1) or m.group(2))
        if unit is not None:
            return unit
    return None


# The unit a concept is reported in when its form does not say it beside the cell (VSME's XBRL taxonomy:
# GHG emissions in tCO2e, energy in MWh, water in m3), by the words of its named range.
_BY_CONCEPT = [(re.compile(r"greenhousegas|ghg", re.IGNORECASE), "tCO2e"),
               (re.compile(r"energyconsumption|energyfrom", re.IGNORECASE), "MWh"),
               (re.compile(r"water(?:withdrawn|withdrawal|consumption|discharge)|amountofwater", re.IGNORECASE), "m3")]


def unit_of_concept(key: str) -> Unit | None:
    """The unit a named range's concept is reported in, when its words say it (`_BY_CONCEPT`); intensities
    (per turnover) have none."""
    if re.search(r"intensity|percentage|rate|ratio|year", key, re.IGNORECASE):
        return None
    for pattern, unit in _BY_CONCEPT:
        if pattern.search(key):
            return parse_unit(unit)
    return None


def convertible(source: Unit | None, target: Unit | None) -> bool:
    return source is not None and target is not None and source.dim == target.dim


def convert(value: float, source: Unit, target: Unit) -> float:
    """`value` in `source` expressed in `target` (same dimension; ValueError otherwise)."""
    if source.dim != target.dim:
        raise ValueError(f"{source.symbol} cannot be converted to {target.symbol}")
    return value * source.factor / target.factor


def normalise_units(text: str) -> str:
    """`text` with cubic metres written as kilolitres (1 m3 = 1 kL), the one unit of the forms' that
    checks/numbers.py does not read: "25,000 m3" -> "25,000 kl"."""
    return _CUBIC.sub("kl", str(text or ""))


def quantities(text: str) -> list[Quantity]:
    """Figures of `text` with their units (checks/numbers.extract_quantities on `normalise_units`)."""
    return extract_quantities(normalise_units(text))


def in_unit(q: Quantity, target: Unit) -> float | None:
    """A figure read by checks/numbers.py in the form's unit; None when its unit is another dimension.
    A bare figure (a table cell whose unit is in its header) is None too: its unit is not known here."""
    if q.dim != target.dim:
        return None
    return q.value / target.factor


def display(value: float, unit: Unit | None) -> str:
    """A value as a reviewer reads it: "16,200,000 t", "2,888,888.89 MWh", "12.5 %"."""
    text = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.6g}" if abs(value) < 1 else f"{value:,.2f}"
    return f"{text} {unit.symbol}" if unit is not None else text
