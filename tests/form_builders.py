"""Small form workbooks for the forms tests, built with openpyxl the way EFRAG's VSME Digital Template
is laid out (no file from /work/shared): input cells as defined names on a protected sheet, labels as
formulas over a translation table chosen on a language sheet, drop-downs (one of them an x14
cross-sheet validation written into the sheet XML, as Excel writes it and openpyxl drops it), a
total, a date made of year / month / day cells, a boolean that opens a row, and an open table.
And a bank-style form without names: a label with its input cell beside it."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
from openpyxl.styles import Border, Protection, Side
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

LABELS = [  # id, English, French
    ("lbl_section", "B3 - Energy and greenhouse gas emissions (in tCO2e)", "B3 - Énergie et émissions de gaz à effet de serre (en tCO2e)"),
    ("lbl_scope1", "Gross Scope 1 GHG emissions", "Émissions brutes de GES du scope 1"),
    ("lbl_policy", "Does the undertaking have a climate policy?", "L'entreprise a-t-elle une politique climatique ?"),
    ("lbl_describe", "Describe the policy", "Décrivez la politique"),
    ("lbl_country", "Country of primary operations", "Pays des opérations principales"),
    ("lbl_baseyear", "Base year", "Année de référence"),
    ("lbl_share", "Share of renewable electricity", "Part d'électricité renouvelable"),
    ("lbl_total", "Total Scope 1 and 2", "Total scope 1 et 2"),
    ("lbl_scope2", "Gross Scope 2 GHG emissions", "Émissions brutes de GES du scope 2"),
    ("lbl_start", "Reporting period start", "Début de la période"),
    ("lbl_site", "Site name", "Nom du site"),
    ("lbl_site_area", "Area (ha)", "Surface (ha)"),
]

X14_EXT = ('<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" '
           'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
           '<x14:dataValidations count="1" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">'
           '<x14:dataValidation type="list" allowBlank="1" showInputMessage="1" showErrorMessage="1">'
           "<x14:formula1><xm:f>'Lists'!$A$1:$A$3</xm:f></x14:formula1><xm:sqref>{sqref}</xm:sqref>"
           "</x14:dataValidation></x14:dataValidations></ext></extLst>")


def _name(wb, name: str, ref: str) -> None:
    wb.defined_names[name] = DefinedName(name, attr_text=ref)


def build_named_form(path: Path, x14: bool = True, language: str = "English [en]") -> Path:
    wb = openpyxl.Workbook()
    lang = wb.active
    lang.title = "Language"
    lang["A1"] = "Choose the language"
    lang["B2"] = language
    tr = wb.create_sheet("Translations")
    tr.append(["Label ID", "Shown", "English", "French"])
    tr.append([None, None, "English [en]", "French [fr]"])
    _name(wb, "selected_language", "Language!$B$2")
    dv = DataValidation(type="list", formula1="Translations!$C$2:$D$2")
    lang.add_data_validation(dv)
    dv.add("B2")
    for i, (lid, en, fr) in enumerate(LABELS, start=3):
        tr.cell(row=i, column=1, value=lid)
        tr.cell(row=i, column=2, value=f"=INDEX(C{i}:D{i},MATCH(selected_language,$C$2:$D$2,0))")
        tr.cell(row=i, column=3, value=en)
        tr.cell(row=i, column=4, value=fr)
        _name(wb, lid, f"Translations!$B${i}")
    lists = wb.create_sheet("Lists")
    for i, country in enumerate(["Andorra", "Belgium", "France"], start=1):
        lists.cell(row=i, column=1, value=country)
    for i, year in enumerate(range(2015, 2026), start=1):
        lists.cell(row=i, column=2, value=year)
    for i in range(1, 13):
        lists.cell(row=i, column=3, value=i)
    for i in range(1, 32):
        lists.cell(row=i, column=4, value=i)
    _name(wb, "list_years", "Lists!$B$1:$B$11")
    _name(wb, "list_months", "Lists!$C$1:$C$12")
    _name(wb, "list_days", "Lists!$D$1:$D$31")

    ws = wb.create_sheet("Disclosures")
    ws["B2"] = "=lbl_section"
    rows = {  # row: (label name, input name, number format)
        4: ("lbl_scope1", "GrossScope1", "0.00"),
        5: ("lbl_scope2", "GrossScope2", "0.00"),
        6: ("lbl_total", None, "0.00"),
        8: ("lbl_policy", "HasClimatePolicy", "General"),
        9: ("lbl_describe", "PolicyDescription", "General"),
        10: ("lbl_country", "CountryOfOperations", "General"),
        11: ("lbl_baseyear", "BaseYear", "General"),
        12: ("lbl_share", "RenewableShare", "0%"),
    }
    for r, (label, name, fmt) in rows.items():
        ws.cell(row=r, column=1, value=f"29({chr(96 + r - 3)})")
        ws.cell(row=r, column=2, value=f"={label}")
        c = ws.cell(row=r, column=3)
        c.number_format = fmt
        if name:
            c.protection = Protection(locked=False)
            _name(wb, name, f"Disclosures!$C${r}")
    ws["C6"] = "=IF(AND(C4=\"\",C5=\"\"),\"-\",SUM(C4,C5))"
    _name(wb, "TotalScope1And2", "Disclosures!$C$6")
    ws["C8"] = False
    ws["D9"] = '=IF(C8=TRUE,IF(C9="","MISSING VALUE","OK"),"")'
    yes_no = DataValidation(type="custom", formula1="OR(C8=TRUE,C8=FALSE)")
    ws.add_data_validation(yes_no)
    yes_no.add("C8")
    years = DataValidation(type="list", formula1="list_years")
    ws.add_data_validation(years)
    years.add("C11")
    # a date from three cells, joined by a named formula
    ws["B14"] = "=lbl_start"
    for col, (lst, fmt) in zip("CDE", (("list_years", "General"), ("list_months", "General"), ("list_days", "General"))):
        cell = ws[f"{col}14"]
        cell.protection = Protection(locked=False)
        v = DataValidation(type="list", formula1=lst)
        ws.add_data_validation(v)
        v.add(f"{col}14")
    ws["F14"] = '=IF(OR(ISBLANK(C14),ISBLANK(D14),ISBLANK(E14)),"-",C14&"-"&D14&"-"&E14)'
    _name(wb, "ReportingPeriodStart", "Disclosures!$F$14")
    # an open table of sites
    ws["B17"] = "=lbl_site"
    ws["C17"] = "=lbl_site_area"
    for r in range(18, 23):
        for col in "BC":
            ws[f"{col}{r}"].protection = Protection(locked=False)
        ws[f"C{r}"].number_format = "0.0"
    _name(wb, "SitesTable", "Disclosures!$B$18:$C$22")
    _name(wb, "SiteName", "Disclosures!$B$18:$B$22")
    _name(wb, "SiteArea", "Disclosures!$C$18:$C$22")
    # a fixed breakdown without names: a boolean that opens it, two rows by two columns, and a
    # status formula merged over the rows
    ws["C24"], ws["D24"] = "Current period", "Base year"
    ws["B25"] = "Does the undertaking report Scope 3 emissions?"
    ws["C25"] = False
    ws["C25"].protection = Protection(locked=False)
    for r, category in ((26, "1. Purchased goods and services"), (27, "2. Capital goods")):
        ws[f"B{r}"] = category
        for col in "CD":
            ws[f"{col}{r}"].protection = Protection(locked=False)
            ws[f"{col}{r}"].number_format = "0.00"
    ws["E26"] = '=IF(C25=TRUE,IF(COUNTA(C26:D27)=0,"MISSING VALUE","OK"),"")'
    ws.merge_cells("E26:E27")
    ws.protection.sheet = True
    wb.save(path)
    if x14:
        add_x14_validation(path, "Disclosures", "C10")
    return path


def add_x14_validation(path: Path, sheet: str, sqref: str) -> None:
    """Write a cross-sheet list validation into the sheet's extLst, as Excel does."""
    tmp = path.with_suffix(".tmp.xlsx")
    with zipfile.ZipFile(path) as zin:
        wbxml = zin.read("xl/workbook.xml").decode()
        rels = zin.read("xl/_rels/workbook.xml.rels").decode()
        rid = re.search(rf'<sheet [^>]*name="{sheet}"[^>]*r:id="([^"]+)"', wbxml).group(1)
        target = re.search(rf'<Relationship [^>]*Id="{rid}"[^>]*Target="([^"]+)"', rels) or \
            re.search(rf'<Relationship [^>]*Target="([^"]+)"[^>]*Id="{rid}"', rels)
        part = "xl/" + target.group(1).lstrip("/").removeprefix("xl/")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = zin.read(item.filename)
                if item.filename == part:
                    xml = data.decode()
                    xml = xml.replace("</worksheet>", X14_EXT.replace("{sqref}", sqref) + "</worksheet>")
                    data = xml.encode()
                zout.writestr(item, data)
    shutil.move(tmp, path)


