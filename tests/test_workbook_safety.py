"""Cell text safety (formula injection, forbidden characters, the 32,767 limit) and bad input files."""

from __future__ import annotations

import zipfile

import openpyxl
import pytest

from autofill.errors import InputError
from autofill.records import Answer, Passage, RowResult
from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from autofill.workbook.safety import (EXCEL_CELL_LIMIT, check_lossy_features, check_workbook_file, clean_text,
                                      guard_workbook, replaced_reason, set_text, xml_safe)
from autofill.workbook.writeback import write_results
from tests.workbook_builders import build_questionnaire, cell_xml, rewrite_zip, sheet_xml


def test_characters_a_workbook_cannot_hold_are_replaced_visibly():
    assert clean_text("a\x00b\x07c\x1fd\te\nf\rg") == "a\ufffdb\ufffdc\ufffdd\te\nf\rg"
    text = "x\ufffey\uffffz\ud800w\udc00v\ufdd0u\U0001fffft\U0010fffe"
    safe, replaced = xml_safe(text)
    assert safe == "x\ufffdy\ufffdz\ufffdw\ufffdv\ufffdu\ufffdt\ufffd"
    assert replaced == [0xFFFE, 0xFFFF, 0xD800, 0xDC00, 0xFDD0, 0x1FFFF, 0x10FFFE]
    # A surrogate pair held as two code units is the character it spells; other text is untouched.
    assert xml_safe("\ud83d\ude00 ok") == ("\U0001f600 ok", [])
    plain = "Scope 1: 12,400 tCO\u2082e (\u00e9, \u4e2d\u6587, \U0001f600, \ufffd, \x85)\t\n"
    assert xml_safe(plain) == (plain, [])
    assert replaced_reason({"Answer": [0xFFFF], "Reasoning": []}) == (
        "1 character an Excel file cannot hold (U+FFFF) replaced by U+FFFD in the Answer")
    assert replaced_reason({"A": [1, 1], "B": [0xD800]}) == (
        "3 characters an Excel file cannot hold (U+0001, U+D800) replaced by U+FFFD in the A and B")
    assert replaced_reason({}) == ""


def test_the_last_guard_makes_any_text_a_workbook_holds_safe(tmp_path):
    """Text put in without set_text (a cell value set raw, a comment, a link, a sheet name, a drop-down
    message, a document property) is made safe before saving: the file opens, nothing raw is left."""
    from openpyxl.comments import Comment
    from openpyxl.worksheet.datavalidation import DataValidation

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Q\ufffe"
    ws["A1"] = "answer"
    ws["A1"]._value = "answer \uffff"  # past openpyxl's own check of control characters
    ws["B1"] = "noted"
    ws["B1"].comment = Comment("a note \ud800", "Ana\x01")
    ws["C1"] = "link"
    ws["C1"].hyperlink = "reports/r\udcff.pdf#page=2"
    ws["C1"].hyperlink.tooltip = "Open r\udcff.pdf"
    dv = DataValidation(type="list", formula1='"Yes,No"', error="Choose \ufffe", errorTitle="x")
    ws.add_data_validation(dv)
    wb.properties.title = "Answers for \uffff"
    fixed = guard_workbook(wb)
    assert set(fixed) == {"sheet name 'Q\\ufffe'", "Q\ufffd!A1", "comment of Q\ufffd!B1", "link of Q\ufffd!C1",
                          "drop-down of Q\ufffd", "document property title"}, fixed
    path = tmp_path / "g.xlsx"
    wb.save(path)
    back = openpyxl.load_workbook(path)
    ws = back["Q\ufffd"]
    assert ws["A1"].value == "answer \ufffd" and ws["B1"].comment.text == "a note \ufffd"
    assert ws["C1"].hyperlink.target == "reports/r\ufffd.pdf#page=2"
    assert back.properties.title == "Answers for \ufffd"
    assert guard_workbook(back) == []


