"""Layout detection on questionnaires built in the layouts customers send."""

from __future__ import annotations

import json

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from autofill.errors import InputError
from autofill.settings import Settings
from autofill.workbook.layout import inspect_workbook, read_questions
from autofill.workbook.validations import form_of_answer_values
from tests.workbook_builders import QUESTIONS, build_questionnaire, rewrite_zip, style_header


def settings(**workbook) -> Settings:
    s = Settings()
    for k, v in workbook.items():
        setattr(s.workbook, k, v)
    return s


@pytest.mark.parametrize("header_row", [1, 3, 7])
def test_header_row_found_anywhere(tmp_path, header_row):
    path = build_questionnaire(tmp_path / "q.xlsx", header_row=header_row, title=header_row > 1)
    layout, rows = read_questions(Settings(), path)
    assert [s.name for s in layout.sheets] == ["Questionnaire"]
    sheet = layout.sheets[0]
    assert sheet.header_row == header_row
    assert {r: c.letter for r, c in sheet.columns.items() if not c.added} == {
        "number": "A", "section": "B", "question": "C", "form_of_answer": "D", "explanation": "E",
        "answer": "F", "comments": "G"}
    assert [q.question for q in rows] == [q[1] for q in QUESTIONS]
    assert [q.number for q in rows] == ["1", "2", "3", "4", "5"]
    # Section rows sit between groups and are skipped, with their text kept as the section.
    headings = [s for s in sheet.skipped if s.reason == "section heading"]
    assert [h.text for h in headings][:3] == ["Targets", "Emissions", "Governance"]
    assert rows[2].section == "Emissions"
    assert layout.ignored_sheets == {"Instructions": "no question column"}


