"""checks/numbers.py: every normalisation the figure check relies on, on hand-made text."""

from __future__ import annotations

import pytest

from autofill.checks.numbers import extract_number_words, extract_quantities, extract_years


def one(text):
    (q,) = extract_quantities(text)
    return q


@pytest.mark.parametrize("text, value, dim", [
    # scales
    ("1.234 million tonnes", 1.234e6, "mass"),
    ("1.234m tonnes", 1.234e6, "mass"),
    ("US$1.2bn", 1.2e9, "money"),
    ("US$400m", 4e8, "money"),
    ("5k", 5e3, "plain"),
    ("2.5 thousand MWh", 2.5e3 * 3.6, "energy"),
    # thousands separators and decimals
    ("1,234,000 t", 1.234e6, "mass"),
    ("1\u202f234\u202f000 t", 1.234e6, "mass"),
    ("0.75 GJ", 0.75, "energy"),
    (".5%", 0.5, "percent"),
    # percentages
    ("30%", 30, "percent"),
    ("30 per cent", 30, "percent"),
    ("30 percent", 30, "percent"),
    # units of emissions and energy
    ("987,654 tCO2e", 987654, "mass"),
    ("987,654 t CO2-e", 987654, "mass"),
    ("987,654 tonnes of CO2-e", 987654, "mass"),
    ("16.2 MtCO2e", 16.2e6, "mass"),
    ("16.2 Mt CO2-e", 16.2e6, "mass"),
    ("540 kt CO2e", 540e3, "mass"),
    ("1,000 MWh", 3600, "energy"),
    ("3,600 GJ", 3600, "energy"),
    ("0.5 tCO2e/t copper", 0.5, "mass/t"),
    # negatives
    ("-12%", -12, "percent"),
    ("\u221212%", -12, "percent"),
    ("change: -3.5 per cent", -3.5, "percent"),
])
def test_normalised_value_and_dimension(text, value, dim):
    q = one(text)
    assert q.value == pytest.approx(value) and q.dim == dim


def test_equal_quantities_in_different_formats_normalise_to_one_value():
    values = {round(one(t).value) for t in ("1,234,000 t", "1.234 million tonnes", "1.234 Mt", "1234 kt")}
    assert values == {1234000}
    assert one("1,000 MWh").value == pytest.approx(one("3,600 GJ").value)


def test_precision_is_what_the_figure_claims():
    assert one("16.2 Mt").step == pytest.approx(0.05e6)
    assert one("16 Mt").step == pytest.approx(0.5e6)
    assert one("1,120").step == 0.5


def test_ranges_give_both_ends_with_the_range_unit():
    assert [(q.value, q.dim) for q in extract_quantities("10-40 GJ")] == [(10, "energy"), (40, "energy")]
    assert [(q.value, q.dim) for q in extract_quantities("US$10 to 40/tCO2e")] == [(10, "money/t"), (40, "money/t")]
    # a range is not a negative number
    assert all(q.value > 0 for q in extract_quantities("between 20-30%"))


def test_not_figures():
    # years and year spans, fiscal years, scopes, dates, ordinals, footnote digits glued to words, CO2
    text = ("by 2030 for Scope 1+2 and Scope 3 in FY2021 and FY22 (30 June 2021; June 30, 2020), 2021-22, "
            "2021/22, the 3rd year, net zero19 and CO2 (Report 2024 p. 12; pp. 3-4, page 7, passage 2) [1], [2, 3]")
    assert extract_quantities(text) == []


def test_footnote_digits_glued_to_a_word_do_not_hide_the_figure_next_to_them():
    assert [q.value for q in extract_quantities("emissions23 were 9.5 Mt")] == [9.5e6]


def test_metres_are_not_millions_but_a_figure_with_a_separator_is_no_year():
    assert one("100 m deep").value == 100
    assert one("2,030 t").value == 2030


def test_years_are_read_separately():
    years = [y for y, _ in extract_years("FY2021, FY22, 2021-22, 2019/20, by 2050, 30 June 2020, 2,030 t")]
    assert years == [2021, 2022, 2021, 2022, 2019, 2020, 2050, 2020]


def test_number_words():
    assert [(q.value, q.dim) for q in extract_number_words("three scenarios and fifty per cent")] == \
        [(3, "plain"), (50, "percent")]