def test_unsafe_answers_are_replaced_and_named_in_checks(tmp_path):
    """A model's answer and reasoning holding U+FFFF / U+FFFE / a lone surrogate: the output opens, the
    characters show as U+FFFD, and the row's Checks say what was replaced where (tier Check, not Ready)."""
    from autofill.checks.tier import decide_tier

    src = build_questionnaire(tmp_path / "q.xlsx", dropdown=False)
    layout, rows = read_questions(Settings(), src)
    passage = Passage("c1", "r\udcff.pdf", 1, 1, "", "Passage \uffff text", 0.5, 1)
    results = []
    for q in rows:
        res = RowResult(q, Answer(answer="12% \uffff", reasoning="It \ufffe says \ud800 so.", confidence="high"),
                        [passage])
        res.tier = decide_tier(res.checks)
        results.append(res)
    out = write_results(Settings(), src, layout, results, tmp_path / "o.xlsx",
                        {"note": "run \uffff", "documents": {"r\udcff.pdf": str(tmp_path / "r\udcff.pdf")}})
    wb = openpyxl.load_workbook(out)
    r = rows[0].row
    ws = wb.active
    assert ws[f"F{r}"].value == "12% \ufffd" and ws[f"H{r}"].value == "It \ufffd says \ufffd so."
    headers = {c.value: c.column_letter for c in ws[layout.sheets[0].header_row]}
    assert ws[f"{headers['Tier']}{r}"].value == "Check"
    assert ws[f"{headers['Checks']}{r}"].value == (
        "3 characters an Excel file cannot hold (U+FFFF, U+FFFE, U+D800) replaced by U+FFFD in the Answer "
        "and Reasoning")
    assert results[0].tier.label == "Check" and any(c.name == "characters" for c in results[0].checks)
    assert [e["Text"] for e in read_output_evidence(wb)][:1] == ["Passage \ufffd text"]
    assert {row[0].value: row[1].value for row in wb["Run info"].iter_rows(min_row=2)}["note"] == "run \ufffd"


def read_output_evidence(wb) -> list[dict]:
    ev = wb["Evidence"]
    head = [c.value for c in ev[1]]
    return [dict(zip(head, [c.value for c in row])) for row in ev.iter_rows(min_row=2)]


def test_long_text_is_cut_with_a_visible_note():
    text = "x" * 40_000
    out = clean_text(text)
    assert len(out) == EXCEL_CELL_LIMIT
    kept = out.index("…")
    assert out.endswith(f"… [truncated by autofill: {40_000 - kept} characters omitted]")
    assert clean_text("y" * EXCEL_CELL_LIMIT) == "y" * EXCEL_CELL_LIMIT


@pytest.mark.parametrize("text", ["=1+1", "=HYPERLINK(\"http://evil\",\"click\")", "+SUM(A1:A2)", "-2+3", "@cmd"])
def test_formula_like_text_is_stored_as_text(tmp_path, text):
    wb = openpyxl.Workbook()
    set_text(wb.active["A1"], text)
    path = tmp_path / "t.xlsx"
    wb.save(path)
    xml = cell_xml(path, "A1")
    assert "<f>" not in xml and 't="inlineStr"' in xml, xml
    cell = openpyxl.load_workbook(path).active["A1"]
    assert cell.value == text and cell.data_type == "s"
    assert cell.quotePrefix  # Excel keeps it text even when a reviewer edits the cell


def test_formula_like_answers_and_passages_stay_text_in_the_output(tmp_path):
    src = build_questionnaire(tmp_path / "q.xlsx", dropdown=False)
    layout, rows = read_questions(Settings(), src)
    passage = Passage("c1", "r.pdf", 1, 1, "", "=cmd|' /C calc'!A0 passage", 0.5, 1)
    results = [RowResult(q, Answer(answer="=1+1", reasoning="=SUM(1)\x01", confidence="@high"), [passage])
               for q in rows]
    out = write_results(Settings(), src, layout, results, tmp_path / "o.xlsx", {"note": "=2+2"})
    wb = openpyxl.load_workbook(out)
    r = rows[0].row
    assert wb.active[f"F{r}"].value == "=1+1" and wb.active[f"F{r}"].data_type == "s"
    assert wb.active[f"H{r}"].value == "=SUM(1)\ufffd"  # the control character replaced visibly
    for name in ("Questionnaire", "Evidence", "Run info"):
        for row in wb[name].iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{name}!{cell.coordinate} is a formula"
    for i in (1, 3, 4):
        assert "<f>" not in sheet_xml(out, i)