def build_layout_form(path: Path) -> Path:
    """A bank's form: a title, a heading, labels in column A with their input cell in column B."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Borrower ESG"
    box = Side(style="thin")
    for ref in ("B4", "B5", "B6", "B9", "B10"):
        ws[ref].border = Border(left=box, right=box, top=box, bottom=box)
    ws["A1"] = "Borrower ESG questionnaire"
    ws["A3"] = "Company"
    ws["A4"] = "Company name"
    ws["A5"] = "Number of employees"
    ws["B5"].number_format = "#,##0"
    ws["A6"] = "Does the company have an environmental policy?"
    dv = DataValidation(type="list", formula1='"Yes,No"')
    ws.add_data_validation(dv)
    dv.add("B6")
    ws["A8"] = "Emissions"
    ws["A9"] = "Scope 1 emissions (tCO2e)"
    ws["B9"].number_format = "0.0"
    ws["A10"] = "Date of the last energy audit"
    ws["B10"].number_format = "yyyy-mm-dd"
    wb.save(path)
    return path


BANK_SHEET = "ESG data request"


def build_bank_form(path: Path) -> Path:
    """A bank's ESG data request without names: labels in column A, the input cell beside each in column B
    (bordered, number formats), a unit column C for the figures, drop-downs (a country list and Yes / No),
    headings between the blocks."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = BANK_SHEET
    box = Side(style="thin")
    ws["A1"] = "Sustainability data request for borrowers"
    ws["A3"] = "General information"
    ws["A4"], ws["A5"] = "Legal name of the borrower", "Country of incorporation"
    ws["A7"], ws["C7"] = "Environment", "Unit"
    rows = {8: ("Gross Scope 1 GHG emissions", "tCO2e"), 9: ("Total energy consumption", "MWh"),
            10: ("Total water withdrawal", "m3")}
    for r, (label, unit) in rows.items():
        ws[f"A{r}"], ws[f"C{r}"] = label, unit
        ws[f"B{r}"].number_format = "#,##0.00"
    ws["A11"] = "Does the borrower have a climate transition plan?"
    ws["A13"] = "Social"
    ws["A14"] = "Number of employees (headcount)"
    ws["B14"].number_format = "#,##0"
    for r in (4, 5, 8, 9, 10, 11, 14):
        ws[f"B{r}"].border = Border(left=box, right=box, top=box, bottom=box)
    countries = DataValidation(type="list", formula1='"Belgium,France,Germany,Netherlands"')
    yes_no = DataValidation(type="list", formula1='"Yes,No"')
    for dv, ref in ((countries, "B5"), (yes_no, "B11")):
        ws.add_data_validation(dv)
        dv.add(ref)
    wb.save(path)
    return path


