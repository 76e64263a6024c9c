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
                                      set_text)
from autofill.workbook.writeback import write_results
from tests.workbook_builders import build_questionnaire, cell_xml, rewrite_zip, sheet_xml


def test_illegal_characters_are_stripped():
    assert clean_text("a\x00b\x07c\x1fd\te\nf") == "abcd\te\nf"


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
    assert wb.active[f"H{r}"].value == "=SUM(1)"
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
