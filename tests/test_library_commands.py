"""`autofill library add|list|export|import|remove` and `companies`: approved rows of filled workbooks
(autofill's own layout and a customer's) go into the library; adding twice updates; the export is a
workbook a team edits and imports back."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
from click.testing import CliRunner

from autofill.cli import cli
from autofill.library.store import open_library
from autofill.library.xlsx import COLUMNS, export_workbook, import_workbook
from autofill.settings import Settings
from autofill.store.chroma_store import open_store
from tests.store_helpers import make_chunks, record_for

OURS = ["No.", "Question", "Answer", "Reasoning", "Sources", "Confidence", "Status", "Review", "Reviewer comment"]


def filled_workbook(path: Path) -> Path:
    """autofill's output layout: two approved rows (one edited by hand), one needing changes, one blank."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["Climate questionnaire"])
    ws.append([])
    ws.append(OURS)
    ws.append(["1", "Does the company have a net zero target for Scope 1 and 2?", "Yes", "Net zero by 2050.",
               "report.pdf p. 2", "high", "Answered", "Approved", "Checked"])
    ws.append(["2", "What were Scope 1 emissions in FY2024?", "1,120 kt CO2e", "Table on p. 4.",
               "report.pdf p. 4", "high", "Answered", "approved", ""])
    ws.append(["3", "Which committee oversees climate risk?", "The board", "", "report.pdf p. 3", "low",
               "Answered", "Needs changes", "Name the committee"])
    ws.append(["4", "Is the report assured?", "", "", "", "", "", "Approved", ""])
    ws.append(["5", "Is water reported?", "Evidence found (not an answer): water use was 12 GL (report.pdf p. 5)", "",
               "report.pdf p. 5", "", "Evidence only (no LLM configured)", "Approved", ""])
    wb.save(path)
    return path


def customer_workbook(path: Path) -> Path:
    """A customer's own layout: other column order and names, Review and Reviewer comment on the left."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "ESG"
    ws.append(["Ref", "Review", "Reviewer comment", "Topic", "Question", "Supplier response", "Sources"])
    ws.append(["E-7", "Approved", "", "Water", "How much water did the company withdraw in FY2024?", "12.4 GL",
               "report.pdf p. 5"])
    ws.append(["E-8", "", "", "Water", "Does the company recycle water?", "Yes", ""])
    wb.save(path)
    return path


REPORT_PAGES = ["Contents.", "Net zero by 2050 for Scope 1 and 2.", "The Board Sustainability Committee.",
                "Scope 1 emissions were 1,120 kt CO2e in FY2024.", "Water withdrawal was 12.4 GL in FY2024."]


def report_store(s: Settings):
    """report.pdf in Acme's evidence store, one chunk a page: what the approved answers are checked against."""
    store = open_store(s, "Acme", create=True, embedder="fake:hash-64")
    chunks = make_chunks("Acme", "report.pdf", "v1", REPORT_PAGES)
    store.replace_document(record_for(chunks), chunks, [[1.0] + [0.0] * 63 for _ in chunks])
    return chunks


def invoke(ws: Path, *args):
    result = CliRunner().invoke(cli, ["--workspace", str(ws), *args], catch_exceptions=False)
    return result


