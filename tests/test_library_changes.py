"""Material change between a new answer and the approved one: another verdict or other figures
(units normalised), never mere rewording."""

from __future__ import annotations

from autofill.library.changes import cited_files, cited_pages, material_change, verdict


def test_verdicts():
    assert verdict("Yes. Net zero by 2050.") == "yes"
    assert verdict("No - not yet") == "no"
    assert verdict("Not disclosed in the reports") == "not disclosed"
    assert verdict("Nothing to say") == ""
    assert verdict("Partially: only Scope 1", ["Yes", "No", "Partially"]) == "partially"


def test_another_verdict_is_a_material_change():
    assert "verdict" in material_change("No. The target was withdrawn.", "Yes. Net zero by 2050.")
    assert "verdict" in material_change("Not disclosed", "46% of electricity was renewable.")
    assert material_change("Yes, the company targets net zero by 2050.", "Yes. Net zero by 2050.") == ""


def test_other_figures_are_a_material_change_and_units_are_normalised():
    assert "figures" in material_change("52% in FY2024.", "46% in FY2024.")
    assert "figures" in material_change("Scope 1: 1,300 kt CO2e.", "Scope 1: 1,120 kt CO2e.")
    assert material_change("16,200,000 tonnes CO2-e", "16.2 Mt CO2-e") == ""
    assert material_change("Renewables were 46 per cent.", "46% renewable electricity") == ""
    # A figure of a kind the approved answer did not state is no contradiction.
    assert material_change("46% renewable; 12.4 GL water", "46% renewable") == ""


def test_cited_files_and_pages():
    s = "BHP Climate Change Report 2020.pdf p. 9; Plan.pdf pp. 4-5; BHP Climate Change Report 2020.pdf p. 10"
    assert cited_files(s) == ["BHP Climate Change Report 2020.pdf", "Plan.pdf"]
    assert cited_pages(s) == [("BHP Climate Change Report 2020.pdf", 9), ("Plan.pdf", 4),
                              ("BHP Climate Change Report 2020.pdf", 10)]
    assert cited_files("") == []
    printed = "BHP Climate Change Report 2020.pdf p. 26 (printed 24); Plan.pdf p. 3"
    assert cited_files(printed) == ["BHP Climate Change Report 2020.pdf", "Plan.pdf"]
    assert cited_pages(printed) == [("BHP Climate Change Report 2020.pdf", 26), ("Plan.pdf", 3)]