def test_encrypted_workbook(tmp_path):
    # An encrypted .xlsx is an OLE compound file holding EncryptionInfo and EncryptedPackage streams.
    path = tmp_path / "secret.xlsx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + "EncryptionInfo".encode("utf-16-le")
                     + b"\x00" * 1000)
    with pytest.raises(InputError, match="password-protected workbook.*remove the password in Excel"):
        read_questions(Settings(), path)


def test_old_xls_is_refused_clearly(tmp_path):
    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2000 + "Workbook".encode("utf-16-le"))
    with pytest.raises(InputError, match=r"old binary Excel \(.xls\).*save it as .xlsx"):
        read_questions(Settings(), path)


@pytest.mark.parametrize("name, data, message", [
    ("broken.xlsx", b"PK\x03\x04 this is not really a zip", "corrupt"),
    ("text.xlsx", b"hello, I am a text file", "not an Excel .xlsx workbook"),
    ("sheet.ods", b"PK\x03\x04", ".ods files are not supported"),
])
def test_corrupt_and_foreign_files(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError, match=message):
        read_questions(Settings(), path)


def test_zip_that_is_not_a_workbook(tmp_path):
    path = tmp_path / "docs.xlsx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("word/document.xml", "<w/>")
    with pytest.raises(InputError, match="zip file but not an Excel workbook"):
        read_questions(Settings(), path)