def test_add_twice_updates_and_the_library_lists_exports_and_imports(workspace, tmp_path):
    s = Settings(workspace=workspace)
    chunks = report_store(s)
    filled = filled_workbook(tmp_path / "filled.xlsx")

    r = invoke(workspace, "library", "add", "--company", "Acme", str(filled), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output.strip().splitlines()[-1])
    assert (data["added"], data["updated"], data["entries"]) == (2, 0, 2)
    again = json.loads(invoke(workspace, "library", "add", "--company", "Acme", str(filled), "--json")
                       .output.strip().splitlines()[-1])
    assert (again["added"], again["updated"], again["unchanged"], again["entries"]) == (0, 0, 2, 2)

    with open_library(s, "Acme") as lib:
        e = lib.get("Does the company have a net zero target for Scope 1 and 2?")
        assert (e.answer, e.reasoning, e.sources, e.reviewer_comment) == ("Yes", "Net zero by 2050.", "report.pdf p. 2",
                                                                          "Checked")
        # The hash of a cited document comes from the store manifest.
        assert e.documents == {"report.pdf": chunks[0].doc_sha256}
        assert lib.get("What were Scope 1 emissions in FY2024?").documents == {"report.pdf": chunks[0].doc_sha256}
        assert e.source_questionnaire == "filled.xlsx" and e.source_row == "Questionnaire!4"

    listed = invoke(workspace, "library", "list", "--company", "Acme")
    assert "2 approved answers" in listed.output and "1,120 kt CO2e" in listed.output
    companies = json.loads(invoke(workspace, "companies", "--json").output)
    assert companies["companies"][0]["library"] == 2
    assert "2 library answers" in invoke(workspace, "companies").output

    out = tmp_path / "lib.xlsx"
    assert invoke(workspace, "library", "export", "--company", "Acme", str(out)).exit_code == 0
    wb = openpyxl.load_workbook(out)
    ws = wb.active
    assert [c.value for c in ws[1]] == COLUMNS and ws.max_row == 3
    ws["B3"] = "1,120 kt CO2e (Scope 1, FY2024)"  # a team edits an answer
    wb.save(out)
    imported = json.loads(invoke(workspace, "library", "import", "--company", "Acme", str(out), "--json").output)
    assert (imported["added"], imported["updated"], imported["unchanged"]) == (0, 1, 1)
    with open_library(s, "Acme") as lib:
        assert lib.get("What were Scope 1 emissions in FY2024?").answer == "1,120 kt CO2e (Scope 1, FY2024)"
        first_id = lib.entries()[0].id
    # An imported answer is checked against today's evidence too: a figure on none of its pages stays out.
    ws["B3"] = "1,150 kt CO2e (restated)"
    wb.save(out)
    refused = invoke(workspace, "library", "import", "--company", "Acme", str(out))
    assert refused.exit_code == 0 and "not added: Questionnaire!5: failed checks" in refused.output
    assert "1,150 kt CO2e not in cited passages" in refused.output

    assert invoke(workspace, "library", "remove", "--company", "Acme", "--id", str(first_id)).exit_code == 0
    missing = invoke(workspace, "library", "remove", "--company", "Acme", "--id", "999")
    assert missing.exit_code == 2 and "nothing matched" in missing.output
    assert json.loads(invoke(workspace, "companies", "--json").output)["companies"][0]["library"] == 1


def test_customer_layout_is_read(workspace, tmp_path):
    path = customer_workbook(tmp_path / "customer.xlsx")
    # No evidence store: the answer cannot be checked, so the library does not take it.
    unchecked = invoke(workspace, "library", "add", "--company", "Acme", str(path))
    assert unchecked.exit_code == 0 and "not added: ESG!2: its answer was not checked" not in unchecked.output
    assert "not added: ESG!2: failed checks without the reviewer's recorded override: not checked: no evidence " \
           "store for 'Acme'" in unchecked.output
    chunks = report_store(Settings(workspace=workspace))
    r = invoke(workspace, "library", "add", "--company", "Acme", str(path))
    assert r.exit_code == 0, r.output
    with open_library(Settings(workspace=workspace), "Acme") as lib:
        [e] = lib.entries()
    assert (e.question, e.answer, e.sources) == ("How much water did the company withdraw in FY2024?", "12.4 GL",
                                                 "report.pdf p. 5")
    assert e.documents == {"report.pdf": chunks[0].doc_sha256} and e.checks == []


def test_export_import_round_trip_keeps_every_field(workspace, tmp_path):
    from autofill.library.store import Entry

    e = Entry(question="=SUM(A1) is not a formula?", answer="Yes. 46%.", approved_at="2024-11-30",
              reasoning="p. 5 says so", sources="r.pdf p. 5", reviewer_comment="ok", source_questionnaire="q.xlsx",
              source_row="Q!7", form_of_answer="Yes/No", documents={"r.pdf": "ab" * 32, "s b.pdf": "cd" * 32})
    out = export_workbook([e], tmp_path / "lib.xlsx", "Acme")
    [back] = import_workbook(out, "2030-01-01")
    for name in ("question", "answer", "approved_at", "reasoning", "sources", "reviewer_comment",
                 "source_questionnaire", "source_row", "form_of_answer", "documents"):
        assert getattr(back, name) == getattr(e, name), name


