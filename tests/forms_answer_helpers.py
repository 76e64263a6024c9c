"""A small named-range form (a VSME-like layout: General Information with the reporting year, inputs as
named cells with units in their labels, a formula total, YES/NO and list drop-downs) and a generated
report stating its values in other units and scales, for tests/test_forms_answer*.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.forms.model import Datapoint, DatapointKind, Form, FormCell, FormSource
from tests.answer_helpers import passages_in
from tests.llm_server import by_marker, last_user_text
from tests.pdf_factory import make_pdf

ENV = "Environmental Disclosures"
GEN = "General Information"
# key, cell, label, kind, unit, allowed
INPUTS = [
    ("GrossScope1GreenhouseGasEmissions", "D5", "Gross Scope 1 GHG emissions (tCO2e)", DatapointKind.NUMBER, "tCO2e", ()),
    ("GrossLocationBasedScope2GreenhouseGasEmissions", "D6", "Gross location-based Scope 2 GHG emissions (tCO2e)",
     DatapointKind.NUMBER, "tCO2e", ()),
    ("TotalEnergyConsumption", "D7", "Total energy consumption in MWh", DatapointKind.NUMBER, "MWh", ()),
    ("TotalAmountOfWaterWithdrawnFromAllSites", "D8", "Total water withdrawal (m3)", DatapointKind.NUMBER, "m3", ()),
    ("HasTransitionPlan", "D9", "Has the undertaking adopted a transition plan for climate change mitigation?",
     DatapointKind.BOOLEAN, "", ("YES", "NO")),
    ("TypeOfNumberOfEmployees", "D10", "Type of number of employees", DatapointKind.ENUMERATION, "",
     ("Full-time equivalent (FTE)", "Headcount")),
]
FORMULA = ("TotalScope1AndScope2", "D11", '=IF(AND(D5="",D6=""),"-",SUM(D5,D6))')


def build_form(path: Path, year: int = 2024) -> tuple[Path, Form]:
    """The workbook at `path` and the Form its reader gives (built here while forms/reader.py is written)."""
    wb = openpyxl.Workbook()
    gen = wb.active
    gen.title = GEN
    gen["C6"], gen["D6"] = "Reporting period: year", year
    wb.defined_names["template_reporting_period_year"] = DefinedName(
        "template_reporting_period_year", attr_text=f"'{GEN}'!$D$6")
    env = wb.create_sheet(ENV)
    lists = wb.create_sheet("Enumeration Lists")
    lists["A1"], lists["A2"] = "YES", "NO"
    lists["B1"], lists["B2"] = "Full-time equivalent (FTE)", "Headcount"
    env["C2"] = "B3 Energy and greenhouse gas emissions"
    for key, ref, label, *_ in INPUTS:
        env[f"C{ref[1:]}"] = label
        wb.defined_names[key] = DefinedName(key, attr_text=f"'{ENV}'!${ref[0]}${ref[1:]}")
    key, ref, formula = FORMULA
    env[f"C{ref[1:]}"], env[ref] = "Total Scope 1 and 2 (tCO2e)", formula
    wb.defined_names[key] = DefinedName(key, attr_text=f"'{ENV}'!${ref[0]}${ref[1:]}")
    yes_no = DataValidation(type="list", formula1="'Enumeration Lists'!$A$1:$A$2", allow_blank=True)
    kinds = DataValidation(type="list", formula1="'Enumeration Lists'!$B$1:$B$2", allow_blank=True)
    env.add_data_validation(yes_no)
    env.add_data_validation(kinds)
    yes_no.add("D9")
    kinds.add("D10")
    wb.save(path)
    points = tuple(Datapoint(key, (FormCell(ENV, ref),), label, section="B3", kind=kind, unit=unit,
                             allowed=allowed, row=int(ref[1:])) for key, ref, label, kind, unit, allowed in INPUTS)
    year_point = Datapoint("template_reporting_period_year", (FormCell(GEN, "D6"),), "Reporting period: year",
                           kind=DatapointKind.YEAR, row=6)
    form = Form(path=path, source=FormSource.NAMED, datapoints=(year_point, *points),
                formula_cells=frozenset({FormCell(ENV, FORMULA[1])}),
                reporting_period_keys=("template_reporting_period_year",), sheets=(GEN, ENV))
    return path, form


def build_report(folder: Path, year: int = 2024) -> Path:
    """A report stating the form's values in other units: 1.25 kt CO2e, 4,500 GJ, 12.5 megalitres."""
    folder.mkdir(parents=True, exist_ok=True)
    filler = [("p", f"Site {i} operations: maintenance, logistics, training and community programmes continued "
                    "through the year with no change in scope.") for i in range(1, 4)]
    pages = [
        [("h1", f"Acme Fabrication sustainability report {year}"), *filler],
        [("h1", "Climate"),
         ("p", f"In {year} our gross Scope 1 GHG emissions were 1.25 kt CO2e, from the gas boilers of our two plants."),
         ("p", "We adopted a climate transition plan in March, with a target of net zero by 2045."),
         ("table", ["Energy", f"FY{year} (GJ)", f"FY{year - 1} (GJ)"],
          [["Electricity", "3,000", "3,300"], ["Natural gas", "1,500", "1,700"], ["Total energy consumption", "4,500",
                                                                                   "5,000"]])],
        [("h1", "Water and people"),
         ("p", f"Total water withdrawal in {year} was 12.5 megalitres, all from the municipal supply."),
         ("p", "Employees are counted as headcount at the end of the year: 84 people."), *filler],
    ]
    return make_pdf(folder / f"Acme report {year}.pdf", pages)


# What a sensible model answers per field (label marker -> reply fields), and the passage phrase it cites.
REPLIES = {
    "Gross Scope 1": ({"answer": "1.25", "unit": "kt CO2e", "quote": "gross Scope 1 GHG emissions were 1.25 kt CO2e"},
                      "Scope 1 GHG emissions were 1.25"),
    # Not in the report: the figure is invented and cites the climate page, so it must not be written.
    "location-based Scope 2": ({"answer": "640", "unit": "tCO2e", "quote": "Scope 2 emissions were 640 t"},
                               "Scope 1 GHG emissions were 1.25"),
    "Total energy consumption": ({"answer": "4,500", "unit": "GJ", "quote": "Total energy consumption | 4,500"},
                                 "Total energy consumption"),
    "Total water withdrawal": ({"answer": "12.5", "unit": "megalitres", "quote": "12.5 megalitres"},
                               "12.5 megalitres"),
    "transition plan": ({"answer": "Yes", "unit": "", "quote": "We adopted a climate transition plan"},
                        "adopted a climate transition plan"),
    "Type of number of employees": ({"answer": "headcount", "unit": "", "quote": "counted as headcount"},
                                    "counted as headcount"),
}


def _norm(text: str) -> str:
    return " ".join(text.split())


def form_reply(req: dict) -> str:
    prompt = last_user_text(req)
    field = re.search(r"^Field: (.*)$", prompt, re.MULTILINE)
    for marker, (reply, phrase) in REPLIES.items():
        if field and marker in field.group(1):
            cited = [n for n, _, _, t in passages_in(prompt) if _norm(phrase) in _norm(t)]
            body = {"reasoning": "The passage states it.", **reply, "year": "2024", "citations": cited[:1],
                    "confidence": "high"} if cited else {"reasoning": "not found", "answer": "Not disclosed",
                                                         "citations": []}
            return "```json\n" + json.dumps(body) + "\n```"
    return json.dumps({"reasoning": "no field", "answer": "Not disclosed", "citations": []})


def responder():
    return by_marker({"Fill one field": form_reply}, default="ok")
