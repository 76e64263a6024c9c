"""The pure parts of form reading: validations parsed from sheet XML (plain and x14), the types a
drop-down / format / value / label make, units named in labels, and label formulas worked out
(INDEX / MATCH over a translation table, names, &), with the cached value when a formula does more."""

from __future__ import annotations

import openpyxl

from autofill.forms.book import Book
from autofill.forms.model import DatapointKind
from autofill.forms.types import cell_kind, list_kind, scale_in, unit_in
from autofill.forms.validations import ValidationIndex, parse_sheet_validations

SHEET_XML = """<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<dataValidations count="2">
<dataValidation type="list" allowBlank="1" sqref="E179"><formula1>"Individual basis, Consolidated basis"</formula1></dataValidation>
<dataValidation type="custom" sqref="E21 C512:M513"><formula1>OR(C21=TRUE,C21=FALSE)</formula1></dataValidation>
<dataValidation allowBlank="1" promptTitle="Rate [%]" prompt="left / average &amp; more" sqref="C137"/>
</dataValidations>
<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">
<x14:dataValidations count="1" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">
<x14:dataValidation type="list" allowBlank="1"><x14:formula1><xm:f>'Enumeration Lists'!$C$2:$C$257</xm:f></x14:formula1>
<xm:sqref>E287</xm:sqref></x14:dataValidation></x14:dataValidations></ext></extLst></worksheet>"""


def test_plain_and_x14_validations_are_parsed_alike():
    rules = parse_sheet_validations("General", SHEET_XML)
    got = sorted((v.kind, v.formula1, v.sqref, v.extension) for v in rules)
    assert got == [("", "", "C137", False),
                   ("custom", "OR(C21=TRUE,C21=FALSE)", "E21 C512:M513", False),
                   ("list", '"Individual basis, Consolidated basis"', "E179", False),
                   ("list", "'Enumeration Lists'!$C$2:$C$257", "E287", True)]
    assert next(v for v in rules if v.sqref == "C137").prompt == "left / average & more"
    index = ValidationIndex({"General": rules})
    assert index.at("General", 5, 287).extension
    assert index.at("General", 7, 513).kind == "custom"  # G513 inside C512:M513
    assert index.at("General", 5, 288) is None


def test_kinds_from_dropdowns_formats_values_and_labels():
    assert list_kind(["YES", "NO"]) == (DatapointKind.BOOLEAN, "")
    assert list_kind([str(y) for y in range(2000, 2030)]) == (DatapointKind.YEAR, "year")
    assert list_kind([str(m) for m in range(1, 13)])[1] == "month"
    assert list_kind([str(d) for d in range(1, 32)])[1] == "day"
    assert list_kind(["Headcount", "Full-time equivalent (FTE)"]) == (DatapointKind.ENUMERATION, "")
    assert cell_kind(value=False)[0] is DatapointKind.BOOLEAN
    assert cell_kind(validation_kind="custom", validation_formula="OR(C8=TRUE,C8=FALSE)")[0] is DatapointKind.BOOLEAN
    assert cell_kind(number_format="0.00")[0] is DatapointKind.NUMBER
    assert cell_kind(number_format="0%")[0] is DatapointKind.PERCENT
    assert cell_kind(label="Employee turnover rate [%]")[0] is DatapointKind.PERCENT
    assert cell_kind(number_format="dd/mm/yyyy")[0] is DatapointKind.DATE
    assert cell_kind(validation_kind="whole", validation_formula="1900", validation_formula2="2100")[0] \
        is DatapointKind.YEAR
    assert cell_kind(number_format="General")[0] is DatapointKind.TEXT


def test_units_and_scales_named_in_labels():
    assert unit_in("B3 - Total Energy Consumption (in MWh)") == "MWh"
    assert unit_in("Water discharge (m³)") == "m³"
    assert unit_in("GHG reduction targets in tCO2e") == "tCO2e"
    assert unit_in("Émissions de GES (GHG Protocol) (version 2004) (en tCO₂e) [Toujours à reporter]") == "tCO2e"
    assert unit_in("Number of employees (Headcount or FTE)") == ""
    assert scale_in("#,##0,", "") == 3
    assert scale_in("General", "Turnover (in thousands)") == 3
    assert scale_in("0.00", "Turnover") == 0


def _book(tmp_path, selected: str) -> Book:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "T"
    ws.append(["id", "shown", "English [en]", "Deutsch [de]"])
    ws.append(["lbl_a", "=INDEX(C2:D2,MATCH(lang,$C$1:$D$1,0))", "Energy", "Energie"])
    ws.append(["lbl_b", '=lbl_a & " (" & T!C3 & ")"', "MWh", "MWh"])
    ws.append(["lbl_c", "=VLOOKUP(1,A1:B2,2,FALSE)", None, None])
    ws["F1"] = selected
    from openpyxl.workbook.defined_name import DefinedName

    wb.defined_names["lang"] = DefinedName("lang", attr_text="T!$F$1")
    wb.defined_names["lbl_a"] = DefinedName("lbl_a", attr_text="T!$B$2")
    path = tmp_path / "t.xlsx"
    wb.save(path)
    book = Book(openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True))
    return book


def test_label_formulas_are_worked_out_in_the_selected_language(tmp_path):
    book = _book(tmp_path, "Deutsch [de]")
    assert book.text("T", 2, 2) == "Energie"
    assert book.text("T", 2, 3) == "Energie (MWh)"
    assert book.text("T", 2, 4) == ""  # VLOOKUP is not worked out: the cached value (none here)
    assert {(k.sheet, k.c1, k.r1) for k in book.lookups} == {("T", 6, 1)}
    english = Book(book.wb, book.values, overrides={("T", 6, 1): "English [en]"})
    assert english.text("T", 2, 3) == "Energy (MWh)"


def test_a_plain_cell_takes_its_kind_from_its_label():
    assert cell_kind(label="Number of employees at year end")[0] is DatapointKind.NUMBER
    assert cell_kind(label="Total water withdrawal (m³)")[0] is DatapointKind.NUMBER
    assert cell_kind(label="Percentage of women in management")[0] is DatapointKind.PERCENT
    assert cell_kind(label="Base year")[0] is DatapointKind.YEAR
    assert cell_kind(label="Date of the last audit (yyyy-mm-dd)")[0] is DatapointKind.DATE
    assert cell_kind(label="Describe your climate policy")[0] is DatapointKind.TEXT
    assert cell_kind(validation_kind="list", allowed=None)[0] is DatapointKind.ENUMERATION  # INDIRECT(...)


def test_units_named_inside_a_heading_but_not_guessed_for_a_type():
    heading = "B3 - Total Energy Consumption (in MWh) from 2024-01-01 - to 2024-12-31 [Always to be reported]"
    assert unit_in(heading) == "MWh"
    assert unit_in(heading, anywhere=False) == ""
    assert unit_in("Total amount of water withdrawn from all sites (cubic meters m³)") == "m³"
    assert cell_kind(label="Description of key elements (e.g. products, markets in EUR)")[0] is DatapointKind.TEXT