def test_bad_library_workbooks_are_one_line_errors(workspace, tmp_path):
    wb = openpyxl.Workbook()
    wb.active.append(["Something", "Else"])
    wb.save(tmp_path / "bad.xlsx")
    r = invoke(workspace, "library", "import", "--company", "Acme", str(tmp_path / "bad.xlsx"))
    assert r.exit_code == 2 and "no Question or Answer column" in r.output
    r = invoke(workspace, "library", "add", "--company", "Acme", str(tmp_path / "missing.xlsx"))
    assert r.exit_code == 2 and "not found" in r.output
    r = invoke(workspace, "library", "export", "--company", "Nobody", str(tmp_path / "x.xlsx"))
    assert r.exit_code == 2 and "no answer library" in r.output
    # A form values sheet without a value in a row, or without its Period column: one line, nothing imported.
    wb = openpyxl.Workbook()
    wb.active.title = "Answer library"
    wb.active.append(COLUMNS)
    forms = wb.create_sheet("Form values")
    forms.append(["Datapoint", "Period", "Value"])
    forms.append(["NumberOfEmployees", "2024", None])
    wb.save(tmp_path / "forms.xlsx")
    r = invoke(workspace, "library", "import", "--company", "Acme", str(tmp_path / "forms.xlsx"))
    assert r.exit_code == 2 and "'Form values' row 2: a form value needs a datapoint, a period and a value" in r.output
    forms.delete_rows(1, 2)
    forms.append(["Datapoint", "Value"])
    wb.save(tmp_path / "forms.xlsx")
    r = invoke(workspace, "library", "import", "--company", "Acme", str(tmp_path / "forms.xlsx"))
    assert r.exit_code == 2 and "no Period column in the first row of sheet 'Form values'" in r.output


def test_a_refused_answer_says_how_to_record_the_override_in_excel_and_that_works(workspace, tmp_path):
    """An approved answer whose figure is on none of its cited pages is refused; the refusal names the
    cell and the exact line that records the reviewer's override in Excel. Written there (as a reviewer
    would, in the workbook, below the comment already in the cell), the next `library add`, a fresh
    process like the first, takes it, with the override recorded."""
    import re

    from tests.race_helpers import cli

    report_store(Settings(workspace=workspace))
    path = filled_workbook(tmp_path / "filled.xlsx")
    wb = openpyxl.load_workbook(path)
    wb["Questionnaire"]["C5"] = "1,150 kt CO2e (restated)"  # Scope 1 FY2024: the report says 1,120
    wb["Questionnaire"]["I5"] = "Restated after the audit"
    wb.save(path)
    args = ["--workspace", str(workspace), "library", "add", "--company", "Acme", str(path)]

    first = cli(args)
    assert first.returncode == 0, first.stderr
    assert "not added: Questionnaire!5: failed checks" in first.stdout
    how = re.search(r"put this line in cell (\w+) \(Reviewer comment\) of sheet '(\w+)' .*?: "
                    r"(Approved over failed checks: .+)", first.stdout)
    assert how, first.stdout
    cell, sheet, line = how.groups()
    assert (cell, sheet) == ("I5", "Questionnaire") and "1,150 kt CO2e not in cited passages" in line
    as_json = json.loads(cli([*args, "--json"]).stdout.strip().splitlines()[-1])
    assert as_json["files"][0]["refused"][0]["override"].endswith(line)

    wb = openpyxl.load_workbook(path)
    ws = wb[sheet]
    ws[cell] = f"{ws[cell].value}\n{line}"
    wb.save(path)
    second = cli([*args, "--json"])
    assert second.returncode == 0, second.stderr
    done = json.loads(second.stdout.strip().splitlines()[-1])
    assert (done["added"], done["refused"]) == (1, []), second.stdout
    with open_library(Settings(workspace=workspace), "Acme") as lib:
        e = lib.get("What were Scope 1 emissions in FY2024?")
    assert e.answer == "1,150 kt CO2e (restated)" and e.checks and "1,150 kt CO2e not in cited passages" in e.override


