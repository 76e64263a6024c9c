"""forms/units.py and forms/values.py: the form's unit read from its text, figures converted into it, and
a typed value read from what a model wrote (messy spellings, refusals)."""

from __future__ import annotations

from datetime import date

import pytest

from autofill.forms.units import convert, display, in_unit, parse_unit, quantities, unit_in_label
from autofill.forms.values import TypedValue, ValueType, cell_value, parse_value

T, MWH, M3 = parse_unit("metric tonnes (t)"), parse_unit("MWh"), parse_unit("m3")


@pytest.mark.parametrize("text,symbol,factor", [
    ("metric tonnes (t)", "t", 1.0), ("tCO2e", "t", 1.0), ("Mt CO2-e", "Mt CO2e", 1e6), ("kt", "kt CO2e", 1e3),
    ("kg", "kg", 1e-3), ("PJ", "PJ", 1e6), ("GJ", "GJ", 1.0), ("MWh", "MWh", 3.6), ("kWh", "kWh", 3.6e-3),
    ("m3", "m3", 1e3), ("m³", "m3", 1e3), ("tCO₂e", "t", 1.0), ("MtCO₂e", "Mt CO2e", 1e6), ("megalitres", "ML", 1e6), ("%", "%", 1.0)])
def test_form_units_are_read(text, symbol, factor):
    unit = parse_unit(text)
    assert unit is not None and unit.symbol == symbol and unit.factor == factor


def test_a_label_names_its_unit_only_in_brackets_or_after_in():
    assert unit_in_label("Total energy consumption in MWh") == MWH
    assert unit_in_label("Gross Scope 1 GHG emissions (tCO2e)") == T
    assert unit_in_label("We don't report it") is None and unit_in_label("Number of employees") is None


def test_conversions_within_a_dimension_only():
    assert convert(16.2, parse_unit("Mt"), T) == pytest.approx(16_200_000)
    assert convert(10.4, parse_unit("PJ"), MWH) == pytest.approx(2_888_888.889, rel=1e-6)
    assert convert(1_234, parse_unit("megalitres"), M3) == pytest.approx(1_234_000)
    with pytest.raises(ValueError):
        convert(1.0, parse_unit("PJ"), T)


def test_report_figures_in_the_forms_units():
    found = {q.text: q for q in quantities("Withdrawn 25,000 m3; 16.2 Mt CO2-e; 10.4 PJ; 3,100 ML of water")}
    assert in_unit(found["25,000 kl"], M3) == pytest.approx(25_000)
    assert in_unit(found["3,100 ML"], M3) == pytest.approx(3_100_000)
    assert in_unit(found["16.2 Mt CO2-e"], T) == pytest.approx(16_200_000)
    assert in_unit(found["10.4 PJ"], T) is None
    assert display(2_888_888.888, MWH) == "2,888,888.89 MWh"


@pytest.mark.parametrize("raw,unit,written_unit,want", [
    ("16.2 Mt CO2e", T, "", 16_200_000), ("16,200,000", T, "t", 16_200_000), (16.2, T, "Mt", 16_200_000),
    ("16,2 Mt", T, "", 16_200_000), ("10.4 PJ", MWH, "", pytest.approx(2_888_888.889, rel=1e-6)),
    ("2020", None, "", 2020), ("-12", None, "", -12), ("1,234 megalitres", M3, "", 1_234_000)])
def test_numbers_are_read_and_converted(raw, unit, written_unit, want):
    value = parse_value(raw, ValueType.NUMBER, unit, written_unit=written_unit)
    assert value.ok and value.value == (want if not isinstance(want, (int, float)) else pytest.approx(want))


@pytest.mark.parametrize("raw,unit,problem", [
    ("10 PJ", T, "cannot be written as t"), ("about 5 or 6 Mt", T, "more than one figure"),
    ("Not disclosed", T, "not disclosed"), ("", T, "not disclosed"), ("lots", T, "not a number"),
    (True, T, "not a number")])
def test_numbers_that_are_refused(raw, unit, problem):
    value = parse_value(raw, ValueType.NUMBER, unit)
    assert not value.ok and problem in value.problem


def test_integers_booleans_enums_dates_text():
    assert parse_value("151 employees", ValueType.INTEGER).value == 151
    assert "whole number" in parse_value("151.5", ValueType.INTEGER).problem
    assert parse_value("Yes, the policy covers all sites.", ValueType.BOOLEAN).value is True
    assert parse_value(False, ValueType.BOOLEAN).value is False
    assert parse_value("nein", ValueType.BOOLEAN).value is False
    assert not parse_value("perhaps", ValueType.BOOLEAN).ok
    allowed = ["Full-time equivalent (FTE)", "Headcount"]
    assert parse_value("full-time equivalent (fte)", ValueType.ENUM, allowed=allowed).value == allowed[0]
    assert parse_value("Full time equivalent FTE", ValueType.ENUM, allowed=allowed).value == allowed[0]
    assert parse_value("Headcount, at year end", ValueType.ENUM, allowed=allowed).value == "Headcount"
    assert not parse_value("Average", ValueType.ENUM, allowed=allowed).ok
    assert parse_value("30 June 2023", ValueType.DATE).value == date(2023, 6, 30)
    assert parse_value("2023-12-31", ValueType.DATE).value == date(2023, 12, 31)
    assert parse_value("A plan.", ValueType.TEXT).value == "A plan."


def test_a_boolean_takes_the_drop_downs_spelling():
    assert cell_value(TypedValue(True, "yes"), ["YES", "NO"]) == "YES"
    assert cell_value(TypedValue(False, "no"), ["Yes", "No"]) == "No"
    assert cell_value(TypedValue(True, "yes")) is True
