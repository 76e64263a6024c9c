"""checks/numbers.py: every normalisation the figure check relies on, on hand-made text."""

from __future__ import annotations

import pytest

from autofill.checks.numbers import extract_number_words, extract_quantities, extract_years, quantities_match


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


@pytest.mark.parametrize("text, value, dim", [
    ("16,2 Mio. t CO2e", 16.2e6, "mass"),  # German: decimal comma, "Mio.", "t CO2e"
    ("16.200.000 t CO2-Äq.", 16.2e6, "mass"),  # dots between thousands (two groups or more)
    ("1.234,5 Tonnen", 1234.5, "mass"),
    ("400 Mio. €", 400e6, "money"),
    ("1,5 Mrd. EUR", 1.5e9, "money"),
    ("4,5 Milliarden Euro", 4.5e9, "money"),
    ("30 %", 30.0, "percent"),
    ("30 Prozent", 30.0, "percent"),
    ("12,5 pour cent", 12.5, "percent"),  # French
    ("2,3 millions de tonnes", 2.3e6, "plain"),
    ("3 milliards d'euros", 3e9, "plain"),
    ("12,4 por ciento", 12.4, "percent"),  # Spanish
    ("3,2 mil millones", 3.2e9, "plain"),
    ("16\u202f200,5 t", 16200.5, "mass"),  # a narrow no-break space between thousands, a decimal comma
])
def test_figures_in_german_french_and_spanish(text, value, dim):
    (q,) = extract_quantities(text)
    assert q.value == pytest.approx(value) and q.dim == dim, q


def test_continental_and_english_figures_match_each_other():
    english, german = extract_quantities("16.2 Mt CO2-e"), extract_quantities("16,2 Mio. t CO2e")
    assert quantities_match(german[0], english[0], 0.001)
    assert extract_quantities("0,5 %")[0].decimals == 1
    # A lone group after a dot or a comma stays English: nothing in "1.234" says it is German.
    assert extract_quantities("1.234 t")[0].value == pytest.approx(1.234)
    assert extract_quantities("1,234 t")[0].value == 1234.0


def test_dates_and_fiscal_years_in_other_languages_are_not_figures():
    assert extract_quantities("Am 30. Juni 2021 lagen sie bei 5,4 Mt.")[0].value == pytest.approx(5.4e6)
    assert len(extract_quantities("Am 30. Juni 2021 lagen sie bei 5,4 Mt.")) == 1
    assert extract_quantities("au 30 juin 2021") == [] and extract_quantities("el 30 de junio de 2021") == []
    assert [y for y, _ in extract_years("im GJ2021 und bis 2030")] == [2021, 2030]
    assert [y for y, _ in extract_years("GJ 2021/22")] == [2021, 2022]