def test_damaged_workbook_xml(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    rewrite_zip(path, {"xl/workbook.xml": "<workbook><sheets><oops"})
    with pytest.raises(InputError, match="corrupt"):
        read_questions(Settings(), path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="questionnaire not found"):
        read_questions(Settings(), tmp_path / "nope.xlsx")


def test_file_kinds(tmp_path):
    csv = tmp_path / "q.csv"
    csv.write_text("Question\nWhy?\n")
    assert check_workbook_file(csv) == "csv"
    assert check_workbook_file(build_questionnaire(tmp_path / "q.xlsx")) == "xlsx"


def test_a_clean_workbook_has_no_lossy_features(tmp_path):
    assert check_lossy_features(build_questionnaire(tmp_path / "q.xlsx")) == []


def test_lossy_features_are_detected(tmp_path):
    path = build_questionnaire(tmp_path / "q.xlsx")
    sparkline = ('<extLst><ext uri="{05C60535-1F16-4fd2-B633-F4F36F0B64E0}" '
                 'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
                 '<x14:sparklineGroups/></ext></extLst>')
    rewrite_zip(path, {
        "xl/worksheets/sheet1.xml": lambda x: x.replace("</worksheet>", sparkline + "</worksheet>"),
        "xl/slicers/slicer1.xml": "<slicers/>",
        "xl/ctrlProps/ctrlProp1.xml": "<formControlPr/>",
        "xl/vbaProject.bin": b"\x00VBA",
        "xl/drawings/drawing1.xml": '<xdr:wsDr xmlns:xdr="x"><xdr:twoCellAnchor><xdr:sp macro=""/></xdr:twoCellAnchor></xdr:wsDr>',
        "xl/threadedComments/threadedComment1.xml": "<ThreadedComments/>",
        "customXml/item1.xml": "<x/>",
    })
    warnings = check_lossy_features(path)
    text = "\n".join(warnings)
    assert "sparklines in sheet 'Questionnaire'" in text
    assert "slicers" in text and "form controls" in text and "macros" in text
    assert "shapes and text boxes" in text and "threaded comments" in text and "custom XML parts" in text
    assert all(w.startswith("q.xlsx: ") for w in warnings)
    layout, _ = read_questions(Settings(), path)
    assert set(warnings) <= set(layout.warnings)


def test_a_model_answer_a_workbook_cannot_hold_never_corrupts_the_output(tmp_path, llm_server):
    """The hostile-use case, as users run it: a loopback model answers with U+FFFF (and U+FFFE in its
    reasoning). The run exits 0, its output opens, the characters show as U+FFFD and each row's Checks
    name them; the next run continues that output (nothing starts again from the questionnaire)."""
    import json

    from tests.answer_helpers import passages_in, read_output
    from tests.llm_server import by_marker, last_user_text
    from tests.rows_helpers import cli, company_reports, env_for, last_json, questionnaire

    def unsafe(req):
        n = passages_in(last_user_text(req))[0][0]
        return json.dumps({"reasoning": f"Passage {n} \ufffe states it.", "answer": "31% \uffff in FY2024.",
                           "citations": [n], "confidence": "high"})

    llm_server.responder = by_marker({"Write a short passage": lambda r: "A passage about electricity.",
                                      "Rank all": lambda r: " > ".join(f"[{n}]" for n, *_ in passages_in(last_user_text(r))),
                                      "single JSON object": unsafe}, default="ok")
    env = env_for(llm_server)
    questionnaire(tmp_path / "q.xlsx")
    company_reports(tmp_path / "reports", "Acme", 31, 1200)
    assert cli(tmp_path, env, "ingest", "--company", "Acme", "reports").returncode == 0
    proc = cli(tmp_path, env, "run", "--company", "Acme", "--questionnaire", "q.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr
    data = last_json(proc)
    assert data["answered"] == 2, data
    assert ("autofill: warning: 2 rows held characters an Excel file cannot hold: replaced by U+FFFD, named in "
            "their Checks") in proc.stderr.splitlines(), proc.stderr
    rows = read_output(data["output"])["rows"]  # opens: nothing raw reached the file
    for row in rows.values():
        assert row["Answer"] == "31% \ufffd in FY2024." and "\ufffd states it" in row["Reasoning"]
        assert row["Checks"] == ("2 characters an Excel file cannot hold (U+FFFF, U+FFFE) replaced by U+FFFD "
                                 "in the Answer and Reasoning") and row["Tier"] == "Check"
    calls = len(llm_server.chat_requests())
    again = cli(tmp_path, env, "run", "--company", "Acme", "--questionnaire", "q.xlsx", "--json")
    assert again.returncode == 0 and "cannot be read" not in again.stderr, again.stderr
    assert last_json(again)["answered"] == 0 and len(llm_server.chat_requests()) == calls


def test_questionnaire_and_library_text_a_workbook_cannot_hold_is_replaced(tmp_path):
    """Other sources than the model: a CSV questionnaire (UTF-8 of U+FFFF, a control character) and an
    answer library exported to a workbook (the company name in its properties, an entry's texts)."""
    from autofill.library.store import Entry
    from autofill.library.xlsx import export_workbook

    csv = tmp_path / "q.csv"
    csv.write_bytes("Question,Answer\nWhat is \uffff the target?\x01,\n".encode("utf-8"))
    layout, rows = read_questions(Settings(), csv)
    assert rows[0].question == "What is \ufffd the target?\ufffd"
    out = write_results(Settings(), csv, layout, [RowResult(rows[0], Answer(answer="Net zero by 2050"), [])],
                        tmp_path / "o.xlsx", {})
    assert openpyxl.load_workbook(out).active["A2"].value == "What is \ufffd the target?\ufffd"
    entry = Entry(question="Net zero?\ufffe", answer="Yes \uffff", approved_at="2026-11-28", reasoning="p. 2 \ud800",
                  checks=["a check \x02"])
    path = export_workbook([entry], tmp_path / "library.xlsx", "Acme \udcff")
    wb = openpyxl.load_workbook(path)
    assert [c.value for c in wb.active[2]][:3] == ["Net zero?\ufffd", "Yes \ufffd", "p. 2 \ufffd"]
    assert wb.properties.title == "Answer library: Acme \ufffd"