def test_added_columns_planned_after_the_last_header(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    sheet = inspect_workbook(Settings(), path).sheets[0]
    added = {c.role: c.letter for c in sheet.added_columns}
    assert added == {"reasoning": "H", "sources": "I", "confidence": "J", "status": "K", "review": "L",
                     "reviewer_comment": "M", "tier": "N", "checks": "O", "library_answer": "P",
                     "datapoints": "Q"}


def test_missing_answer_column_is_added_and_data_columns_are_skipped(tmp_path):
    headers = ["#", "Question", "Guidance"]
    path = build_questionnaire(tmp_path / "q.xlsx", headers=headers, header_row=2, title=False, sections=False,
                               extras=False)
    wb = openpyxl.load_workbook(path)
    wb.active["E10"] = "helper list value"  # data right of the header: never overwritten
    wb.save(path)
    sheet = inspect_workbook(Settings(), path).sheets[0]
    assert sheet.columns["answer"].added and sheet.columns["answer"].letter == "D"
    assert sheet.columns["reasoning"].letter == "F"  # E holds data
    assert sheet.columns["explanation"].letter == "C"


def test_merged_section_rows_and_vertical_merges(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx", merged_sections=True, extras=False)
    wb = openpyxl.load_workbook(path)
    ws = wb.active
    # A question whose text cell is merged over two rows: the second row is not a question.
    last = max(q for q in range(1, ws.max_row + 1) if ws.cell(row=q, column=3).value)
    ws.merge_cells(start_row=last, start_column=3, end_row=last + 1, end_column=3)
    ws.cell(row=last + 1, column=1, value=99)
    wb.save(path)
    layout, rows = read_questions(Settings(), path)
    sheet = layout.sheets[0]
    assert len(rows) == len(QUESTIONS)
    reasons = {s.row: s.reason for s in sheet.skipped}
    assert reasons[last + 1] == "merged cell"
    assert sum(1 for r in reasons.values() if r == "section heading") == 3
    assert rows[0].section == "Targets"


def test_two_question_sheets_and_instructions(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(path)
    ws2 = wb.create_sheet("Social", 1)
    ws2["A1"] = "Part B"
    for c, h in enumerate(["ID", "Question text", "Response"], start=1):
        style_header(ws2.cell(row=4, column=c, value=h))
    ws2.append(["S1", "How many employees does the company have?", None])
    ws2.append(["S2", "What is the lost-time injury frequency rate?", None])
    hidden = wb.create_sheet("Lists")
    hidden["A1"], hidden["B1"] = "Question", "Answer"
    hidden["A2"] = "Is this hidden?"
    hidden.sheet_state = "hidden"
    wb.save(path)
    layout, rows = read_questions(Settings(), path)
    assert [s.name for s in layout.sheets] == ["Questionnaire", "Social"]
    social = layout.sheet("Social")
    assert social.header_row == 4 and social.letter("answer") == "C"
    assert [(q.sheet, q.row, q.number) for q in rows[-2:]] == [("Social", 5, "S1"), ("Social", 6, "S2")]
    assert layout.ignored_sheets == {"Instructions": "no question column", "Lists": "hidden"}
    assert rows[-1].key == "Social!6"


def test_numbers_inside_the_question_text(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Question", "Answer"])
    ws.append(["1.1 Does the company report Scope 3 emissions?", None])
    ws.append(["1.2) What is the base year?", None])
    ws.append(["Q3 Describe the transition plan.", None])
    ws.append(["Scope 1 emissions FY2024 (kt CO2e)", None])
    wb.save(tmp_path / "q.xlsx")
    _, rows = read_questions(Settings(), tmp_path / "q.xlsx")
    assert [(q.number, q.question) for q in rows] == [
        ("1.1", "Does the company report Scope 3 emissions?"), ("1.2", "What is the base year?"),
        ("Q3", "Describe the transition plan."), ("", "Scope 1 emissions FY2024 (kt CO2e)")]


def test_section_written_in_the_question_column_of_a_numbered_sheet(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["No.", "Question", "Answer"])
    ws.append([None, "Climate governance", None])
    ws.append([1, "Does the board oversee climate risks?", None])
    ws.append([2, "Scope 1 emissions FY2024 (kt CO2e)", None])
    wb.save(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), tmp_path / "q.xlsx")
    assert [q.row for q in rows] == [3, 4]
    assert rows[0].section == "Climate governance"
    assert layout.sheets[0].skipped[0].reason == "section heading"


def test_no_question_column_is_a_clear_error(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.append(["Name", "Value"])
    wb.active.append(["a", 1])
    wb.save(tmp_path / "plain.xlsx")
    with pytest.raises(InputError, match=r"no question column found in plain.xlsx; use --question-col and --header-row"):
        read_questions(Settings(), tmp_path / "plain.xlsx")


def test_explicit_mapping_overrides_detection(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["Supplier survey 2024"])
    ws.append(["Ref", "Item to confirm", "Reply", "Our notes"])
    ws.append(["A1", "Confirm you report under TCFD.", None, None])
    ws.append(["A2", "Confirm you have an SBTi target.", None, None])
    wb.save(tmp_path / "q.xlsx")
    with pytest.raises(InputError, match="no question column"):
        read_questions(Settings(), tmp_path / "q.xlsx")
    layout, rows = read_questions(settings(header_row=2, question_col="B", answer_col="Our notes"), tmp_path / "q.xlsx")
    sheet = layout.sheets[0]
    assert sheet.explicit and sheet.header_row == 2
    assert sheet.letter("question") == "B" and sheet.letter("answer") == "D"
    assert [q.question for q in rows] == ["Confirm you report under TCFD.", "Confirm you have an SBTi target."]
    # header text without a header row: the row is found from the text
    layout, rows = read_questions(settings(question_col="Item to confirm", answer_col="C"), tmp_path / "q.xlsx")
    assert layout.sheets[0].header_row == 2 and len(rows) == 2


@pytest.mark.parametrize("mapping, message", [
    ({"sheet": "Nope"}, "sheet 'Nope' not found"),
    ({"header_row": 50}, "header row 50 is outside"),
    ({"header_row": 3, "question_col": "Not a header"}, "question column 'Not a header' not found"),
    ({"answer_col": "Missing answer"}, "answer column 'Missing answer' not found"),
])
def test_mapping_that_points_nowhere(tmp_path, mapping, message):
    path = build_questionnaire(tmp_path / "q.xlsx")
    with pytest.raises(InputError, match=message):
        read_questions(settings(**mapping), path)


def test_sheet_option_restricts_to_one_sheet(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    layout = inspect_workbook(settings(sheet="Questionnaire"), path)
    assert [s.name for s in layout.sheets] == ["Questionnaire"]
    with pytest.raises(InputError, match="no question column"):
        inspect_workbook(settings(sheet="Instructions"), path)


def test_dropdowns_inline_range_cross_sheet_and_named(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Q"
    ws.append(["Question", "Form of answer", "Answer"])
    for i in range(5):
        ws.append([f"Question {i}?", "Yes/No", None])
    ws["H1"], ws["H2"] = "High", "Low"
    lists = wb.create_sheet("Lists")
    for i, v in enumerate(["Fully", "Partly", "Not at all"], start=1):
        lists.cell(row=i, column=1, value=v)
    wb.defined_names["Levels"] = DefinedName("Levels", attr_text="Lists!$A$1:$A$2")
    for formula, cell in [('"Yes,No,Partially"', "C2"), ("$H$1:$H$2", "C3"), ("Lists!$A$1:$A$3", "C4"),
                          ("Levels", "C5")]:
        dv = DataValidation(type="list", formula1=formula)
        dv.add(cell)
        ws.add_data_validation(dv)
    wb.save(tmp_path / "q.xlsx")
    _, rows = read_questions(Settings(), tmp_path / "q.xlsx")
    assert [q.allowed_values for q in rows] == [["Yes", "No", "Partially"], ["High", "Low"],
                                                ["Fully", "Partly", "Not at all"], ["Fully", "Partly"], ["Yes", "No"]]
    assert [q.allowed_values_source for q in rows] == ["dropdown"] * 4 + ["form of answer"]


X14 = ('<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" '
       'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
       '<x14:dataValidations count="1" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">'
       '<x14:dataValidation type="list" allowBlank="1"><x14:formula1><xm:f>Lists!$A$1:$A$3</xm:f></x14:formula1>'
       '<xm:sqref>B2:B3</xm:sqref></x14:dataValidation></x14:dataValidations></ext></extLst>')


def build_x14(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Q"
    ws.append(["Question", "Answer"])
    ws.append(["Is it cross-sheet?", None])
    ws.append(["Is it kept?", None])
    lists = wb.create_sheet("Lists")
    for i, v in enumerate(["Yes", "No", "Unknown"], start=1):
        lists.cell(row=i, column=1, value=v)
    wb.save(path)
    rewrite_zip(path, {"xl/worksheets/sheet1.xml": lambda x: x.replace("</worksheet>", X14 + "</worksheet>")})
    return path


def test_cross_sheet_dropdown_in_extension_list_is_read_and_warned(tmp_path):
    path = build_x14(tmp_path / "x14.xlsx")
    assert openpyxl.load_workbook(path)["Q"].data_validations.dataValidation == []  # openpyxl cannot see it
    layout, rows = read_questions(Settings(), path)
    assert [q.allowed_values for q in rows] == [["Yes", "No", "Unknown"]] * 2
    assert any("cross-sheet" in w and "'Q'" in w for w in layout.warnings)


def test_formula_question_cells(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Question", "Answer"])
    ws.append(["=B10", None])
    ws.append(["=B11", None])
    ws.append(["Plain question?", None])
    wb.save(tmp_path / "f.xlsx")
    # Give the first formula a cached value, as Excel would have saved it.
    rewrite_zip(tmp_path / "f.xlsx", {"xl/worksheets/sheet1.xml": lambda x: x.replace(
        '<c r="A2"><f>B10</f><v /></c>', '<c r="A2" t="str"><f>B10</f><v>Cached question?</v></c>')})
    layout, rows = read_questions(Settings(), tmp_path / "f.xlsx")
    assert [(q.row, q.question) for q in rows] == [(2, "Cached question?"), (4, "Plain question?")]
    sheet = layout.sheets[0]
    assert [(s.row, s.reason) for s in sheet.skipped] == [(3, "formula without value")]
    assert any("row 3" in w and "formula" in w for w in sheet.warnings)


def test_previous_output_columns_are_read_back(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Question", "Answer", "Reasoning", "Sources", "Confidence", "Status", "Review", "Reviewer comment"])
    ws.append(["Q one?", "Yes", "r", "a.pdf p. 1", "high", "Answered", "Approved", ""])
    ws.append(["Q two?", "No", "r", "a.pdf p. 2", "low", "Answered", "Needs changes", "Check page 4"])
    ev = wb.create_sheet("Evidence")
    ev.append(["Row", "Question", "Rank", "File", "Page", "Cited", "Score", "Text"])
    ev.append([2, "Q one?", 1, "a.pdf", 1, "yes", 0.9, "text"])
    wb.save(tmp_path / "prev.xlsx")
    layout, rows = read_questions(Settings(), tmp_path / "prev.xlsx")
    assert layout.ignored_sheets == {"Evidence": "written by autofill"}
    # an output of a version before the trust checks and the answer library gains only their columns
    assert {c.role: c.letter for c in layout.sheets[0].added_columns} == {"tier": "I", "checks": "J",
                                                                          "library_answer": "K", "datapoints": "L"}
    assert [(q.existing_answer, q.status, q.review, q.reviewer_comment) for q in rows] == [
        ("Yes", "Answered", "Approved", ""), ("No", "Answered", "Needs changes", "Check page 4")]


def test_a_customer_status_column_is_not_mistaken_for_ours(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.append(["Question", "Status", "Answer"])
    wb.active.append(["Q one?", "Open", None])
    wb.save(tmp_path / "q.xlsx")
    sheet = inspect_workbook(Settings(), tmp_path / "q.xlsx").sheets[0]
    assert sheet.columns["status"].added and sheet.columns["status"].letter != "B"


def test_describe_and_json(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    layout = inspect_workbook(Settings(), path)
    text = layout.describe()
    assert "Sheet 'Questionnaire': header on row 3 (detected)" in text
    assert "Question = C ('Question')" in text and "will add: Reasoning -> H" in text
    assert "drop-downs on 3 answer cells: Yes, No, Partially, Not disclosed" in text
    assert "'Instructions' (no question column)" in text
    data = json.loads(json.dumps(layout.to_json()))
    assert data["questions"] == 5
    assert data["sheets"][0]["columns"]["answer"] == {"letter": "F", "header": "Answer", "added": False}
    assert data["sheets"][0]["questions"][0]["allowed_values"] == ["Yes", "No", "Partially", "Not disclosed"]


def test_csv_questionnaire(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("No.;Question;Answer\n1;Does the company report emissions?;\n2;=HYPERLINK(\"x\");\n",
                    encoding="utf-8")
    layout, rows = read_questions(Settings(), path)
    assert layout.kind == "csv" and layout.sheets[0].name == "Questionnaire"
    assert [q.question for q in rows] == ["Does the company report emissions?", '=HYPERLINK("x")']


@pytest.mark.parametrize("text, values", [
    ("Yes/No", ["Yes", "No"]),
    ("Yes/No and a short explanation", ["Yes", "No"]),
    ("Yes / No / Partially and short explanation", ["Yes", "No", "Partially"]),
    ("Select: Yes/No/Not disclosed", ["Yes", "No", "Not disclosed"]),
    ("Yes, No or Partially", ["Yes", "No", "Partially"]),
    ("Yes or No", ["Yes", "No"]),
    ("Yes/No/N/A", ["Yes", "No", "N/A"]),
    ("Short text: target, scope, % reduction, base year", []),
    ("Number (t CO2e/year)", []),
    ("Scope 1/2 emissions", []),
    ("", []),
])
def test_form_of_answer_values(text, values):
    assert form_of_answer_values(text) == values


def test_bundled_sample_questionnaire_matches_its_gold_key():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    layout, rows = read_questions(Settings(), root / "questionnaires" / "sample_questionnaire.xlsx")
    sheet = layout.sheets[0]
    assert sheet.header_row == 3 and layout.ignored_sheets == {"Instructions": "no question column"}
    assert len([s for s in sheet.skipped if s.reason == "section heading"]) == 4
    gold = json.loads((root / "questionnaires" / "sample_gold.json").read_text(encoding="utf-8"))
    assert [(g["no"], g["question"]) for g in gold] == [(int(q.number), q.question) for q in rows]
    assert [q.allowed_values_source == "dropdown" for q in rows] == [g["answer_type"] == "yesno" for g in gold]
    pdf = root / "samples" / "northwind_sustainability_2024.pdf"
    if pdf.exists():
        import pymupdf

        doc = pymupdf.open(pdf)
        norm = lambda s: re.sub(r"\s+", " ", s).strip().lower()  # noqa: E731
        for g in gold:
            for ev in g["gold"]:
                assert ev["file"] == pdf.name
                assert norm(ev["evidence"]) in norm(doc[ev["page"] - 1].get_text()), ev


def test_cli_inspect(tmp_path):
    from click.testing import CliRunner

    from autofill.cli import cli

    path = build_questionnaire(tmp_path / "q.xlsx")
    runner = CliRunner()
    result = runner.invoke(cli, ["--workspace", str(tmp_path), "inspect", str(path)])
    assert result.exit_code == 0, result.output
    assert "header on row 3" in result.output and "question rows (5)" in result.output
    result = runner.invoke(cli, ["--workspace", str(tmp_path), "inspect", str(path), "--json", "--header-row", "3",
                                 "--question-col", "Question"])
    assert result.exit_code == 0 and json.loads(result.output)["sheets"][0]["explicit_mapping"] is True
    plain = tmp_path / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active.append(["Name", "Value"])
    wb.save(plain)
    result = runner.invoke(cli, ["--workspace", str(tmp_path), "inspect", str(plain)])
    assert result.exit_code == 2
    assert "no question column found in plain.xlsx; use --question-col and --header-row" in result.output


def test_hidden_question_rows_are_answered_but_reported(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(path)
    wb.active.row_dimensions[6].hidden = True
    wb.save(path)
    layout, rows = read_questions(Settings(), path)
    assert 6 in [q.row for q in rows]
    assert any("hidden in Excel (rows 6)" in w for w in layout.all_warnings)


def test_a_form_of_answer_is_read_in_its_rows_language_and_the_prompt_lists_its_values(tmp_path):
    """Issue 43: "Ja/Nein", "Sí/No" and "Sì/No" in a sheet of German, Spanish and Italian rows are closed
    forms as "Yes/No" is (before: no allowed values, so neither the prompt nor the form check knew them);
    the answer prompt asks for those words; a free-text form stays free."""
    from autofill.answer.generate import answer_messages

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Nr.", "Frage", "Antwortform", "Antwort"])
    rows = [("Hat das Unternehmen ein Netto-Null-Ziel für die eigenen Werke und die Lieferkette?", "Ja/Nein"),
            ("Wie hoch waren die Emissionen des Konzerns im Jahr 2023 und wie haben sie sich entwickelt?", "Zahl"),
            ("¿Tiene la empresa un objetivo de cero emisiones netas para sus operaciones y su cadena?", "Sí/No"),
            ("¿Cuál es el objetivo de la empresa para las emisiones y cómo se mide su avance?", "Texto breve"),
            ("L'azienda ha un obiettivo di zero emissioni nette per il gruppo e per la catena di fornitura?", "Sì/No"),
            ("Quali sono state le emissioni di scope 1 dell'azienda e come sono cambiate?", "Testo breve")]
    for i, (question, form) in enumerate(rows, start=1):
        ws.append([i, question, form, None])
    wb.save(tmp_path / "q.xlsx")
    layout, questions = read_questions(Settings(), tmp_path / "q.xlsx")
    assert layout.languages == ("de", "es", "it")
    assert [(q.language, q.allowed_values, q.allowed_values_source) for q in questions] == [
        ("de", ["Ja", "Nein"], "form of answer"), ("de", [], ""), ("es", ["Sí", "No"], "form of answer"),
        ("es", [], ""), ("it", ["Sì", "No"], "form of answer"), ("it", [], "")]
    prompt = answer_messages(Settings(), "Acme", questions[0], [], "en")[1].content
    assert "Allowed values: Ja, Nein." in prompt and "Write the answer and the reasoning in German" in prompt
    assert "language: German, Spanish, Italian" in layout.describe()
    assert layout.to_json()["languages"] == ["de", "es", "it"]
