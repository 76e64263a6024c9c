"""checks/figures.py: an answer's figures and years against hand-made cited passages."""

from __future__ import annotations

from autofill.checks.figures import check_figures, check_years
from autofill.records import Passage, Severity

TABLE = """| Emissions (kt CO2-e) | FY2023 | FY2022 |
| --- | --- | --- |
| Scope 1 | 1,120 | 1,180 |
| Scope 2 (market-based) | 540 | 610 |"""
PROSE = ("Total operational emissions were 16.2 Mt CO2-e in FY2023, 1.234 million tonnes of it from "
         "our smelters. Renewable electricity made up 46.3 per cent of consumption; water use fell 12%. "
         "We modelled three scenarios and energy use was 3,600 GJ.")


def p(text, page=1, file="Report 2023.pdf"):
    return Passage(chunk_id=f"c{page}", file_name=file, page_start=page, page_end=page, section="", text=text)


def failed(checks):
    return [c.reason for c in checks if not c.passed]


def test_figures_in_any_format_of_the_cited_passage_pass():
    cited = [p(PROSE), p(TABLE, 2)]
    for answer in ("16.2 MtCO2e", "16,200,000 tCO2e", "about 16 Mt CO2-e", "1,234,000 t", "1.234m tonnes",
                   "46.3%", "46%", "a 12 per cent fall", "-12%", "3 scenarios", "1,000 MWh", "1,120 kt CO2e",
                   "Scope 2 market-based: 540 kt"):
        checks = check_figures(answer, cited)
        assert failed(checks) == [], answer
        assert checks and checks[0].passed


def test_a_figure_absent_from_the_cited_passages_is_named():
    checks = check_figures("Scope 1 emissions were 987,654 tCO2e and 46%.", [p(PROSE)])
    assert failed(checks) == ["987,654 tCO2e not in cited passages"]
    assert checks[0].severity is Severity.HARD


def test_changed_figures_are_caught():
    cited = [p(PROSE), p(TABLE, 2)]
    for answer in ("17.0 Mt CO2-e", "1,176 kt", "48.6%", "1.3 million tonnes", "4,000 GJ", "1 MWh"):
        assert failed(check_figures(answer, cited)), answer


def test_a_figure_found_only_in_an_uncited_passage_is_named_as_such():
    checks = check_figures("1,180 kt in FY2022", [p(PROSE)], uncited=[p(TABLE, 7)])
    assert failed(checks) == ["1,180 kt not in cited passages (found only in uncited Report 2023.pdf p. 7)"]


def test_no_citation_and_no_figures():
    assert failed(check_figures("46%", [])) == ["46% has no cited passage"]
    assert check_figures("Yes, the board oversees it.", [p(PROSE)]) == []


def test_units_must_agree_when_both_sides_have_one():
    # 16.2 in the passage is a mass; "16.2%" is not it
    assert failed(check_figures("16.2%", [p("Emissions were 16.2 Mt.")]))


def test_years_are_checked_separately():
    cited = [p(PROSE)]
    assert failed(check_years("16.2 Mt in FY2023", cited)) == []
    assert failed(check_years("16.2 Mt in FY2021", cited)) == ["FY2021 not in cited passages"]
    # the cited report's own year, when the answer names the report by it
    assert failed(check_years("The 2023 Sustainability Report says so", [p("no year here")], known={2023})) == []
    assert failed(check_years("Emissions fell in 2023", [p("no year here")], known={2023})) == [
        "2023 not in cited passages"]
    assert failed(check_years("1,180 in FY22", [p(PROSE)], [p(TABLE, 3)])) == [
        "FY22 (2022) not in cited passages (found only in uncited Report 2023.pdf p. 3)"]
    assert check_years("no years", cited) == []