TABLE_SHEET = "Environmental Disclosures"
POLLUTANTS = ["Ammonia (NH3)", "Benzene", "Nitrogen oxides (NOx/NO2)", "Sulphur oxides (SOx/SO2)"]


def build_table_form(path: Path) -> Path:
    """A VSME-like B4 block: a yes / no that opens it (a conditional format over the table, as the template
    has), two single inputs, and an open table of pollutants (3 blank rows: a drop-down of pollutants, the
    emissions to air and to water in tonnes) under a table name and one name per column."""
    from openpyxl.formatting.rule import FormulaRule
    from openpyxl.styles import PatternFill

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = TABLE_SHEET
    lists = wb.create_sheet("Enumeration Lists")
    for i, p in enumerate(POLLUTANTS, start=1):
        lists.cell(row=i, column=1, value=p)
    ws["C3"] = "B4 - Pollution of air, water and soil"
    ws["C5"], ws["G5"] = "Does the undertaking report its pollutant emissions?", False
    ws["C7"], ws["C8"] = "Gross Scope 1 GHG emissions (tCO2e)", "Total energy consumption (MWh)"
    ws["C10"], ws["D10"], ws["E10"] = "Pollutant", "Emission to air (t)", "Emission to water (t)"
    names = {"ReportsPollution": "$G$5", "GrossScope1": "$D$7", "TotalEnergyConsumption": "$D$8",
             "AmountOfEmissionsTable": "$C$11:$E$13", "TypeOfPollutantAxis": "$C$11:$C$13",
             "AmountOfEmissionToAir": "$D$11:$D$13", "AmountOfEmissionToWater": "$E$11:$E$13"}
    for name, ref in names.items():
        _name(wb, name, f"'{TABLE_SHEET}'!{ref}")
    for ref in ("G5", "D7", "D8", *(f"{c}{r}" for c in "CDE" for r in (11, 12, 13))):
        ws[ref].protection = Protection(locked=False)
    for ref in ("D7", "D8", *(f"{c}{r}" for c in "DE" for r in (11, 12, 13))):
        ws[ref].number_format = "0.00"
    yes_no = DataValidation(type="custom", formula1="OR(G5=TRUE,G5=FALSE)")
    pollutants = DataValidation(type="list", formula1=f"'Enumeration Lists'!$A$1:$A${len(POLLUTANTS)}")
    for dv, ref in ((yes_no, "G5"), (pollutants, "C11:C13")):
        ws.add_data_validation(dv)
        dv.add(ref)
    ws.conditional_formatting.add("C11:E13", FormulaRule(formula=["$G$5=TRUE"], fill=PatternFill(
        start_color="FFFFFF99", end_color="FFFFFF99", fill_type="solid")))
    ws.protection.sheet = True
    wb.save(path)
    return path


def evidence_rows(path):
    """(the filled workbook, its Evidence sheet's rows as dicts by header) of a form run's output."""
    wb = openpyxl.load_workbook(path)
    ws = wb["Evidence"]
    head = [c.value for c in ws[1]]
    return wb, [dict(zip(head, (c.value for c in row))) for row in ws.iter_rows(min_row=2)]
