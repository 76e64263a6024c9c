"""checks/ties.py: years, scopes and bases tied to the figures they qualify, on hand-made passages."""

from __future__ import annotations

from autofill.checks.figures import check_years
from autofill.checks.scope import check_scope
from autofill.checks.ties import answer_clauses, check_document_years, check_ties, document_years, passage_units
from autofill.records import Passage, Severity

# A PDF page as PyMuPDF reads it: lines broken mid-sentence, bullets, several years everywhere.
PAGE = """Our commitments are:
\uf0b7 A short-term target to maintain operational GHG emissions at or below FY2017 levels17 by FY2022,
while we continue to grow our business
\uf0b7 A medium-term target to reduce operational GHG emissions by at least 30 per cent from FY2020
levels18 by FY2030
In FY2021, we retired 300,000 carbon offsets. Scope 1 emissions were 12.3 Mt CO2-e in FY2021, and
Scope 2 emissions (market-based) were 4.1 Mt CO2-e. Location-based Scope 2 emissions were 3.6 Mt CO2-e.
The Climate Investment Program was announced in July 2019.
BHP will invest at least US$400 million over the five-year life of the program.
Our net zero goal for 2050 covers Scope 3 emissions of 402.5 Mt.
Climate Action 100+ engaged with us in FY2020."""

TABLE = """Operational emissions by year

| Emissions (kt CO2-e) | FY2023 | FY2022 |
| --- | --- | --- |
| Scope 1 | 1,120 | 1,180 |
| Scope 2 (market-based) | 540 | 610 |"""


def p(text, page=1, file="Report 2023.pdf"):
    return Passage(chunk_id=f"c{page}", file_name=file, page_start=page, page_end=page, section="", text=text)


def failed(checks):
    return [c.reason for c in checks if not c.passed]


def test_passage_units_are_sentences_bullets_and_table_cells():
    units = passage_units(PAGE + "\n\n" + TABLE)
    texts = [u.text for u in units]
    assert any(t.startswith("A medium-term target") and "FY2017" not in t for t in texts)  # a bullet ends it
    assert "Scope 1 emissions were 12.3 Mt CO2-e in FY2021, and Scope 2 emissions (market-based) were 4.1 Mt " \
           "CO2-e." in texts  # lines joined, sentence cut at the full stop
    cell = next(u for u in units if u.text == "1,180")
    # a cell with the table's caption, its row label and its column header
    assert cell.context == "Operational emissions by year Scope 1 FY2022 1,180"
    bullet = next(u for u in units if u.text.startswith("A medium-term target"))
    assert "Our commitments are:" in bullet.context  # an item keeps its lead-in
    lead = next(u for u in units if u.text == "Our commitments are:")
    assert "A medium-term target" in lead.context


def test_answer_clauses_lift_parentheses_with_figures_of_their_own():
    clauses = answer_clauses("Latest split (FY2020, year to 30 June 2020): Scope 1 9.5 Mt and Scope 2 6.3 Mt "
                             "(market-based; 5.1 Mt location-based), total 15.8 Mt. Offsets were retired.")
    assert clauses[0].startswith("Latest split (FY2020, year to 30 June 2020): Scope 1 9.5 Mt")
    assert "5.1 Mt" not in clauses[0] and "15.8 Mt" in clauses[0]
    assert "5.1 Mt location-based" in clauses and "market-based" in clauses
    assert "Offsets were retired." in clauses


def test_a_year_shifted_in_the_figures_sentence_is_flagged_with_the_figure():
    cited = [p(PAGE)]
    assert failed(check_ties("Scope 1 emissions were 12.3 Mt CO2-e in FY2021.", cited)) == []
    checks = check_ties("Scope 1 emissions were 12.3 Mt CO2-e in FY2022.", cited)
    assert failed(checks) == ["FY2022 not stated with 12.3 Mt CO2-e in cited passages"]
    assert checks[0].name == "years" and checks[0].severity is Severity.HARD
    # The page states FY2022 elsewhere, so the page-level year check alone passes it.
    assert failed(check_years("Scope 1 emissions were 12.3 Mt CO2-e in FY2022.", cited)) == []
    # A year in a bullet: the bullet's own years count, not the bullet before it.
    assert failed(check_ties("at least 30% below FY2017 levels by FY2030", cited)) == [
        "FY2017 not stated with 30% in cited passages"]
    assert failed(check_ties("at least 30% below FY2020 levels by FY2030", cited)) == []


def test_a_table_cell_ties_its_figure_to_its_column_header_and_row_label():
    cited = [p(TABLE)]
    assert failed(check_ties("Scope 1 emissions were 1,120 kt CO2-e in FY2023 and 1,180 kt in FY2022.", cited)) == []
    assert failed(check_ties("Scope 1 emissions were 1,180 kt CO2-e in FY2023.", cited)) == [
        "FY2023 not stated with 1,180 kt CO2-e in cited passages"]
    assert failed(check_ties("Scope 2 emissions were 1,120 kt CO2-e in FY2023.", cited)) == [
        "Scope 2 not stated with 1,120 kt CO2-e in cited passages"]
    assert failed(check_scope("Scope 2 emissions were 1,120 kt CO2-e in FY2023.", cited)) == []  # page-level: fine