def test_an_override_in_excel_confirms_only_the_checks_it_names():
    from autofill.library.harvest import comment_confirms, with_comment_override
    from autofill.library.store import Entry

    checks = ["1,150 kt CO2e not in cited passages", "year 2023 not in cited passages"]
    one = "Restated after the audit\napproved over failed checks:  1,150 KT CO2e not in cited passages"
    assert comment_confirms(one, checks) == checks[:1]  # case and spacing aside
    assert comment_confirms("1,150 kt CO2e not in cited passages", checks) == []  # no override line: no override
    e = Entry(question="Q", answer="1,150 kt CO2e", approved_at="2026-01-01", checks=checks,
              override=with_comment_override("", one, checks))
    assert e.refused.endswith(": year 2023 not in cited passages")  # the other check still needs confirming
    both = f"{one}; {checks[1]}"
    assert not Entry(question="Q", answer="x", approved_at="2026-01-01", checks=checks,
                     override=with_comment_override("", both, checks)).refused


def test_form_values_are_listed_apart_exported_on_their_own_sheet_and_imported_back(workspace, tmp_path):
    """The library's form values (library/forms.py: by datapoint and reporting period) through the CLI, each
    command a fresh process: `library list` shows them apart from the answers (datapoint, period, value,
    unit, who approved, in which form), `--json` too; `library export` writes them on a sheet of their
    own beside the answers' sheet; that workbook, edited by a team, imports back: every field kept, the
    edited value updated, the answers' import unchanged."""
    from autofill.library.forms import FormLibrary, FormValue
    from autofill.library.form_sheet import FORM_COLUMNS, FORM_SHEET
    from tests.race_helpers import cli

    s = Settings(workspace=workspace)
    chunks = report_store(s)
    ws_args = ["--workspace", str(workspace), "library"]
    assert cli([*ws_args, "add", "--company", "Acme", str(filled_workbook(tmp_path / "filled.xlsx"))]).returncode == 0
    values = [FormValue("GrossScope1GreenhouseGasEmissions", "2024", "1120", "2026-01-05", unit="kt CO2e",
                        label="Gross Scope 1 GHG emissions", sources="report.pdf p. 4",
                        documents={"report.pdf": chunks[0].doc_sha256}, reviewer="Ana Reviewer",
                        source_form="vsme_Acme_filled.xlsx", source_cell="Environmental!D12",
                        checks="figures: 1120 not in cited passages (FAILED)"),
              FormValue("GrossScope1GreenhouseGasEmissions", "2023", "1180", "2025-02-01", unit="kt CO2e",
                        source_form="vsme_2023.xlsx", source_cell="Environmental!D12"),
              FormValue("NumberOfEmployees", "2024", "=1+1", "2026-01-06", unit="people", reviewer="Bo",
                        source_form="vsme_Acme_filled.xlsx", source_cell="General!C9")]
    assert FormLibrary(s, "Acme").add(values, "2026-01-06T10:00:00") == 3

    listed = cli([*ws_args, "list", "--company", "Acme"])
    assert listed.returncode == 0, listed.stderr
    answers, _, forms = listed.stdout.partition("approved form values")
    assert "2 approved answers" in answers and "1,120 kt CO2e" in answers and "NumberOfEmployees" not in answers
    assert "Acme: 3 approved form values" in listed.stdout
    assert "GrossScope1GreenhouseGasEmissions (2024): 1120 kt CO2e" in forms
    assert "GrossScope1GreenhouseGasEmissions (2023): 1180 kt CO2e" in forms
    assert "approved 2026-01-05 by Ana Reviewer in vsme_Acme_filled.xlsx (Environmental!D12)" in forms
    assert "NumberOfEmployees (2024): =1+1 people" in forms
    as_json = json.loads(cli([*ws_args, "list", "--company", "Acme", "--json"]).stdout.strip().splitlines()[-1])
    assert len(as_json["entries"]) == 2
    first = as_json["form_values"][0]
    assert {k: first[k] for k in ("datapoint", "period", "value", "unit", "reviewer", "approved", "source_form",
                                  "source_cell")} == {
        "datapoint": "GrossScope1GreenhouseGasEmissions", "period": "2023", "value": "1180", "unit": "kt CO2e",
        "reviewer": "", "approved": "2025-02-01", "source_form": "vsme_2023.xlsx", "source_cell": "Environmental!D12"}

    out = tmp_path / "lib.xlsx"
    exported = cli([*ws_args, "export", "--company", "Acme", str(out), "--json"])
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout.strip().splitlines()[-1])["form_values"] == 3
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Answer library", FORM_SHEET] and wb.active.title == "Answer library"
    sheet = wb[FORM_SHEET]
    assert [c.value for c in sheet[1]] == FORM_COLUMNS and sheet.max_row == 4
    rows = [dict(zip(FORM_COLUMNS, r)) for r in sheet.iter_rows(min_row=2, values_only=True)]
    assert rows[2]["Value"] == "=1+1" and sheet["C4"].data_type == "s"  # text, never a formula
    assert rows[1]["Reviewer"] == "Ana Reviewer" and rows[1]["Documents"] == f"report.pdf sha256:{chunks[0].doc_sha256}"
    sheet["C3"] = "1,121"  # a team corrects a value
    wb.save(out)

    lib = FormLibrary(s, "Acme")
    for v in values:
        lib.remove(v.datapoint, v.period)
    assert lib.values() == []
    imported = cli([*ws_args, "import", "--company", "Acme", str(out), "--json"])
    assert imported.returncode == 0, imported.stderr
    done = json.loads(imported.stdout.strip().splitlines()[-1])
    assert (done["added"], done["updated"], done["unchanged"]) == (0, 0, 2)
    assert done["form_values"] == {"read": 3, "changed": 3, "held": 3}
    back = {(v.datapoint, v.period): v for v in lib.values()}
    fields = ("value", "unit", "label", "sources", "documents", "approved_at", "reviewer", "source_form",
              "source_cell", "checks")
    for v in values:
        want = {f: getattr(v, f) for f in fields}
        if v.period == "2024" and v.datapoint.startswith("Gross"):
            want["value"] = "1,121"
        assert {f: getattr(back[(v.datapoint, v.period)], f) for f in fields} == want
    again = json.loads(cli([*ws_args, "import", "--company", "Acme", str(out), "--json"]).stdout.strip().splitlines()[-1])
    assert again["form_values"] == {"read": 3, "changed": 0, "held": 3}


