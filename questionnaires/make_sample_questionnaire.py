"""Build the bundled sample questionnaire and its answer key.

    python questionnaires/make_sample_questionnaire.py

writes `questionnaires/sample_questionnaire.xlsx` (a customer-style layout: title row, header on row 3,
section-heading rows, a Yes/No/Partially/Not disclosed drop-down on yes/no answers, frozen header, an
Instructions sheet) and `questionnaires/sample_gold.json` (same format as the BHP development key:
`{no, question, gold_answer, answer_type, gold: [{file, page, evidence}]}`). Facts and pages come from
`samples/northwind_sustainability_2024.pdf` (see samples/make_sample_pdf.py); each evidence string
occurs on its page in PyMuPDF's text, whitespace normalised. Deterministic: re-running gives the same
content, so the committed files only change when this script does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.worksheet.datavalidation import DataValidation

HERE = Path(__file__).resolve().parent
PDF = "northwind_sustainability_2024.pdf"
HEADERS = ["No.", "Section", "Question", "Form of answer", "Explanation", "Answer", "Comments"]
WIDTHS = [6, 24, 55, 26, 60, 22, 40]
YESNO = "Yes/No and a short explanation"

# (section, question, form of answer, explanation, gold answer, answer type, [(page, evidence)])
QUESTIONS = [
    ("Targets and commitments",
     "Does the company have a net zero target for its Scope 1 and Scope 2 emissions?", YESNO,
     "Answer Yes if the company has publicly committed to net zero for its operational (Scope 1 and Scope 2) "
     "emissions, and give the target year.",
     "Yes. Northwind Metals has committed to net zero Scope 1 and Scope 2 emissions by 2050.", "yesno",
     [(2, "Northwind Metals has committed to net zero Scope 1 and Scope 2 emissions by 2050.")]),
    ("Targets and commitments",
     "Does the company have a target for its Scope 3 emissions?", YESNO,
     "Answer Yes only if there is a stated target covering value-chain (Scope 3) emissions.",
     "No. The company states that it has not set a target for Scope 3 emissions.", "yesno",
     [(2, "We have not set a target for Scope 3 emissions.")]),
    ("Targets and commitments",
     "What is the company's medium-term emissions reduction target, and what is its base year?",
     "Short text: target, scope, % reduction, base year",
     "Give the percentage, the scopes covered, the target year and the baseline year.",
     "A 35% reduction in Scope 1 and Scope 2 emissions by FY2030 from the FY2020 baseline.", "text",
     [(2, "Our medium-term target is a 35% reduction in Scope 1 and Scope 2 emissions by FY2030 from the "
          "FY2020 baseline.")]),
    ("Targets and commitments",
     "Have the company's emissions reduction targets been validated by the Science Based Targets initiative (SBTi)?",
     YESNO,
     "Answer Yes only if the company states that SBTi has validated its targets.",
     "No. The targets have not been validated by the SBTi.", "yesno",
     [(5, "Our emission reduction targets have not been validated by the Science Based Targets initiative (SBTi).")]),
    ("Governance",
     "Which body oversees climate-related risks and opportunities, and how often does it meet?",
     "Short text",
     "Name the board committee or management body and how often it meets.",
     "The Board Sustainability Committee, which meets four times a year.", "text",
     [(3, "The Board Sustainability Committee oversees climate-related risks and opportunities and meets four "
          "times a year.")]),
    ("Governance",
     "Is executive remuneration linked to climate-related performance? If so, what is the weighting?", YESNO,
     "State which executives, which incentive and the share linked to climate or emission targets.",
     "Yes. 15% of the CEO's short-term incentive is linked to emission reduction milestones.", "yesno",
     [(3, "15% of the Chief Executive Officer's short-term incentive is linked to emission reduction milestones.")]),
    ("Performance",
     "What were the company's Scope 1 emissions in FY2024?", "Number with unit and year",
     "Give the figure reported for the most recent financial year, with its unit.",
     "1,120 kt CO2e in FY2024.", "number",
     [(4, "FY2024 1,120 540 1,660")]),
    ("Performance",
     "What share of the company's electricity consumption came from renewable sources in FY2024?",
     "Percentage",
     "Give the share of electricity consumption, not of total energy.",
     "46% of electricity consumption in FY2024.", "number",
     [(5, "Renewable electricity made up 46% of our electricity consumption in FY2024.")]),
    ("Reporting",
     "Does the company report in line with the TCFD recommendations?", YESNO,
     "Answer Yes if the report states that it follows the recommendations of the Task Force on "
     "Climate-related Financial Disclosures.",
     "Yes. The report is prepared in line with the TCFD recommendations.", "yesno",
     [(5, "This report is prepared in line with the recommendations of the Task Force on Climate-related "
          "Financial Disclosures (TCFD).")]),
]


def build(out_dir: Path = HERE) -> tuple[Path, Path]:
    thin = Side(style="thin", color="A6A6A6")
    box = Border(left=thin, right=thin, top=thin, bottom=thin)
    wb = Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws["A1"] = "Customer sustainability questionnaire: climate (Northwind Metals)"
    ws["A1"].font = Font(bold=True, size=14)
    ws.merge_cells("A1:G1")
    ws.row_dimensions[1].height = 24
    for c, (head, width) in enumerate(zip(HEADERS, WIDTHS), start=1):
        cell = ws.cell(row=3, column=c, value=head)
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor="1F4E78")
        cell.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)
        cell.border = box
        ws.column_dimensions[cell.column_letter].width = width
    ws.row_dimensions[3].height = 20
    ws.freeze_panes = "A4"
    section_fill = PatternFill("solid", fgColor="D9E1F2")
    answer_fill = PatternFill("solid", fgColor="FFF2CC")
    wrap = Alignment(wrap_text=True, vertical="top")
    row, section, yesno_cells = 4, None, []
    gold = []
    for no, (sec, question, form, explanation, answer, kind, evidence) in enumerate(QUESTIONS, start=1):
        if sec != section:
            for c in range(1, len(HEADERS) + 1):
                ws.cell(row=row, column=c).fill = section_fill
            ws.cell(row=row, column=2, value=sec).font = Font(bold=True)
            section, row = sec, row + 1
        for c, value in enumerate([no, sec, question, form, explanation, None, None], start=1):
            cell = ws.cell(row=row, column=c, value=value)
            cell.alignment, cell.border = wrap, box
        ws.cell(row=row, column=6).fill = answer_fill
        if form == YESNO:
            yesno_cells.append(f"F{row}")
        gold.append({"no": no, "question": question, "gold_answer": answer, "answer_type": kind,
                     "gold": [{"file": PDF, "page": p, "evidence": e} for p, e in evidence]})
        row += 1
    dv = DataValidation(type="list", formula1='"Yes,No,Partially,Not disclosed"', allow_blank=True,
                        showErrorMessage=True, errorTitle="Invalid answer",
                        error="Please choose Yes, No, Partially or Not disclosed.")
    dv.sqref = " ".join(yesno_cells)
    ws.add_data_validation(dv)
    ws.auto_filter.ref = f"A3:G{row - 1}"
    ws.print_title_rows = "3:3"

    ins = wb.create_sheet("Instructions")
    ins.column_dimensions["A"].width = 110
    ins["A1"] = "Instructions"
    ins["A1"].font = Font(bold=True, size=14)
    for r, text in enumerate([
        "1. Please answer every question in the 'Questionnaire' sheet, using the 'Answer' column (yellow).",
        "2. For Yes/No questions, choose Yes, No, Partially or Not disclosed from the drop-down list.",
        "3. For numeric questions, give the figure with its unit and reporting year.",
        "4. Rows with a shaded background are section headings and need no answer.",
    ], start=3):
        ins.cell(row=r, column=1, value=text).alignment = Alignment(wrap_text=True)

    xlsx = out_dir / "sample_questionnaire.xlsx"
    gold_path = out_dir / "sample_gold.json"
    _fix_timestamps(wb)
    wb.save(xlsx)
    gold_path.write_text(json.dumps(gold, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return xlsx, gold_path


def _fix_timestamps(wb) -> None:
    from datetime import datetime

    stamp = datetime(2024, 7, 1, 0, 0, 0)
    wb.properties.created = stamp
    wb.properties.modified = stamp
    wb.properties.creator = "autofill"


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for path in build(target):
        print(path)
