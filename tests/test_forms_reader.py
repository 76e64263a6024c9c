"""forms.reader: small named-range and layout forms built with openpyxl (tests/form_builders.py) read
as forms: every datapoint with its cell, label in the selected language, section, type, drop-down
values (an x14 cross-sheet one too), unit, gate, date parts, open table and the cells never written."""

from __future__ import annotations

import openpyxl
import pytest

from autofill.forms.model import DatapointKind, FormCell, FormSource, GateOpens
from autofill.forms.reader import read_form
from tests.form_builders import build_layout_form, build_named_form
from tests.workbook_builders import build_questionnaire


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    path = build_named_form(tmp_path_factory.mktemp("forms") / "form.xlsx")
    return path, read_form(path)


def test_named_inputs_are_datapoints_with_cells_labels_and_sections(named):
    _, form = named
    assert form.source is FormSource.NAMED
    scope1 = form.datapoint("GrossScope1")
    assert scope1.cells == (FormCell("Disclosures", "C4"),)
    assert scope1.label == "Gross Scope 1 GHG emissions"  # =lbl_scope1 -> INDEX/MATCH over Translations
    assert scope1.section == "B3"
    assert scope1.reference == "29(a)"
    assert (scope1.kind, scope1.unit) == (DatapointKind.NUMBER, "tCO2e")  # unit from the section heading
    assert form.language == "en" and form.languages == ("en", "fr")
    assert form.language_cell == FormCell("Language", "B2") and form.datapoint("selected_language") is None


def test_types_from_validations_formats_and_values(named):
    _, form = named
    kinds = {d.key: d.kind for d in form.datapoints}
    assert kinds["HasClimatePolicy"] is DatapointKind.BOOLEAN
    assert kinds["PolicyDescription"] is DatapointKind.TEXT
    assert kinds["BaseYear"] is DatapointKind.YEAR
    assert kinds["RenewableShare"] is DatapointKind.PERCENT
    assert kinds["CountryOfOperations"] is DatapointKind.ENUMERATION


def test_x14_cross_sheet_dropdown_values_are_read(named):
    path, form = named
    assert form.datapoint("CountryOfOperations").allowed == ("Andorra", "Belgium", "France")
    ws = openpyxl.load_workbook(path)["Disclosures"]
    assert not any("C10" in str(dv.sqref) for dv in ws.data_validations.dataValidation)  # openpyxl drops it


def test_formulas_are_computed_never_inputs(named):
    _, form = named
    assert form.datapoint("TotalScope1And2") is None
    assert [c.key for c in form.computed] == ["TotalScope1And2"]
    assert FormCell("Disclosures", "C6") in form.formula_cells
    assert FormCell("Disclosures", "C6") in form.datapoint("GrossScope1").formula_cells
    assert all(not form.is_formula(c) for d in form.datapoints for c in d.cells)


def test_gate_date_parts_and_open_table(named):
    _, form = named
    gate = form.datapoint("PolicyDescription").gate
    assert (gate.key, gate.opens) == ("HasClimatePolicy", GateOpens.YES)
    assert [d.key for d in form.gated_by("HasClimatePolicy")] == ["PolicyDescription"]
    start = form.datapoint("ReportingPeriodStart")
    assert start.kind is DatapointKind.DATE_PARTS and start.parts == ("year", "month", "day")
    assert [c.ref for c in start.cells] == ["C14", "D14", "E14"]
    assert FormCell("Disclosures", "F14") in start.formula_cells
    assert form.reporting_period_keys == ("ReportingPeriodStart",)
    table = form.table("SitesTable")
    assert (table.first_row, table.last_row, table.columns) == (18, 22, ("SiteName", "SiteArea"))
    area = form.datapoint("SiteArea")
    assert area.table == "SitesTable" and len(area.cells) == 5 and area.kind is DatapointKind.NUMBER


def test_labels_in_another_offered_language(named):
    path, _ = named
    form = read_form(path, language="fr")
    assert form.language == "fr"
    assert form.datapoint("GrossScope1").label == "Émissions brutes de GES du scope 1"
    assert form.datapoint("ReportingPeriodStart").label == "Début de la période"


def test_labels_follow_the_language_the_form_has_selected(tmp_path):
    form = read_form(build_named_form(tmp_path / "fr.xlsx", language="French [fr]"))
    assert form.language == "fr"
    assert form.datapoint("BaseYear").label == "Année de référence"


def test_a_questionnaire_is_not_a_named_form(tmp_path):
    assert read_form(build_questionnaire(tmp_path / "q.xlsx"), layout=False) is None


def test_layout_form_label_and_input_beside_it(tmp_path):
    form = read_form(build_layout_form(tmp_path / "bank.xlsx"))
    assert form.source is FormSource.LAYOUT
    got = {d.key: (d.label, d.kind.value, d.section) for d in form.datapoints}
    assert got == {
        "Borrower ESG!B4": ("Company name", "text", "Company"),
        "Borrower ESG!B5": ("Number of employees", "number", "Company"),
        "Borrower ESG!B6": ("Does the company have an environmental policy?", "boolean", "Company"),
        "Borrower ESG!B9": ("Scope 1 emissions (tCO2e)", "number", "Emissions"),
        "Borrower ESG!B10": ("Date of the last energy audit", "date", "Emissions"),
    }
    assert form.datapoint("Borrower ESG!B6").allowed == ("Yes", "No")


def test_names_local_to_a_sheet_are_read_too(tmp_path):
    from openpyxl.workbook.defined_name import DefinedName

    path = build_named_form(tmp_path / "local.xlsx", x14=False)
    wb = openpyxl.load_workbook(path)
    ws = wb["Disclosures"]
    for name in ("GrossScope1", "GrossScope2", "BaseYear"):
        ref = wb.defined_names[name].attr_text
        del wb.defined_names[name]
        ws.defined_names[name] = DefinedName(name, attr_text=ref)
    wb.save(path)
    form = read_form(path)
    assert form.datapoint("GrossScope2").cells == (FormCell("Disclosures", "C5"),)
    assert form.datapoint("BaseYear").kind is DatapointKind.YEAR


def test_unnamed_breakdown_cells_of_a_protected_sheet(named):
    _, form = named
    cell = form.datapoint("Disclosures!D27")
    assert (cell.label, cell.column, cell.kind) == ("2. Capital goods - Base year", "Base year", DatapointKind.NUMBER)
    assert (cell.gate.key, cell.gate.opens) == ("Disclosures!C25", GateOpens.YES)  # status formula merged over rows
    assert form.datapoint("Disclosures!C25").kind is DatapointKind.BOOLEAN
    assert {d.key for d in form.gated_by("Disclosures!C25")} == {
        "Disclosures!C26", "Disclosures!D26", "Disclosures!C27", "Disclosures!D27"}