def test_remove_takes_form_values_out_by_datapoint_and_period_and_all_empties_answers_and_values(workspace,
                                                                                                 tmp_path):
    from autofill.library.forms import FormLibrary, FormValue

    s = Settings(workspace=workspace)
    report_store(s)
    assert invoke(workspace, "library", "add", "--company", "Acme", str(filled_workbook(tmp_path / "f.xlsx"))
                  ).exit_code == 0
    forms = FormLibrary(s, "Acme")
    forms.add([FormValue("ScopeOneEmissions", "2023", "1,050", "2024-03-01", unit="tCO2e"),
               FormValue("ScopeOneEmissions", "FY2024", "1,120", "2025-03-01", unit="tCO2e"),
               FormValue("WaterWithdrawal", "2024", "12.4", "2025-03-01", unit="GL")], "2025-03-01")

    def held():
        return sorted((v.datapoint, v.period) for v in forms.values())

    # One period of one datapoint ("FY2024" is keyed as 2024, as the library keys it when it learns).
    one = json.loads(invoke(workspace, "library", "remove", "--company", "Acme", "--datapoint", "ScopeOneEmissions",
                            "--period", "FY2024", "--json").output.strip().splitlines()[-1])
    assert (one["removed"], one["form_values_removed"], one["entries"], one["form_values"]) == (0, 1, 2, 2)
    assert held() == [("ScopeOneEmissions", "2023"), ("WaterWithdrawal", "2024")]
    missing = invoke(workspace, "library", "remove", "--company", "Acme", "--datapoint", "NoSuchDatapoint")
    assert missing.exit_code == 2 and "nothing matched" in missing.output and "datapoints" in missing.output
    alone = invoke(workspace, "library", "remove", "--company", "Acme", "--period", "2023")
    assert alone.exit_code == 2 and "--datapoint" in alone.output and held() == [("ScopeOneEmissions", "2023"),
                                                                               ("WaterWithdrawal", "2024")]

    # --all empties the library: its answers and its form values, both said.
    everything = invoke(workspace, "library", "remove", "--company", "Acme", "--all")
    assert everything.exit_code == 0
    assert "removed 2 answers and 2 form values; the answer library holds 0 answers and 0 form values" in \
        everything.output
    assert held() == []
    assert "the answer library is empty" in invoke(workspace, "library", "list", "--company", "Acme").output