def test_a_swapped_basis_is_flagged_and_absolute_or_intensity_is_left_to_the_scope_check():
    cited = [p(PAGE)]
    assert failed(check_ties("Scope 2 (market-based) was 4.1 Mt CO2-e; location-based 3.6 Mt.", cited)) == []
    assert failed(check_ties("Scope 2 (location-based) was 4.1 Mt CO2-e.", cited)) == [
        "location-based not stated with 4.1 Mt CO2-e in cited passages"]
    assert failed(check_ties("an absolute reduction of 12.3 Mt CO2-e in FY2021", cited)) == []


def test_a_neighbouring_sentence_can_date_an_undated_figure():
    cited = [p(PAGE)]
    assert failed(check_ties("At least US$400 million (announced July 2019).", cited)) == []
    assert failed(check_ties("At least US$400 million, announced in 2018.", cited)) == []  # 2018: not on the page
    assert failed(check_years("At least US$400 million, announced in 2018.", cited)) == ["2018 not in cited passages"]


def test_what_cannot_be_tied_is_not_flagged():
    cited = [p("Emissions were 12.3 Mt CO2-e. We run mines in Chile. Water is scarce there. Our FY2019 and "
               "FY2021 reports cover this.")]
    # The passage gives the figure without a year: nothing to tie to.
    assert check_ties("Emissions were 12.3 Mt in FY2019.", cited) == []
    # A figure the passages lack is the figure check's; a clause without a figure ties nothing.
    assert check_ties("Scope 1 was 99.9 Mt in FY2019.", cited) == []
    assert check_ties("Reports were published in FY2019.", cited) == []
    # A bare "100" (a name such as Climate Action 100+) is no figure to tie a year to.
    assert check_ties("Climate Action 100+ engaged with BHP in FY2021.", [p(PAGE)]) == []


def test_passing_ties_are_reported_once():
    checks = check_ties("Scope 1 emissions were 12.3 Mt CO2-e in FY2021.", [p(PAGE)])
    assert len(checks) == 1 and checks[0].passed and checks[0].name == "ties"


def test_document_years_are_read_with_their_titles():
    assert document_years("The Climate Change Report 2021 aligns with TCFD") == [
        ("climate change report", 2021, "The Climate Change Report 2021")]
    assert document_years("the 2021 Climate Transition Action Plan sets") == [
        ("transition action plan", 2021, "2021 Climate Transition Action Plan")]
    assert document_years("see Report 2020") == []


def test_a_document_named_with_the_wrong_year_is_flagged():
    cited = [p("Governance. This report covers FY2020 and FY2021.", file="BHP Climate Change Report 2020.pdf")]
    assert check_document_years("The Climate Change Report 2020 follows TCFD.", cited) == []
    checks = check_document_years("The Climate Change Report 2021 follows TCFD.", cited)
    assert failed(checks) == ["Climate Change Report 2021: cited passages name it Climate Change Report 2020"]
    # A title the cited passages never give a year: nothing to compare.
    plan = [p("Our Climate Transition Action Plan sets goals.", file="Plan.pdf")]
    assert check_document_years("The 2021 Climate Transition Action Plan sets goals.", plan) == []
    plan = [p("The Climate Transition Action Plan 2021 was put to a vote.", file="Plan.pdf")]
    assert check_document_years("The 2021 Climate Transition Action Plan sets goals.", plan) == []
    assert failed(check_document_years("The 2022 Climate Transition Action Plan sets goals.", plan)) == [
        "2022 Climate Transition Action Plan: cited passages name it Climate Transition Action Plan 2021"]


def test_a_table_caption_dates_cells_whose_header_does_not():
    table = ("Greenhouse gas emissions, FY2023\n| Source | kt CO2-e |\n| --- | --- |\n| Scope 1 | 1,120 |\n"
             "\nIn FY2021 we bought a smelter.")
    cited = [p(table)]
    assert failed(check_ties("Scope 1 was 1,120 kt CO2-e in FY2023.", cited)) == []
    assert failed(check_ties("Scope 1 was 1,120 kt CO2-e in FY2021.", cited)) == [
        "FY2021 not stated with 1,120 kt CO2-e in cited passages"]
    # A sentence above a table is running text, not its caption.
    prose = p("FY2020 was a flat year.\n\nWe report FY2021 below.\n| Source | kt CO2-e |\n| --- | --- |\n"
              "| Scope 1 | 1,120 |")
    assert failed(check_ties("Scope 1 was 1,120 kt CO2-e in FY2020.", [prose])) == []
    captioned = p(prose.text.replace("We report FY2021 below.", "Emissions, FY2021"))
    assert failed(check_ties("Scope 1 was 1,120 kt CO2-e in FY2020.", [captioned])) == [
        "FY2020 not stated with 1,120 kt CO2-e in cited passages"]
